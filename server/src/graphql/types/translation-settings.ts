/** GraphQL of the global translation settings: the same service as REST (GET/PUT /api/settings/translation). */
import type { TranslationSettingsView } from "../../services/translation/translation-settings.ts";
import { builder } from "../builder.ts";

const EngineEnum = builder.enumType("TranslationEngine", {
  values: {
    EXTERNAL: { value: "external", description: "A processor URL is set: jobs go to the external processor." },
    LOCAL: { value: "local", description: "No processor URL: local OCR and lettering." },
  } as const,
});

const AiSettingsRef = builder.objectRef<TranslationSettingsView["ai"]>("TranslationAiSettings").implement({
  fields: (t) => ({
    baseUrl: t.string({
      description: "OpenAI-compatible base URL including /v1 (empty: not set).",
      resolve: (a) => a.base_url,
    }),
    model: t.exposeString("model"),
    apiKey: t.string({
      description: 'Masked: "****" plus at most the last 4 characters; empty when not set. Never the key.',
      resolve: (a) => a.api_key,
    }),
    apiKeySet: t.boolean({ resolve: (a) => a.api_key_set }),
  }),
});

const ProcessorSettingsRef = builder
  .objectRef<TranslationSettingsView["processor"]>("TranslationProcessorSettings")
  .implement({
    fields: (t) => ({
      url: t.string({ description: "External processor URL; empty selects local processing.", resolve: (p) => p.url }),
      token: t.string({ description: "Masked like apiKey; never the token.", resolve: (p) => p.token }),
      tokenSet: t.boolean({ resolve: (p) => p.token_set }),
    }),
  });

const TranslationSettingsRef = builder.objectRef<TranslationSettingsView>("TranslationSettings").implement({
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled", { description: "The global fallback toggle (off by default)." }),
    sourceLanguages: t.stringList({
      description: 'Ordered source languages; "original" resolves from the series.',
      resolve: (v) => v.source_languages,
    }),
    ai: t.field({ type: AiSettingsRef, resolve: (v) => v.ai }),
    processor: t.field({ type: ProcessorSettingsRef, resolve: (v) => v.processor }),
    engine: t.field({ type: EngineEnum, resolve: (v) => v.engine }),
  }),
});

const AiSettingsInput = builder.inputType("TranslationAiSettingsInput", {
  fields: (t) => ({
    baseUrl: t.string(),
    model: t.string(),
    apiKey: t.string({ description: "A string sets it, null or empty clears it, absent or a masked value keeps it." }),
  }),
});

const ProcessorSettingsInput = builder.inputType("TranslationProcessorSettingsInput", {
  fields: (t) => ({
    url: t.string({ description: "Empty or null returns to local processing." }),
    token: t.string({ description: "A string sets it, null or empty clears it, absent or a masked value keeps it." }),
  }),
});

const TranslationSettingsInput = builder.inputType("TranslationSettingsInput", {
  fields: (t) => ({
    enabled: t.boolean(),
    sourceLanguages: t.stringList(),
    ai: t.field({ type: AiSettingsInput }),
    processor: t.field({ type: ProcessorSettingsInput }),
  }),
});

builder.queryField("translationSettings", (t) =>
  t.field({ type: TranslationSettingsRef, resolve: (_r, _a, { services }) => services.translationSettings.get() }),
);

builder.mutationField("updateTranslationSettings", (t) =>
  t.field({
    type: TranslationSettingsRef,
    args: { input: t.arg({ type: TranslationSettingsInput, required: true }) },
    resolve: (_r, { input }, { services }) =>
      services.translationSettings.update({
        enabled: input.enabled ?? undefined,
        sourceLanguages: input.sourceLanguages ?? undefined,
        ai: input.ai,
        processor: input.processor,
      }),
  }),
);
