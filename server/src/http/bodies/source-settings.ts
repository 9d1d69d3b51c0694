/** REST bodies of the source settings (snake_case JSON) parsed into the settings service's typed inputs. */
import { AppError } from "../../errors.ts";
import {
  optionalText,
  SUWAYOMI_AUTH_MODES,
  type SuwayomiAuthMode,
  type DownloadLanguagesInput,
  type SourceSettingsInput,
  type SuwayomiSettingsInput,
} from "../../services/acquisition/source-settings.ts";
import { asObject, checkLanguage, invalidField, optionalHttpUrl } from "../../services/input.ts";

/** PUT /api/settings/sources: `{ suwayomi?: { enabled?, url?, auth?, username?, password? } }` */
export function sourceSettingsBody(body: unknown): SourceSettingsInput {
  const b = asObject(body);
  if (b.suwayomi === undefined) return {};
  const o = asObject(b.suwayomi, "suwayomi");
  const s: SuwayomiSettingsInput = {};
  if (o.enabled !== undefined)
    s.enabled = typeof o.enabled === "boolean" ? o.enabled : invalidField("suwayomi.enabled", "must be true or false");
  if (o.url !== undefined) s.url = optionalHttpUrl(o.url, "suwayomi.url");
  if (o.auth !== undefined)
    s.auth = (SUWAYOMI_AUTH_MODES as readonly unknown[]).includes(o.auth)
      ? (o.auth as SuwayomiAuthMode)
      : invalidField("suwayomi.auth", `must be one of ${SUWAYOMI_AUTH_MODES.join(", ")}`);
  const username = optionalText(o.username, "suwayomi.username");
  if (username !== undefined) s.username = username;
  if (o.password !== undefined) {
    if (o.password !== null && typeof o.password !== "string")
      invalidField("suwayomi.password", "must be a non-empty string or null");
    s.password = o.password as string | null;
  }
  return { suwayomi: s };
}

/** PUT /api/settings/downloads: `{ languages }` */
export function downloadLanguagesBody(body: unknown): DownloadLanguagesInput {
  const o = asObject(body);
  if (!Array.isArray(o.languages) || o.languages.length > 20)
    throw new AppError("invalid_field", "languages must be a list of at most 20 language codes", {
      field: "languages",
    });
  return { languages: o.languages.map((x, i) => checkLanguage(x, `languages[${i}]`)!) };
}
