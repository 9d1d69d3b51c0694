/**
 * The chat translator of the local path: one page per request (split only when the page exceeds the
 * prompt bounds of chat-prompt.ts) to an OpenAI-compatible `POST {base}/chat/completions`.
 *
 * The key travels only in the Authorization header; it never appears in a URL, an error message or
 * a log line (provider error texts are redacted, since some echo the key they were given). The base
 * URL is not echoed in messages either (docs/rules.md, "External processor": never echoed, logged or stored).
 */
import { buildBatches, DEFAULT_LIMITS, parseNumberedAnswer, systemPrompt, type PromptLimits } from "./chat-prompt.ts";
import { LocalTranslationError, type AiSettings, type ChatTranslation, type ChatTranslator } from "./types.ts";

export interface ChatClientOptions {
  /** Per request, from sending to the end of the answer body. Default 120 s. */
  timeoutMs?: number;
  limits?: Partial<PromptLimits>;
  /**
   * Ask for a JSON answer (`response_format` json_schema: `{"translations": [{"index", "text"}]}`)
   * instead of numbered lines. Only for endpoints that support response schemas; default off.
   */
  jsonMode?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_ERROR_TEXT = 300;

/** `base` + `/chat/completions` without a doubled slash. */
export function completionsUrl(baseUrl: string): string {
  return `${baseUrl.trim().replace(/\/+$/, "")}/chat/completions`;
}

/** Removes the key (and its Bearer form) from a text shown to operators, then bounds its length. */
export function redact(text: string, apiKey: string): string {
  const cleaned = apiKey.length > 0 ? text.split(apiKey).join("[redacted]") : text;
  return cleaned.length > MAX_ERROR_TEXT ? `${cleaned.slice(0, MAX_ERROR_TEXT)}…` : cleaned;
}

/** The provider's own error text from an error body (`{error: {message}}`, `{message}`, or plain text). */
function providerMessage(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    if (typeof json.error === "string") return json.error;
    if (json.error && typeof json.error.message === "string") return json.error.message;
    if (typeof json.message === "string") return json.message;
    if (typeof json.detail === "string") return json.detail;
  } catch {
    // not JSON: the plain text is the message
  }
  return body.replace(/\s+/g, " ").trim();
}

interface CompletionBody {
  model?: unknown;
  choices?: { message?: { content?: unknown } }[];
}

/** The assistant content as text; reasoning fields (`reasoning_content`, `reasoning`) are ignored. */
function contentOf(json: CompletionBody): string | null {
  const content = json.choices?.[0]?.message?.content;
  if (typeof content === "string") return content;
  // Some providers answer a list of parts; only text parts are the answer.
  if (Array.isArray(content)) {
    return content
      .filter(
        (p): p is { type: string; text: string } =>
          typeof p === "object" &&
          p !== null &&
          (p as { type?: unknown }).type === "text" &&
          typeof (p as { text?: unknown }).text === "string",
      )
      .map((p) => p.text)
      .join("");
  }
  return null;
}

const JSON_SCHEMA = {
  name: "manga_translation",
  strict: true,
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["translations"],
    properties: {
      translations: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["index", "text"],
          properties: { index: { type: "integer" }, text: { type: "string" } },
        },
      },
    },
  },
};

/**
 * A JSON-mode answer back to numbered lines, so one index check serves both modes. The texts are
 * kept as the model wrote them (markers inside stay visible to the validation).
 */
function jsonAnswerToLines(content: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.trim());
  } catch {
    throw new LocalTranslationError("ai_answer_malformed", "The AI answer is not the JSON object that was asked for.");
  }
  const list = (parsed as { translations?: unknown }).translations;
  if (!Array.isArray(list))
    throw new LocalTranslationError("ai_answer_malformed", "The AI answer has no translations list.");
  return list
    .map((item: unknown) => {
      const { index, text } = (item ?? {}) as { index?: unknown; text?: unknown };
      if (typeof index !== "number" || !Number.isInteger(index) || typeof text !== "string") {
        throw new LocalTranslationError(
          "ai_answer_malformed",
          "The AI answer has a translation without an integer index and a text.",
        );
      }
      // A newline inside a text would look like a continuation line: keep it on one line.
      return `<|${index}|> ${text.replace(/\n/g, " ")}`;
    })
    .join("\n");
}

async function requestOnce(
  ai: AiSettings,
  messages: { role: "system" | "user"; content: string }[],
  options: Required<Pick<ChatClientOptions, "timeoutMs" | "jsonMode">>,
  signal: AbortSignal | undefined,
): Promise<{ content: string; model: string }> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const payload: Record<string, unknown> = { model: ai.model, messages, stream: false };
  if (options.jsonMode) payload.response_format = { type: "json_schema", json_schema: JSON_SCHEMA };
  const failure = (error: unknown): LocalTranslationError => {
    if (signal?.aborted) return new LocalTranslationError("interrupted", "The translation request was aborted.");
    if (timeout.aborted)
      return new LocalTranslationError(
        "ai_request_failed",
        `The AI provider did not answer within ${Math.round(options.timeoutMs / 1000)} s.`,
        true,
      );
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === "string" ? ` (${cause.code})` : "";
    return new LocalTranslationError("ai_request_failed", `The AI provider could not be reached${code}.`, true);
  };
  let status: number;
  let body: string;
  try {
    const response = await fetch(completionsUrl(ai.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${ai.apiKey}` },
      body: JSON.stringify(payload),
      signal: combined,
    });
    status = response.status;
    body = await response.text();
  } catch (error) {
    throw failure(error);
  }
  if (status < 200 || status > 299) {
    const transient = status === 429 || status === 408 || status >= 500;
    const text = redact(providerMessage(body), ai.apiKey);
    throw new LocalTranslationError(
      "ai_request_failed",
      `The AI provider refused the request: HTTP ${status}${text ? `: ${text}` : ""}`,
      transient,
    );
  }
  let json: CompletionBody;
  try {
    json = JSON.parse(body) as CompletionBody;
  } catch {
    throw new LocalTranslationError("ai_request_failed", "The AI provider answered something that is not JSON.");
  }
  const content = contentOf(json);
  if (content === null) throw new LocalTranslationError("ai_answer_malformed", "The AI answer has no message content.");
  return {
    content: options.jsonMode ? jsonAnswerToLines(content) : content,
    model: typeof json.model === "string" && json.model ? json.model : ai.model,
  };
}

/** A chat translator with its own timeout, prompt bounds and answer mode. */
export function createChatTranslator(options: ChatClientOptions = {}): ChatTranslator {
  const limits: PromptLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const settings = { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, jsonMode: options.jsonMode ?? false };
  return async (ai, request, signal): Promise<ChatTranslation> => {
    const translations: string[] = new Array<string>(request.texts.length).fill("");
    let model: string | undefined;
    const system = systemPrompt(request.sourceLanguage, request.targetLanguage);
    const jsonHint = settings.jsonMode
      ? '\nAnswer with a JSON object {"translations": [{"index": 1, "text": "…"}, …]}, one entry per numbered line.'
      : "";
    for (const batch of buildBatches(request.texts, limits)) {
      if (signal?.aborted) throw new LocalTranslationError("interrupted", "The translation request was aborted.");
      const answer = await requestOnce(
        ai,
        [
          { role: "system", content: system + jsonHint },
          { role: "user", content: batch.content },
        ],
        settings,
        signal,
      );
      model ??= answer.model;
      const texts = parseNumberedAnswer(answer.content, batch.positions.length);
      batch.positions.forEach((position, i) => {
        translations[position] = texts[i] ?? "";
      });
    }
    return { translations, model: model ?? ai.model };
  };
}

/** The default chat translator (120 s timeout, default bounds, numbered lines). */
export const translatePage: ChatTranslator = createChatTranslator();
