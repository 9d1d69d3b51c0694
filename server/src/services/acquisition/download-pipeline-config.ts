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

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d{1,12}$/.test(text) || Number(text) <= 0)
    throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

export function loadDownloadsConfig(env: NodeJS.ProcessEnv): DownloadsConfig {
  return {
    perProvider: int(env, "DOWNLOADS_PER_PROVIDER", 2),
    total: int(env, "DOWNLOADS_TOTAL", 4),
    pageConcurrency: int(env, "DOWNLOAD_PAGE_CONCURRENCY", 4),
    retryBaseMs: int(env, "DOWNLOAD_RETRY_BASE_MS", 30_000),
    retryCapMs: int(env, "DOWNLOAD_RETRY_CAP_MS", 600_000),
    pollMs: int(env, "DOWNLOAD_POLL_MS", 2_000),
    wantedIntervalSeconds: int(env, "WANTED_INTERVAL_SECONDS", 3600),
    maxPerPass: int(env, "WANTED_MAX_DOWNLOADS", 10),
  };
}
