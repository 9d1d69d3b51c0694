/**
 * Settings of the chapter sources: Suwayomi-Server (URL, auth mode, user name in the `setting` row
 * "sources"; the password only in the private secrets file as "suwayomi.password", answered masked)
 * and the drop folder (its path comes from DROP_FOLDER and is only shown).
 *
 * Also the generic helpers every part uses for its own settings keys: getSetting / putSetting.
 *
 * Input: SourceSettingsInput, `{ suwayomi: { enabled?, url?, auth?, username?, password? } }`.
 * A password string sets it, null clears it, absent or the mask itself keeps it (a form sends back
 * what it read). Every mode but none needs a user name and a password.
 */
import type { SuwayomiConnection } from "../../providers/suwayomi-client.ts";
import { settingsRepo } from "../../repositories/settings-repo.ts";
import type { AppContext } from "../context.ts";
import { AppError } from "../../errors.ts";
import { checkLanguage, invalidField, optionalHttpUrl } from "../input.ts";

export const SOURCES_SETTING_KEY = "sources";
export const SUWAYOMI_PASSWORD_SECRET = "suwayomi.password";
export const SECRET_MASK = "••••";

/** Reads a settings row (JSON) for any part of the service; `fallback` when unset. */
export function getSetting<T>(ctx: Pick<AppContext, "db">, key: string, fallback: T): Promise<T> {
  return settingsRepo(ctx.db).get(key, fallback);
}

/** Writes a settings row (JSON). Never for secrets: those go to ctx.secrets.setIntegrationSecret. */
export function putSetting(ctx: Pick<AppContext, "db">, key: string, value: unknown): Promise<void> {
  return settingsRepo(ctx.db).put(key, value);
}

export const SUWAYOMI_AUTH_MODES = ["none", "basic", "simple_login", "ui_login"] as const;
export type SuwayomiAuthMode = (typeof SUWAYOMI_AUTH_MODES)[number];

export interface StoredSourceSettings {
  suwayomi: { enabled: boolean; url: string | null; auth: SuwayomiAuthMode; username: string | null };
}

export const DEFAULT_SOURCE_SETTINGS: StoredSourceSettings = {
  suwayomi: { enabled: false, url: null, auth: "none", username: null },
};

export interface SourceSettingsView {
  suwayomi: StoredSourceSettings["suwayomi"] & {
    /** The mask when a password is stored, else null; never the password. */
    password: string | null;
    passwordSet: boolean;
    /** Enabled with a URL (and complete credentials for basic auth): the registry offers its sources. */
    configured: boolean;
  };
  dropFolder: { path: string };
}

const invalid = invalidField;
const httpUrl = optionalHttpUrl;

/** Optional text of at most 200 characters; null or "" clears it. */
export function optionalText(v: unknown, field: string): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === "") return null;
  if (typeof v !== "string" || v.length > 200) return invalid(field, "must be a string of at most 200 characters");
  return v;
}

function normalise(stored: StoredSourceSettings): StoredSourceSettings {
  return { suwayomi: { ...DEFAULT_SOURCE_SETTINGS.suwayomi, ...stored.suwayomi } };
}

/** The setting of the languages downloads may come in besides each series' own (a JSON array of codes). */
export const DOWNLOAD_LANGUAGES_KEY = "downloads.languages";

/** The languages downloads may come in besides each series' own. */
export interface DownloadLanguagesInput {
  /** Language codes ("en", "pt-BR"), at most 20; duplicates are dropped, order kept. */
  languages: readonly string[];
}

/** Suwayomi's connection: absent fields stay; the password is set by a string, cleared by null, kept by the mask. */
export interface SuwayomiSettingsInput {
  enabled?: boolean | null;
  url?: string | null;
  auth?: SuwayomiAuthMode | null;
  username?: string | null;
  password?: string | null;
}

export interface SourceSettingsInput {
  suwayomi?: SuwayomiSettingsInput | null;
}

function downloadLanguagesOf(input: DownloadLanguagesInput): string[] {
  if (input.languages.length > 20)
    throw new AppError("invalid_field", "languages must be a list of at most 20 language codes", {
      field: "languages",
    });
  const list = input.languages.map((x, i) => checkLanguage(x, `languages[${i}]`)!);
  return [...new Set(list)];
}

export function sourceSettingsService(ctx: AppContext) {
  const read = async () => {
    // The password may have been changed through another instance a moment ago (one stat).
    await ctx.secrets.refresh();
    return normalise(await getSetting(ctx, SOURCES_SETTING_KEY, DEFAULT_SOURCE_SETTINGS));
  };
  const password = () => ctx.secrets.getIntegrationSecret(SUWAYOMI_PASSWORD_SECRET);

  const configured = (s: StoredSourceSettings["suwayomi"], pw: string | null) =>
    s.enabled && s.url !== null && (s.auth === "none" || (s.username !== null && pw !== null));

  const view = (s: StoredSourceSettings): SourceSettingsView => {
    const pw = password();
    return {
      suwayomi: {
        ...s.suwayomi,
        password: pw === null ? null : SECRET_MASK,
        passwordSet: pw !== null,
        configured: configured(s.suwayomi, pw),
      },
      dropFolder: { path: ctx.config.dropFolder },
    };
  };

  return {
    async get(): Promise<SourceSettingsView> {
      return view(await read());
    },

    /**
     * The languages chapters may be downloaded in besides each series' own: their offers become
     * slots and are planned (the series language first, then these in order). Applied by every
     * refresh and Wanted pass from the next one on.
     */
    async downloadLanguages(): Promise<{ languages: string[] }> {
      const v = await getSetting<unknown>(ctx, DOWNLOAD_LANGUAGES_KEY, []);
      return { languages: Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [] };
    },
    async updateDownloadLanguages(input: DownloadLanguagesInput): Promise<{ languages: string[] }> {
      const languages = downloadLanguagesOf(input);
      await putSetting(ctx, DOWNLOAD_LANGUAGES_KEY, languages);
      return { languages };
    },

    async update(input: SourceSettingsInput): Promise<SourceSettingsView> {
      const current = await read();
      const next = normalise(current);
      let newPassword: string | null | undefined;
      const o = input.suwayomi;
      if (o !== undefined && o !== null) {
        if (o.enabled !== undefined)
          next.suwayomi.enabled =
            typeof o.enabled === "boolean" ? o.enabled : invalid("suwayomi.enabled", "must be true or false");
        if (o.url !== undefined) next.suwayomi.url = httpUrl(o.url, "suwayomi.url");
        if (o.auth !== undefined)
          next.suwayomi.auth = (SUWAYOMI_AUTH_MODES as readonly unknown[]).includes(o.auth)
            ? (o.auth as SuwayomiAuthMode)
            : invalid("suwayomi.auth", `must be one of ${SUWAYOMI_AUTH_MODES.join(", ")}`);
        const username = optionalText(o.username, "suwayomi.username");
        if (username !== undefined) next.suwayomi.username = username;
        if (o.password !== undefined && o.password !== SECRET_MASK) {
          if (
            o.password !== null &&
            (typeof o.password !== "string" || o.password.length === 0 || o.password.length > 500)
          )
            invalid("suwayomi.password", "must be a non-empty string or null");
          newPassword = o.password;
        }
      }
      const pw = newPassword === undefined ? password() : newPassword;
      if (next.suwayomi.enabled && next.suwayomi.url === null)
        invalid("suwayomi.url", "is required to enable Suwayomi");
      if (next.suwayomi.enabled && next.suwayomi.auth !== "none" && (next.suwayomi.username === null || pw === null))
        invalid("suwayomi.auth", `${next.suwayomi.auth} needs a username and a password`);
      if (newPassword !== undefined) await ctx.secrets.setIntegrationSecret(SUWAYOMI_PASSWORD_SECRET, newPassword);
      await putSetting(ctx, SOURCES_SETTING_KEY, next);
      ctx.log(
        `source settings updated (suwayomi ${next.suwayomi.enabled ? "enabled" : "disabled"}, auth ${next.suwayomi.auth})`,
      );
      return view(next);
    },

    /** The connection the registry builds Suwayomi providers from; null when not configured. */
    async suwayomiConnection(): Promise<SuwayomiConnection | null> {
      const s = (await read()).suwayomi;
      const pw = password();
      if (!configured(s, pw) || s.url === null) return null;
      return {
        baseUrl: s.url,
        auth: s.auth === "none" ? { kind: "none" } : { kind: s.auth, username: s.username ?? "", password: pw ?? "" },
      };
    },
  };
}

export type SourceSettingsService = ReturnType<typeof sourceSettingsService>;
