/** REST of the global translation settings: translation to the service, nothing else. */
import type { Hono } from "hono";
import type { TranslationSettingsView } from "../services/translation/translation-settings.ts";
import type { Services } from "../services/index.ts";
import { translationSettingsBody } from "./bodies/translation-settings.ts";
import { jsonBody } from "./request.ts";

/** The settings payload (docs/api.md, "Translation settings"); keys and tokens arrive masked from the service. */
export function restTranslationSettings(v: TranslationSettingsView) {
  return {
    enabled: v.enabled,
    source_languages: v.source_languages,
    ai: { base_url: v.ai.base_url, model: v.ai.model, api_key: v.ai.api_key, api_key_set: v.ai.api_key_set },
    processor: { url: v.processor.url, token: v.processor.token, token_set: v.processor.token_set },
    engine: v.engine,
  };
}

export function translationSettingsRoutes(app: Hono, services: Services): void {
  app.get("/api/settings/translation", async (c) =>
    c.json(restTranslationSettings(await services.translationSettings.get())),
  );
  app.put("/api/settings/translation", async (c) =>
    c.json(
      restTranslationSettings(await services.translationSettings.update(translationSettingsBody(await jsonBody(c)))),
    ),
  );
}
