/**
 * An OpenAI-compatible chat server on 127.0.0.1: `POST /v1/chat/completions` answers a deterministic
 * "translation" of the last user message (`[<target>] <text>` upper-cased). It checks the bearer key
 * when one is configured and records every request, so tests can see where the key travelled.
 * Shapes from OpenAI's API reference ("Create chat completion"); `reasoning_content` is the extra
 * field DeepSeek's compatible API adds.
 *
 * When the user message is in the numbered-lines format of the local path (`<|1|> text` per line),
 * it answers in the same format, one line per index, each text through `translate` (default
 * `fakeTranslation`). `fault` (or `setFault` at runtime) injects the failures the client and the
 * worker validation must catch. Numbered answers carry a `reasoning_content` field full of markers
 * that a correct client ignores.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface ChatRequestRecord {
  method: string;
  url: string;
  authorization: string | null;
  model: string | null;
  content: string;
}

export type ChatFault =
  | "missing_index"
  | "extra_index"
  | "duplicate_index"
  | "leftover_marker"
  | "think_tags"
  | "echo"
  | "wrong_language"
  | "empty"
  | "source_script"
  | "http_500"
  | "http_401"
  | "http_429"
  | "garbage"
  | "hang";

export interface FakeChatOptions {
  apiKey?: string;
  target?: string;
  /** Translation of one numbered line (numbered-lines requests only). */
  translate?: (text: string, target: string) => string;
  fault?: ChatFault;
}

export interface FakeChat {
  /** Base URL including `/v1`, as the settings take it. */
  baseUrl: string;
  requests: ChatRequestRecord[];
  /** Requests left hanging (fault "hang") whose connection the client closed. */
  aborted(): number;
  /** Switches the injected fault for the following requests (undefined: none). */
  setFault(fault: ChatFault | undefined): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

/** The deterministic answer for one text; exported so tests can predict it. */
export function fakeTranslation(text: string, target = "en"): string {
  return `[${target}] ${text.toUpperCase()}`;
}

/** Language names of the service's system prompt → codes (the destinations the tests ask for). */
const PROMPT_LANGUAGES: Readonly<Record<string, string>> = {
  English: "en",
  Japanese: "ja",
  French: "fr",
  German: "de",
  Spanish: "es",
  Korean: "ko",
  Chinese: "zh",
};

/** Confidently another language than the target, long enough for the language identifier. */
const WRONG_LANGUAGE: Readonly<Record<string, string>> = {
  fr: "Ich weiß nicht, was du damit sagen willst, aber es ist mir auch egal.",
  default: "Je ne sais pas ce que tu veux dire, mais c'est vraiment très bizarre ici.",
};
/** Kana: the source's script (Japanese) instead of a translation. */
const SOURCE_SCRIPT = "これはほんやくではありません";

const LINE = /^[ \t]*<\|(\d+)\|>[ \t]?(.*)$/;

/** The numbered lines of a user message, or null when it is not in that format. */
function numberedLines(content: string): { index: number; text: string }[] | null {
  const lines = content
    .split("\n")
    .map((l) => LINE.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  return lines.length > 0 ? lines.map((m) => ({ index: Number(m[1]), text: m[2] ?? "" })) : null;
}

function numberedAnswer(
  lines: { index: number; text: string }[],
  target: string,
  fault: ChatFault | undefined,
  translate: (t: string, target: string) => string,
): string {
  const text = (source: string): string => {
    if (fault === "echo") return source;
    if (fault === "empty") return "";
    if (fault === "wrong_language") return WRONG_LANGUAGE[target] ?? WRONG_LANGUAGE.default ?? "";
    if (fault === "source_script") return SOURCE_SCRIPT;
    return translate(source, target);
  };
  let out = lines.map((l) => ({ index: l.index, text: text(l.text) }));
  if (fault === "missing_index") out = out.slice(0, -1);
  if (fault === "extra_index") out.push({ index: out.length + 1, text: translate("extra line", target) });
  if (fault === "duplicate_index" && out[0]) out.push({ ...out[0] });
  if (fault === "leftover_marker" && out[0]) out[0] = { ...out[0], text: `${out[0].text} <|${out.length + 1}|>` };
  const answer = out.map((l) => `<|${l.index}|> ${l.text}`).join("\n");
  return fault === "think_tags"
    ? `<think>\nThe user wants <|1|> translated. Let me think.\n</think>\n${answer}`
    : answer;
}

export async function startFakeChat(options: FakeChatOptions = {}): Promise<FakeChat> {
  const requests: ChatRequestRecord[] = [];
  let fault = options.fault;
  const hanging = new Set<ServerResponse>();
  let aborted = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await body(req);
      let parsed: {
        model?: string;
        messages?: { role: string; content: string }[];
        response_format?: { type?: string };
      } = {};
      try {
        parsed = JSON.parse(raw || "{}") as typeof parsed;
      } catch {
        parsed = {};
      }
      const last = [...(parsed.messages ?? [])].reverse().find((m) => m.role === "user")?.content ?? "";
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization ?? null,
        model: parsed.model ?? null,
        content: last,
      });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      if (req.method !== "POST" || req.url !== "/v1/chat/completions")
        return send(404, { error: { message: "not found" } });
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`)
        return send(401, { error: { message: "invalid api key", type: "invalid_request_error" } });
      if (!parsed.model) return send(400, { error: { message: "model is required" } });
      if (fault === "hang") {
        hanging.add(res);
        res.on("close", () => {
          if (hanging.delete(res)) aborted += 1;
        });
        return;
      }
      // The provider's message echoes the key it was given, as some do: the client must redact it.
      if (fault === "http_401")
        return send(401, {
          error: {
            message: `Incorrect API key provided: ${req.headers.authorization?.replace(/^Bearer /, "") ?? ""}`,
            type: "invalid_request_error",
          },
        });
      if (fault === "http_429")
        return send(429, { error: { message: "Rate limit reached for requests", type: "requests" } });
      if (fault === "garbage") {
        res.writeHead(200, { "content-type": "text/html" });
        return res.end("<html><body>502 Bad Gateway</body></html>");
      }
      if (fault === "http_500")
        return send(500, { error: { message: "the model is overloaded", type: "server_error" } });
      // The destination the system prompt asks for ("… from French to Japanese."), else English.
      const system = (parsed.messages ?? []).find((m) => m.role === "system")?.content ?? "";
      const asked = / to ([A-Z][a-z]+)\./.exec(system)?.[1];
      const target = options.target ?? (asked ? (PROMPT_LANGUAGES[asked] ?? "en") : "en");
      const lines = numberedLines(last);
      let content = lines
        ? numberedAnswer(lines, target, fault, options.translate ?? fakeTranslation)
        : fakeTranslation(last, options.target);
      // JSON mode (response schema asked for): the same answer as `{"translations": [{index, text}]}`.
      if (lines && parsed.response_format?.type === "json_schema") {
        const answer = content.replace(/^<think>[\s\S]*?<\/think>\n/, "");
        content = JSON.stringify({
          translations: (numberedLines(answer) ?? []).map((l) => ({ index: l.index, text: l.text })),
        });
      }
      const message: Record<string, string> = { role: "assistant", content };
      if (lines)
        message.reasoning_content = `<think>${lines.map((l) => `<|${l.index}|> reasoning`).join("\n")}</think>`;
      send(200, {
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model: parsed.model,
        choices: [{ index: 0, message, finish_reason: "stop" }],
        usage: { prompt_tokens: last.length, completion_tokens: last.length + 5, total_tokens: 2 * last.length + 5 },
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    aborted: () => aborted,
    setFault: (f) => {
      fault = f;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of [...hanging]) {
          hanging.delete(res);
          res.destroy();
        }
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
