/**
 * An OpenAI-compatible chat server on 127.0.0.1: `POST /v1/chat/completions` answers a deterministic
 * "translation" of the last user message (`[<target>] <text>` upper-cased). It checks the bearer key
 * when one is configured and records every request, so tests can see where the key travelled.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";

export interface ChatRequestRecord {
  method: string;
  url: string;
  authorization: string | null;
  model: string | null;
  content: string;
}

export interface FakeChat {
  /** Base URL including `/v1`, as the settings take it. */
  baseUrl: string;
  requests: ChatRequestRecord[];
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

export async function startFakeChat(options: { apiKey?: string; target?: string } = {}): Promise<FakeChat> {
  const requests: ChatRequestRecord[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await body(req);
      let parsed: { model?: string; messages?: { role: string; content: string }[] } = {};
      try {
        parsed = JSON.parse(raw || "{}") as typeof parsed;
      } catch {
        parsed = {};
      }
      const last = [...(parsed.messages ?? [])].reverse().find((m) => m.role === "user")?.content ?? "";
      requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization ?? null, model: parsed.model ?? null, content: last });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return send(404, { error: { message: "not found" } });
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) return send(401, { error: { message: "invalid api key", type: "invalid_request_error" } });
      if (!parsed.model) return send(400, { error: { message: "model is required" } });
      send(200, {
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model: parsed.model,
        choices: [{ index: 0, message: { role: "assistant", content: fakeTranslation(last, options.target) }, finish_reason: "stop" }],
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
