/**
 * What the worker needs from the translation settings: the global toggle, the processor (URL and
 * token) and the AI provider (base URL, model, key). Read fresh on every cycle so a toggle or a
 * cleared URL takes effect at once. The keys live in the secrets file only.
 */
import type { AppContext } from "../context.ts";
import { getSetting } from "../acquisition/source-settings.ts";
import { AI_KEY_SECRET, PROCESSOR_TOKEN_SECRET, TRANSLATION_SETTING_KEY } from "./translation-settings.ts";

// The names belong to the settings service (one place); re-exported for the worker's callers.
export { AI_KEY_SECRET, PROCESSOR_TOKEN_SECRET, TRANSLATION_SETTING_KEY };

export interface WorkerSettings {
  enabled: boolean;
  /** Null: no processor URL (local processing; external jobs wait, a pending DELETE too). */
  processor: { url: string; token: string | null } | null;
  ai: { baseUrl: string; model: string; apiKey: string } | null;
}

interface StoredTranslationSettings {
  enabled?: boolean;
  ai?: { base_url?: string | null; baseUrl?: string | null; model?: string | null } | null;
  processor?: { url?: string | null } | null;
}

export async function readWorkerSettings(ctx: Pick<AppContext, "db" | "secrets">): Promise<WorkerSettings> {
  await ctx.secrets.refresh();
  const s = await getSetting<StoredTranslationSettings>(ctx, TRANSLATION_SETTING_KEY, {});
  const url = s.processor?.url?.trim() ?? "";
  const baseUrl = (s.ai?.base_url ?? s.ai?.baseUrl ?? "").trim();
  const model = (s.ai?.model ?? "").trim();
  const apiKey = ctx.secrets.getIntegrationSecret(AI_KEY_SECRET);
  return {
    enabled: s.enabled === true,
    processor: url ? { url, token: ctx.secrets.getIntegrationSecret(PROCESSOR_TOKEN_SECRET) } : null,
    ai: baseUrl && model && apiKey ? { baseUrl, model, apiKey } : null,
  };
}
