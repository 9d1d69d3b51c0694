/**
 * The service's health (GET /api/system/health, GraphQL `systemHealth`, the Settings page): reads
 * the facts — the library folder on disk and its free space, the series folders no scan recorded,
 * whether Suwayomi answers, the linked sources whose downloads fail — and lets domain/health.ts
 * decide what to report. Read on request only: nothing is polled in the background.
 */
import { constants } from "node:fs";
import { access, statfs } from "node:fs/promises";
import { healthChecks, healthStatus, type HealthCheck, type HealthFacts, type HealthStatus } from "../domain/health.ts";
import { isAppError } from "../errors.ts";
import { libraryFolderState } from "../library/library-root.ts";
import type { ProviderRegistry } from "../providers/registry.ts";
import type { AppContext } from "./context.ts";
import { unscannedSeriesFolders } from "./series/demo-service.ts";

export interface SystemHealth {
  status: HealthStatus;
  checks: HealthCheck[];
}

/** How long Suwayomi may take to list its sources before it counts as not answering. */
const SUWAYOMI_PROBE_MS = 10_000;

export function systemHealthService(
  ctx: AppContext,
  deps: {
    providers: Pick<ProviderRegistry, "suwayomiSources">;
    sourceSettings: { get(): Promise<{ suwayomi: { configured: boolean; url: string | null } }> };
    sources: { failingSources(): Promise<HealthFacts["failingSources"]> };
  },
) {
  async function library(): Promise<HealthFacts["library"]> {
    const root = ctx.config.libraryRoot;
    const state = await libraryFolderState(ctx);
    if (state === "missing") return { path: root, state, freeBytes: null };
    const writable = await access(root, constants.W_OK).then(
      () => true,
      () => false,
    );
    const freeBytes = await statfs(root).then(
      (s) => s.bavail * s.bsize,
      () => null,
    );
    return { path: root, state: state === "empty" ? "empty" : writable ? "ok" : "not_writable", freeBytes };
  }

  async function suwayomi(): Promise<HealthFacts["suwayomi"]> {
    const settings = (await deps.sourceSettings.get()).suwayomi;
    if (!settings.configured || settings.url === null) return { state: "off" };
    try {
      await deps.providers.suwayomiSources(undefined, AbortSignal.timeout(SUWAYOMI_PROBE_MS));
      return { state: "ok" };
    } catch (e) {
      // Switched off meanwhile: not a problem of the connection.
      if (isAppError(e) && e.code === "provider_unavailable") return { state: "off" };
      const error = e instanceof Error ? e.message : String(e);
      return { state: "unreachable", url: settings.url, error };
    }
  }

  return {
    async get(): Promise<SystemHealth> {
      const lib = await library();
      const [unscannedFolders, suwayomiFacts, failingSources] = await Promise.all([
        lib.state === "missing" ? 0 : unscannedSeriesFolders(ctx).catch(() => 0),
        suwayomi(),
        deps.sources.failingSources(),
      ]);
      const checks = healthChecks({ library: lib, unscannedFolders, suwayomi: suwayomiFacts, failingSources });
      return { status: healthStatus(checks), checks };
    },
  };
}
