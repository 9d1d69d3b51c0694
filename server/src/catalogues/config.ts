/** Settings of the catalogue side from the environment (README "Configuration"). */
export interface CataloguesConfig {
  /** Seconds between two scheduled refreshes of every linked series (daily by default). */
  refreshIntervalSeconds: number;
  /** Back-off base of a catalogue's transient failures: base × 2^n before retry n (Retry-After wins when longer). */
  retryBaseMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d{1,12}$/.test(text) || Number(text) <= 0)
    throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

export function loadCataloguesConfig(env: NodeJS.ProcessEnv): CataloguesConfig {
  return {
    refreshIntervalSeconds: int(env, "CATALOGUE_REFRESH_INTERVAL_SECONDS", 86_400),
    retryBaseMs: int(env, "CATALOGUE_RETRY_BASE_MS", 1_000),
  };
}
