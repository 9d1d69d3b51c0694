import { positiveInt } from "../env-numbers.ts";

/** Settings of the catalogue side from the environment (README "Configuration"). */
export interface CataloguesConfig {
  /** Seconds between two scheduled refreshes of every linked series (daily by default). */
  refreshIntervalSeconds: number;
  /** Back-off base of a catalogue's transient failures: base × 2^n before retry n (Retry-After wins when longer). */
  retryBaseMs: number;
}

export function loadCataloguesConfig(env: NodeJS.ProcessEnv): CataloguesConfig {
  return {
    refreshIntervalSeconds: positiveInt(env, "CATALOGUE_REFRESH_INTERVAL_SECONDS", 86_400),
    retryBaseMs: positiveInt(env, "CATALOGUE_RETRY_BASE_MS", 1_000),
  };
}
