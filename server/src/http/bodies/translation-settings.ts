/** REST body of the translation settings (snake_case JSON) parsed into the settings service's typed input. */
import {
  languages,
  secretInput,
  type TranslationSettingsInput,
} from "../../services/translation/translation-settings.ts";
import { asObject, invalidField, optionalHttpUrl } from "../../services/input.ts";

/** A base URL: an http(s) URL, or null / "" to clear it. */
const url = (v: unknown, field: string): string | null => optionalHttpUrl(v, field);

/** PUT /api/settings/translation: `{ enabled?, source_languages?, ai?: { base_url?, model?, api_key? }, processor?: { url?, token? } }` */
export function translationSettingsBody(body: unknown): TranslationSettingsInput {
  const b = asObject(body);
  const input: TranslationSettingsInput = {};
  if (b.enabled !== undefined)
    input.enabled = typeof b.enabled === "boolean" ? b.enabled : invalidField("enabled", "must be true or false");
  if (b.source_languages !== undefined) input.sourceLanguages = languages(b.source_languages);
  if (b.ai !== undefined && b.ai !== null) {
    const o = asObject(b.ai, "ai");
    const ai: NonNullable<TranslationSettingsInput["ai"]> = {};
    if (o.base_url !== undefined) ai.baseUrl = url(o.base_url, "ai.base_url");
    if (o.model !== undefined) {
      if (o.model !== null && typeof o.model !== "string")
        invalidField("ai.model", "must be a string of at most 200 characters");
      ai.model = o.model as string | null;
    }
    if (o.api_key !== undefined)
      ai.apiKey = typeof o.api_key === "string" ? o.api_key : secretInput(o.api_key, "ai.api_key");
    input.ai = ai;
  }
  if (b.processor !== undefined && b.processor !== null) {
    const o = asObject(b.processor, "processor");
    const processor: NonNullable<TranslationSettingsInput["processor"]> = {};
    if (o.url !== undefined) processor.url = url(o.url, "processor.url");
    if (o.token !== undefined)
      processor.token = typeof o.token === "string" ? o.token : secretInput(o.token, "processor.token");
    input.processor = processor;
  }
  return input;
}
