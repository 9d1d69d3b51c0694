/**
 * Global translation settings (docs/api.md, "Translation settings"):
 * the toggle, the ordered source languages, the AI provider (base URL, model, key) and the external
 * processor (URL, token). A non-empty processor URL selects the external engine; clearing it returns
 * to local processing.
 *
 * Storage: the setting row "translation" holds `{ enabled, source_languages, ai: { base_url, model },
 * processor: { url } }` (the shape translation-worker-settings.ts reads); the AI key and the processor
 * token live only in the 0600 secrets file ("translation.ai_key", "translation.processor_token").
 * Every read masks them: "****" plus the last 4 characters (only for secrets of 12+ characters, so a
 * short secret is not half revealed). A PUT sending a masked value back keeps the secret; null or ""
 * clears it; an absent field keeps it. The service's own API key or login password is refused
 * (secret_is_service_login): the service login must never be entered there.
 *
 * Per series settings (translation_fallback_enabled, translation_source_languages, language) are
 * Series fields set through PATCH /api/manga/{id} (series-service.ts).
 */
import { AppError } from "../../errors.ts";
import type { AppContext } from "../context.ts";
import { invalidField, optionalHttpUrl } from "../input.ts";
import { getSetting, putSetting } from "../acquisition/source-settings.ts";

export const TRANSLATION_SETTING_KEY = "translation";
export const AI_KEY_SECRET = "translation.ai_key";
export const PROCESSOR_TOKEN_SECRET = "translation.processor_token";
export const TRANSLATION_MASK = "****";
export const MAX_SOURCE_LANGUAGES = 20;

/** "original", or a language code as the series accepts it (input.ts): "en", "pt-BR", "zh-Hant". */
const LANGUAGE_RE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

export interface StoredTranslationSettings {
  enabled: boolean;
  source_languages: string[];
  ai: { base_url: string; model: string };
  processor: { url: string };
}

export const DEFAULT_TRANSLATION_SETTINGS: StoredTranslationSettings = {
  enabled: false,
  source_languages: [],
  ai: { base_url: "", model: "" },
  processor: { url: "" },
};

export type TranslationEngine = "external" | "local";

/** The masked view (REST answers it in this snake_case shape; GraphQL maps it to camelCase). */
export interface TranslationSettingsView {
  enabled: boolean;
  source_languages: string[];
  ai: { base_url: string; model: string; api_key: string; api_key_set: boolean };
  processor: { url: string; token: string; token_set: boolean };
  engine: TranslationEngine;
}

/** With the secrets: for the worker and the processor client only, never for an answer or a log. */
export interface ResolvedTranslationSettings extends StoredTranslationSettings {
  apiKey: string | null;
  processorToken: string | null;
  engine: TranslationEngine;
}

/** The engine a settings value selects: a non-empty processor URL → external, else local. */
export function engineOf(s: Pick<StoredTranslationSettings, "processor">): TranslationEngine {
  return s.processor.url.trim() !== "" ? "external" : "local";
}

/** "****" plus at most the last 4 characters; "" when no secret is stored. */
export function maskSecret(value: string | null): string {
  if (value === null || value === "") return "";
  return value.length >= 12 ? `${TRANSLATION_MASK}${value.slice(-4)}` : TRANSLATION_MASK;
}

const invalid = invalidField;

/**
 * A change of the translation settings: absent fields stay; secrets are set by a value, cleared
 * by null or "", kept by the mask; a base URL of null or "" is cleared.
 */
export interface TranslationSettingsInput {
  enabled?: boolean;
  /** "original" or language codes, in order. */
  sourceLanguages?: readonly string[];
  ai?: { baseUrl?: string | null; model?: string | null; apiKey?: string | null } | null;
  processor?: { url?: string | null; token?: string | null } | null;
}

/** Settings keep "" for "not set". */
const httpUrl = (v: unknown, field: string): string => optionalHttpUrl(v, field) ?? "";

export function languages(v: unknown): string[] {
  if (!Array.isArray(v)) return invalid("source_languages", 'must be an array of language codes or "original"');
  if (v.length > MAX_SOURCE_LANGUAGES)
    return invalid("source_languages", `holds at most ${MAX_SOURCE_LANGUAGES} codes`);
  const out: string[] = [];
  for (const raw of v) {
    const code = typeof raw === "string" ? raw.trim() : "";
    if (code !== "original" && !LANGUAGE_RE.test(code))
      invalid("source_languages", `holds an invalid language code: ${JSON.stringify(String(raw).slice(0, 20))}`);
    if (!out.includes(code)) out.push(code);
  }
  return out;
}

/** A secret field of a PUT: undefined keeps, null clears, a string sets (a masked string keeps). */
export function secretInput(v: unknown, field: string): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === "") return null;
  if (typeof v !== "string" || v.length > 2000)
    return invalid(field, "must be a string of at most 2000 characters, or null");
  if (v.startsWith(TRANSLATION_MASK)) return undefined;
  return v;
}

function noWhiteSpace(v: string | null | undefined, field: string): void {
  if (typeof v === "string" && /\s/.test(v)) invalid(field, "must not contain white space");
}

function normalise(s: Partial<StoredTranslationSettings> | null | undefined): StoredTranslationSettings {
  return {
    enabled: s?.enabled === true,
    source_languages: Array.isArray(s?.source_languages) ? s.source_languages : [],
    ai: { base_url: s?.ai?.base_url ?? "", model: s?.ai?.model ?? "" },
    processor: { url: s?.processor?.url ?? "" },
  };
}

export type EnabledListener = (enabled: boolean) => void | Promise<void>;

export function translationSettingsService(ctx: AppContext) {
  const read = async () => {
    // The key and the token may have been changed through another instance a moment ago (one stat).
    await ctx.secrets.refresh();
    return normalise(await getSetting<Partial<StoredTranslationSettings> | null>(ctx, TRANSLATION_SETTING_KEY, null));
  };
  const secret = (name: string) => ctx.secrets.getIntegrationSecret(name);
  const enabledListeners: EnabledListener[] = [];

  const view = (s: StoredTranslationSettings): TranslationSettingsView => {
    const key = secret(AI_KEY_SECRET);
    const token = secret(PROCESSOR_TOKEN_SECRET);
    return {
      enabled: s.enabled,
      source_languages: [...s.source_languages],
      ai: { base_url: s.ai.base_url, model: s.ai.model, api_key: maskSecret(key), api_key_set: key !== null },
      processor: { url: s.processor.url, token: maskSecret(token), token_set: token !== null },
      engine: engineOf(s),
    };
  };

  /** The service login (API key or admin password) must never be stored as a translation secret. */
  const refuseServiceLogin = async (value: string | null | undefined, field: string) => {
    if (typeof value !== "string") return;
    if (value === ctx.secrets.apiKey || (await ctx.secrets.checkAdminPassword(value))) {
      throw new AppError(
        "secret_is_service_login",
        `${field} is this service's own API key or login password: enter the AI provider's key or the processor's token instead`,
        { field },
      );
    }
  };

  return {
    async get(): Promise<TranslationSettingsView> {
      return view(await read());
    },

    async update(input: TranslationSettingsInput): Promise<TranslationSettingsView> {
      const current = await read();
      const next = normalise(current);
      if (input.enabled !== undefined)
        next.enabled = typeof input.enabled === "boolean" ? input.enabled : invalid("enabled", "must be true or false");
      if (input.sourceLanguages !== undefined) next.source_languages = languages(input.sourceLanguages);
      let apiKey: string | null | undefined;
      let token: string | null | undefined;
      if (input.ai !== undefined && input.ai !== null) {
        const o = input.ai;
        if (o.baseUrl !== undefined) next.ai.base_url = httpUrl(o.baseUrl, "ai.base_url");
        if (o.model !== undefined) {
          if (o.model !== null && o.model.length > 200)
            invalid("ai.model", "must be a string of at most 200 characters");
          next.ai.model = (o.model ?? "").trim();
        }
        apiKey = secretInput(o.apiKey, "ai.api_key");
      }
      if (input.processor !== undefined && input.processor !== null) {
        const o = input.processor;
        if (o.url !== undefined) next.processor.url = httpUrl(o.url, "processor.url");
        token = secretInput(o.token, "processor.token");
      }
      await refuseServiceLogin(apiKey, "ai.api_key");
      await refuseServiceLogin(token, "processor.token");
      // After the login check, so a pasted login password gets the clear message.
      noWhiteSpace(apiKey, "ai.api_key");
      noWhiteSpace(token, "processor.token");
      const finalKey = apiKey === undefined ? secret(AI_KEY_SECRET) : apiKey;
      const finalToken = token === undefined ? secret(PROCESSOR_TOKEN_SECRET) : token;
      // The processor token is never the AI provider key (docs/rules.md, "External processor").
      if (finalKey !== null && finalKey === finalToken && (apiKey !== undefined || token !== undefined)) {
        invalid("processor.token", "must differ from the AI provider key");
      }
      if (apiKey !== undefined) await ctx.secrets.setIntegrationSecret(AI_KEY_SECRET, apiKey);
      if (token !== undefined) await ctx.secrets.setIntegrationSecret(PROCESSOR_TOKEN_SECRET, token);
      await putSetting(ctx, TRANSLATION_SETTING_KEY, next);
      ctx.log(
        `translation settings updated (fallback ${next.enabled ? "enabled" : "disabled"}, engine ${engineOf(next)})`,
      );
      if (next.enabled !== current.enabled) for (const l of enabledListeners) await l(next.enabled);
      return view(next);
    },

    /** The settings with their secrets, for the worker and the processor client. Never answer or log this. */
    async resolved(): Promise<ResolvedTranslationSettings> {
      const s = await read();
      return {
        ...s,
        apiKey: secret(AI_KEY_SECRET),
        processorToken: secret(PROCESSOR_TOKEN_SECRET),
        engine: engineOf(s),
      };
    },

    /** "external" when a processor URL is set, else "local" (the engine new jobs use). */
    async engine(): Promise<TranslationEngine> {
      return engineOf(await read());
    },

    /**
     * Called after the global toggle changed (true = switched on). The jobs engineer may register the
     * pause/resume here; the worker also re-reads the toggle on every cycle, so this is a shortcut,
     * not the only path.
     */
    onEnabledChanged(listener: EnabledListener): void {
      enabledListeners.push(listener);
    },
  };
}

export type TranslationSettingsService = ReturnType<typeof translationSettingsService>;
