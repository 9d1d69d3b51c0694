/**
 * Settings of the indexer/torrent channel (off by default). Plain values live in the `setting` row
 * "indexer" (JSON); the Prowlarr API key and the qBittorrent password live only in the private
 * secrets file and are answered masked (`"••••"` plus a `…_set` flag), never in clear.
 *
 * Input: IndexerSettingsInput (REST's snake_case body is parsed into it in http/bodies/indexer.ts).
 * A secret field: a string sets it, null clears it, absent or the mask itself keeps it (a form
 * sends back what it read).
 */
import path from "node:path";
import { settingsRepo } from "../../repositories/settings-repo.ts";
import type { AppContext } from "../context.ts";
import { invalidField, optionalHttpUrl } from "../input.ts";

export const SETTING_KEY = "indexer";
export const SECRET_PROWLARR_KEY = "prowlarr.apiKey";
export const SECRET_QBT_PASSWORD = "qbittorrent.password";
export const MASK = "••••";

export const RETENTIONS = ["keep_seeding", "remove_after_import", "remove_when_seeded"] as const;
export type Retention = (typeof RETENTIONS)[number];

export interface MountMapping {
  /** The folder as the torrent client sees it (absolute, POSIX). */
  clientPath: string;
  /** The same folder as this service sees it (absolute). */
  localPath: string;
}

export interface StoredIndexerSettings {
  prowlarr: { enabled: boolean; url: string | null };
  qbittorrent: {
    enabled: boolean;
    url: string | null;
    username: string | null;
    category: string;
    tag: string | null;
    savePath: string | null;
    mount: MountMapping | null;
    retention: Retention;
  };
}

/** What the service works with: the stored values and the secrets in clear (never answered). */
export interface IndexerConfig extends StoredIndexerSettings {
  prowlarrApiKey: string | null;
  qbittorrentPassword: string | null;
}

/** What the API answers. */
export interface IndexerSettingsView {
  prowlarr: StoredIndexerSettings["prowlarr"] & { apiKey: string | null; apiKeySet: boolean };
  qbittorrent: StoredIndexerSettings["qbittorrent"] & { password: string | null; passwordSet: boolean };
  /** Both enabled and configured: the Wanted pass uses the channel. */
  active: boolean;
}

export const DEFAULT_SETTINGS: StoredIndexerSettings = {
  prowlarr: { enabled: false, url: null },
  qbittorrent: {
    enabled: false,
    url: null,
    username: null,
    category: "manga-library",
    tag: "manga-library",
    savePath: null,
    mount: null,
    retention: "keep_seeding",
  },
};

/** Prowlarr's connection: absent fields stay; the API key is set by a value, cleared by null, kept by the mask. */
export interface ProwlarrSettingsInput {
  enabled?: boolean | null;
  url?: string | null;
  apiKey?: string | null;
}

/** qBittorrent's connection and how its torrents are kept; the password like Prowlarr's key. */
export interface QbittorrentSettingsInput {
  enabled?: boolean | null;
  url?: string | null;
  username?: string | null;
  password?: string | null;
  category?: string | null;
  tag?: string | null;
  savePath?: string | null;
  /** Where the client's download folder appears on this machine (null: the same path). */
  mount?: { clientPath: string; localPath: string } | null;
  retention?: string | null;
}

/** A partial update: absent parts and fields are left as they are. */
export interface IndexerSettingsInput {
  prowlarr?: ProwlarrSettingsInput | null;
  qbittorrent?: QbittorrentSettingsInput | null;
}

const invalid = invalidField;
const httpUrl = optionalHttpUrl;

export function text(v: unknown, field: string, max = 200): string | null {
  if (v === null || v === "") return null;
  // eslint-disable-next-line no-control-regex -- control characters never belong in these values
  if (typeof v !== "string" || v.length > max || /[\u0000-\u001f]/.test(v))
    return invalid(field, `must be a string of at most ${max} characters`);
  return v;
}

export function absolute(v: unknown, field: string, posix: boolean): string {
  const t = text(v, field, 1000);
  if (t === null || !(posix ? path.posix.isAbsolute(t) : path.isAbsolute(t)))
    return invalid(field, "must be an absolute path");
  if (t.split(/[\\/]/).includes("..")) return invalid(field, "must not contain ..");
  return posix ? path.posix.normalize(t).replace(/(.)\/$/, "$1") : path.resolve(t);
}

export function bool(v: unknown, field: string): boolean {
  if (typeof v !== "boolean") return invalid(field, "must be true or false");
  return v;
}

export function secret(v: unknown, field: string): string | null | undefined {
  if (v === undefined || v === MASK) return undefined;
  if (v === null || v === "") return null;
  if (typeof v !== "string" || v.length > 500) return invalid(field, "must be a string");
  return v;
}

function parseStored(raw: string | undefined): StoredIndexerSettings {
  if (!raw) return DEFAULT_SETTINGS;
  const v = JSON.parse(raw) as Partial<StoredIndexerSettings>;
  return {
    prowlarr: { ...DEFAULT_SETTINGS.prowlarr, ...v.prowlarr },
    qbittorrent: { ...DEFAULT_SETTINGS.qbittorrent, ...v.qbittorrent },
  };
}

/** Prowlarr is enabled with its URL and API key. */
export function prowlarrReady(c: IndexerConfig): boolean {
  return c.prowlarr.enabled && c.prowlarr.url !== null && c.prowlarrApiKey !== null;
}

/** qBittorrent is enabled with its URL, user name and password. */
export function qbittorrentReady(c: IndexerConfig): boolean {
  const q = c.qbittorrent;
  return q.enabled && q.url !== null && q.username !== null && c.qbittorrentPassword !== null;
}

/** The channel is in use: both ready, and the client's download folder is mapped to this machine. */
export function isActive(c: IndexerConfig): boolean {
  return prowlarrReady(c) && qbittorrentReady(c) && c.qbittorrent.mount !== null;
}

export function indexerSettingsStore(ctx: AppContext) {
  async function load(): Promise<IndexerConfig> {
    // The secrets may have been changed through another instance a moment ago (one stat).
    await ctx.secrets.refresh();
    return {
      ...parseStored(await settingsRepo(ctx.db).text(SETTING_KEY)),
      prowlarrApiKey: ctx.secrets.getIntegrationSecret(SECRET_PROWLARR_KEY),
      qbittorrentPassword: ctx.secrets.getIntegrationSecret(SECRET_QBT_PASSWORD),
    };
  }

  function view(c: IndexerConfig): IndexerSettingsView {
    return {
      prowlarr: {
        ...c.prowlarr,
        apiKey: c.prowlarrApiKey === null ? null : MASK,
        apiKeySet: c.prowlarrApiKey !== null,
      },
      qbittorrent: {
        ...c.qbittorrent,
        password: c.qbittorrentPassword === null ? null : MASK,
        passwordSet: c.qbittorrentPassword !== null,
      },
      active: isActive(c),
    };
  }

  return {
    load,
    view,
    /** Applies a partial update, checked whole before anything is written. */
    async update(input: IndexerSettingsInput): Promise<IndexerSettingsView> {
      const current = await load();
      const next: StoredIndexerSettings = {
        prowlarr: { ...current.prowlarr },
        qbittorrent: { ...current.qbittorrent },
      };
      let apiKey: string | null | undefined;
      let password: string | null | undefined;
      const p = input.prowlarr;
      if (p !== undefined && p !== null) {
        if (p.enabled !== undefined) next.prowlarr.enabled = bool(p.enabled, "prowlarr.enabled");
        if (p.url !== undefined) next.prowlarr.url = httpUrl(p.url, "prowlarr.url");
        apiKey = secret(p.apiKey, "prowlarr.api_key");
      }
      const q = input.qbittorrent;
      if (q !== undefined && q !== null) {
        const n = next.qbittorrent;
        if (q.enabled !== undefined) n.enabled = bool(q.enabled, "qbittorrent.enabled");
        if (q.url !== undefined) n.url = httpUrl(q.url, "qbittorrent.url");
        if (q.username !== undefined) n.username = text(q.username, "qbittorrent.username");
        if (q.category !== undefined) {
          const c = text(q.category, "qbittorrent.category", 100);
          if (c === null || /[\\/]/.test(c))
            return invalid("qbittorrent.category", "must be a non-empty name without slashes");
          n.category = c;
        }
        if (q.tag !== undefined) {
          const t = text(q.tag, "qbittorrent.tag", 100);
          if (t !== null && t.includes(",")) return invalid("qbittorrent.tag", "must be one tag (no comma)");
          n.tag = t;
        }
        if (q.savePath !== undefined)
          n.savePath =
            q.savePath === null || q.savePath === "" ? null : absolute(q.savePath, "qbittorrent.save_path", true);
        if (q.mount !== undefined) {
          if (q.mount === null) n.mount = null;
          else {
            n.mount = {
              clientPath: absolute(q.mount.clientPath, "qbittorrent.mount.client_path", true),
              localPath: absolute(q.mount.localPath, "qbittorrent.mount.local_path", false),
            };
          }
        }
        if (q.retention !== undefined) {
          if (typeof q.retention !== "string" || !(RETENTIONS as readonly string[]).includes(q.retention))
            return invalid("qbittorrent.retention", `must be one of ${RETENTIONS.join(", ")}`);
          n.retention = q.retention as Retention;
        }
        password = secret(q.password, "qbittorrent.password");
      }
      const value = JSON.stringify(next);
      await settingsRepo(ctx.db).putText(SETTING_KEY, value);
      if (apiKey !== undefined) await ctx.secrets.setIntegrationSecret(SECRET_PROWLARR_KEY, apiKey);
      if (password !== undefined) await ctx.secrets.setIntegrationSecret(SECRET_QBT_PASSWORD, password);
      return view(await load());
    },
  };
}

export type IndexerSettingsStore = ReturnType<typeof indexerSettingsStore>;
