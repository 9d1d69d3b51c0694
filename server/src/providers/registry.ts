/**
 * Provider rows ↔ SourceProvider instances.
 *
 * Decisions:
 * - The drop folder is always present: one row "drop-folder" (kind drop_folder), created on first use.
 * - Suwayomi: one Provider row PER SUWAYOMI SOURCE ("suwayomi:<sourceId>", kind suwayomi, baseUrl the
 *   server), so priority and health are per source (MangaDex EN and another site are two rows). A row
 *   is created when the operator first searches or links through that source; the source's name and
 *   language are kept in the setting "suwayomi_sources" so providers are built without a round trip.
 * - All Suwayomi rows share one client, rebuilt when the settings (URL, auth, password) change. When
 *   Suwayomi is disabled or not configured its rows stay (mappings keep them) but have no provider.
 */
import { createHash } from "node:crypto";
import { AppError } from "../errors.ts";
import type { ProviderRepo, ProviderRow } from "../repositories/provider-repo.ts";
import type { SettingsRepo } from "../repositories/settings-repo.ts";
import type { AppContext } from "../services/context.ts";
import type { SourceSettingsService } from "../services/acquisition/source-settings.ts";
import { DropFolderProvider, DROP_FOLDER_PROVIDER_NAME } from "./drop-folder.ts";
import type { SourceProvider } from "./provider.ts";
import { SuwayomiClient, type SuwayomiSource } from "./suwayomi-client.ts";
import { SuwayomiProvider, suwayomiProviderName } from "./suwayomi.ts";

export const SUWAYOMI_SOURCES_KEY = "suwayomi_sources";
const SUWAYOMI_PREFIX = "suwayomi:";

export type { ProviderRow };

export interface ResolvedProvider {
  row: ProviderRow;
  /** null when the provider is unavailable (Suwayomi disabled or not configured, row disabled). */
  provider: SourceProvider | null;
}

/**
 * One Suwayomi client per service (every registry of it shares it), so one session or one pair of
 * tokens serves the sources panel and the download workers alike.
 */
const clients = new WeakMap<AppContext, { fingerprint: string; client: SuwayomiClient }>();

/** What the registry reads and writes: the source settings, the provider rows, the stored source names. */
export interface ProviderRegistryDeps {
  settings: SourceSettingsService;
  rows: ProviderRepo;
  stored: SettingsRepo;
}

export function providerRegistry(ctx: AppContext, { settings, rows, stored }: ProviderRegistryDeps) {
  const drop = new DropFolderProvider({ root: ctx.config.dropFolder, archiveLimits: ctx.config.archiveLimits });

  async function ensureDropFolderRow(): Promise<ProviderRow> {
    return rows.ensure(DROP_FOLDER_PROVIDER_NAME, { kind: "drop_folder" });
  }

  /** The shared client for the current settings, or null when Suwayomi is not usable. */
  async function suwayomiClient(): Promise<SuwayomiClient | null> {
    const conn = await settings.suwayomiConnection();
    if (!conn) return null;
    // The password enters the fingerprint only hashed, so it never sits in clear beside the client.
    const fingerprint = createHash("sha256").update(JSON.stringify(conn)).digest("hex");
    let client = clients.get(ctx);
    if (client?.fingerprint !== fingerprint)
      clients.set(ctx, (client = { fingerprint, client: new SuwayomiClient(conn) }));
    return client.client;
  }

  const knownSources = () => stored.get<Record<string, { name: string; lang: string }>>(SUWAYOMI_SOURCES_KEY, {});

  async function instance(row: ProviderRow): Promise<SourceProvider | null> {
    if (!row.enabled) return null;
    if (row.kind === "drop_folder") return drop;
    if (row.kind !== "suwayomi" || !row.name.startsWith(SUWAYOMI_PREFIX)) return null;
    const c = await suwayomiClient();
    if (!c) return null;
    const id = row.name.slice(SUWAYOMI_PREFIX.length);
    const meta = (await knownSources())[id];
    return new SuwayomiProvider(c, { id, name: meta?.name ?? id, lang: meta?.lang ?? "en" });
  }

  async function suwayomiSources(lang?: string, signal?: AbortSignal): Promise<SuwayomiSource[]> {
    const c = await suwayomiClient();
    if (!c)
      throw new AppError("provider_unavailable", "Suwayomi is not enabled or not configured (settings → sources)");
    return c.sources(lang, signal);
  }

  return {
    dropFolder: drop,
    ensureDropFolderRow,
    suwayomiSources,

    /** Every Provider row (the drop folder always among them), by priority then name. */
    async list(): Promise<ProviderRow[]> {
      await ensureDropFolderRow();
      return rows.list();
    },

    async byId(providerId: number): Promise<ResolvedProvider> {
      const row = await rows.get(providerId);
      if (!row) throw new AppError("provider_not_found", `no provider ${providerId}`);
      return { row, provider: await instance(row) };
    },

    /** The SourceProvider of a Provider row id, or null when unavailable (what the pipeline calls). */
    async forProviderId(providerId: number): Promise<SourceProvider | null> {
      const row = await rows.get(providerId);
      return row ? instance(row) : null;
    },

    /**
     * The operator's choice of provider: "drop-folder", "suwayomi:<sourceId>" or a bare Suwayomi
     * source id. A Suwayomi source gets its row on first use, after Suwayomi confirms it exists.
     */
    async resolve(ref: string, signal?: AbortSignal): Promise<ResolvedProvider> {
      const name =
        ref === DROP_FOLDER_PROVIDER_NAME || ref.startsWith(SUWAYOMI_PREFIX)
          ? ref
          : /^\d{1,25}$/.test(ref)
            ? suwayomiProviderName(ref)
            : null;
      if (name === null)
        throw new AppError(
          "provider_not_found",
          `no provider ${JSON.stringify(ref.slice(0, 80))}: use "drop-folder" or a Suwayomi source id`,
        );
      if (name === DROP_FOLDER_PROVIDER_NAME) {
        const row = await ensureDropFolderRow();
        return { row, provider: await instance(row) };
      }
      const existing = await rows.byName(name);
      if (existing) return { row: existing, provider: await instance(existing) };
      const sourceId = name.slice(SUWAYOMI_PREFIX.length);
      const source = (await suwayomiSources(undefined, signal)).find((s) => s.id === sourceId);
      if (!source) throw new AppError("provider_not_found", `Suwayomi has no source ${sourceId}`);
      await stored.put(SUWAYOMI_SOURCES_KEY, {
        ...(await knownSources()),
        [source.id]: { name: source.name, lang: source.lang },
      });
      const conn = await settings.suwayomiConnection();
      const row = await rows.ensure(name, { kind: "suwayomi", baseUrl: conn?.baseUrl ?? null });
      return { row, provider: await instance(row) };
    },

    /** Display name and language of a Provider row ("MangaDex (en)", "Drop folder"). */
    async describe(row: ProviderRow): Promise<{ displayName: string; language: string | null }> {
      if (row.kind === "drop_folder") return { displayName: "Drop folder", language: null };
      const meta = (await knownSources())[row.name.slice(SUWAYOMI_PREFIX.length)];
      return meta
        ? { displayName: `${meta.name} (${meta.lang})`, language: meta.lang }
        : { displayName: row.name, language: null };
    },

    async setPriority(providerId: number, priority: number): Promise<ProviderRow> {
      const row = await rows.setPriority(providerId, priority);
      if (!row) throw new AppError("provider_not_found", `no provider ${providerId}`);
      return row;
    },
  };
}

export type ProviderRegistry = ReturnType<typeof providerRegistry>;
