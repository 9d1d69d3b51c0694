import { positiveInt } from "../../env-numbers.ts";

/** Settings of the download pipeline and the Wanted pass, from the environment (README "Configuration"). */
export interface DownloadsConfig {
  /** Downloads running at once per provider, and overall. */
  perProvider: number;
  total: number;
  /** Pages of one download fetched at once. */
  pageConcurrency: number;
  /** Transient-failure back-off: base × 2^n capped (30 s, 600 s: docs/rules.md, "Content conformity of downloads"). */
  retryBaseMs: number;
  retryCapMs: number;
  /** Shortest wait of the back-off timer (a queueing pass and a finished job wake the workers at once). */
  pollMs: number;
  /** Seconds between two scheduled Wanted passes. */
  wantedIntervalSeconds: number;
  /** Downloads queued per series per Wanted pass. */
  maxPerPass: number;
}

export function loadDownloadsConfig(env: NodeJS.ProcessEnv): DownloadsConfig {
  return {
    perProvider: positiveInt(env, "DOWNLOADS_PER_PROVIDER", 2),
    total: positiveInt(env, "DOWNLOADS_TOTAL", 4),
    pageConcurrency: positiveInt(env, "DOWNLOAD_PAGE_CONCURRENCY", 4),
    retryBaseMs: positiveInt(env, "DOWNLOAD_RETRY_BASE_MS", 30_000),
    retryCapMs: positiveInt(env, "DOWNLOAD_RETRY_CAP_MS", 600_000),
    pollMs: positiveInt(env, "DOWNLOAD_POLL_MS", 2_000),
    wantedIntervalSeconds: positiveInt(env, "WANTED_INTERVAL_SECONDS", 3600),
    maxPerPass: positiveInt(env, "WANTED_MAX_DOWNLOADS", 10),
  };
}
