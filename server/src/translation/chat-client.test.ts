/** The chat translator against the fake OpenAI-compatible server over real HTTP on 127.0.0.1. */
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fakeTranslation, startFakeChat, type ChatFault, type FakeChat } from "../../test/fakes/openai-chat-server.ts";
import { judgePage } from "../domain/local-translation.ts";
import type { LanguageIdentifier } from "../domain/translation-language.ts";
import { checkRegion } from "../domain/translation-validation.ts";
import { completionsUrl, createChatTranslator, redact, translatePage } from "./chat-client.ts";
import { loadLanguageIdentifier } from "./language-id.ts";
import { LocalTranslationError, type AiSettings } from "./types.ts";

const KEY = "sk-test-secret-key-0123456789";
const JA = { sourceLanguage: "ja", targetLanguage: "en" };
let chat: FakeChat;
let ai: AiSettings;

beforeAll(async () => {
  chat = await startFakeChat({ apiKey: KEY });
  ai = { baseUrl: chat.baseUrl, model: "fake-model-1", apiKey: KEY };
});
afterAll(async () => {
  await chat.close();
});
afterEach(() => {
  chat.setFault(undefined);
  chat.requests.length = 0;
});

async function failure(promise: Promise<unknown>): Promise<LocalTranslationError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LocalTranslationError);
  return error as LocalTranslationError;
}

describe("numbered lines", () => {
  it("round-trips a page's texts in one request, in order", async () => {
    const texts = ["こんにちは", "元気\nですか", "ありがとう"];
    const result = await translatePage(ai, { ...JA, texts });
    expect(result.translations).toEqual([
      fakeTranslation("こんにちは"),
      fakeTranslation("元気 ですか"),
      fakeTranslation("ありがとう"),
    ]);
    expect(result.model).toBe("fake-model-1");
    expect(chat.requests).toHaveLength(1);
    expect(chat.requests[0]?.content).toBe("<|1|> こんにちは\n<|2|> 元気 ですか\n<|3|> ありがとう");
  });

  it("sends the key only in the Authorization header of POST /v1/chat/completions", async () => {
    const seen: { url: string; headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const { createServer: http } = await import("node:http");
    const server = http((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ model: "m", choices: [{ message: { content: "<|1|> hi" } }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      await translatePage(
        { baseUrl: `http://127.0.0.1:${port}/v1/`, model: "m", apiKey: KEY },
        { ...JA, texts: ["やあ"] },
      );
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.url).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    const others = Object.entries(request?.headers ?? {}).filter(([name]) => name !== "authorization");
    expect(JSON.stringify(others)).not.toContain(KEY);
    expect(request?.body).not.toContain(KEY);
    expect(request?.url).not.toContain(KEY);
    const body = JSON.parse(request?.body ?? "{}") as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe("m");
    expect(body.messages[0]?.content).toContain("from Japanese to English");
  });

  it("joins the base URL without a doubled slash", () => {
    expect(completionsUrl("http://h/v1")).toBe("http://h/v1/chat/completions");
    expect(completionsUrl("http://h/v1//")).toBe("http://h/v1/chat/completions");
  });

  it("strips think-tags and ignores reasoning fields", async () => {
    chat.setFault("think_tags");
    const result = await translatePage(ai, { ...JA, texts: ["はい", "いいえ"] });
    expect(result.translations).toEqual([fakeTranslation("はい"), fakeTranslation("いいえ")]);
  });

  it("keeps a stray marker inside a line for the validation to see", async () => {
    chat.setFault("leftover_marker");
    const result = await translatePage(ai, { ...JA, texts: ["はい", "いいえ"] });
    expect(result.translations[0]).toBe(`${fakeTranslation("はい")} <|3|>`);
    expect(result.translations[1]).toBe(fakeTranslation("いいえ"));
  });

  it.each<ChatFault>(["missing_index", "extra_index", "duplicate_index"])(
    "refuses an answer with %s as ai_answer_malformed",
    async (fault) => {
      chat.setFault(fault);
      const error = await failure(translatePage(ai, { ...JA, texts: ["一", "二", "三"] }));
      expect(error.code).toBe("ai_answer_malformed");
      expect(error.transient).toBe(false);
    },
  );

  it("passes empty and echoed lines through for the validation to judge", async () => {
    chat.setFault("empty");
    expect((await translatePage(ai, { ...JA, texts: ["一", "二"] })).translations).toEqual(["", ""]);
    chat.setFault("echo");
    expect((await translatePage(ai, { ...JA, texts: ["一", "二"] })).translations).toEqual(["一", "二"]);
  });

  it("makes no request for a page without texts", async () => {
    expect(await translatePage(ai, { ...JA, texts: [] })).toEqual({ translations: [], model: "fake-model-1" });
    expect(chat.requests).toHaveLength(0);
  });
});

describe("prompt bounds", () => {
  it("splits a page beyond the bound into several requests, each numbered from 1", async () => {
    const translate = createChatTranslator({ limits: { maxCharsPerRequest: 25, maxCharsPerRegion: 12 } });
    const texts = ["あ".repeat(10), "い".repeat(10), "う".repeat(10), "え".repeat(30)];
    const result = await translate(ai, { ...JA, texts });
    expect(chat.requests.map((r) => r.content)).toEqual([
      `<|1|> ${"あ".repeat(10)}\n<|2|> ${"い".repeat(10)}`,
      `<|1|> ${"う".repeat(10)}\n<|2|> ${"え".repeat(12)}`,
    ]);
    expect(result.translations).toEqual([
      ...texts.slice(0, 3).map((t) => fakeTranslation(t)),
      fakeTranslation("え".repeat(12)),
    ]);
  });

  it("bounds the number of regions per request", async () => {
    const translate = createChatTranslator({ limits: { maxRegionsPerRequest: 2 } });
    const result = await translate(ai, { ...JA, texts: ["一", "二", "三", "四", "五"] });
    expect(chat.requests).toHaveLength(3);
    expect(result.translations).toEqual(["一", "二", "三", "四", "五"].map((t) => fakeTranslation(t)));
  });
});

describe("JSON mode (option)", () => {
  it("asks for a response schema and reads the JSON answer", async () => {
    const translate = createChatTranslator({ jsonMode: true });
    const result = await translate(ai, { ...JA, texts: ["一", "二"] });
    expect(result.translations).toEqual([fakeTranslation("一"), fakeTranslation("二")]);
  });

  it("checks the indexes of a JSON answer as well", async () => {
    chat.setFault("duplicate_index");
    const error = await failure(createChatTranslator({ jsonMode: true })(ai, { ...JA, texts: ["一", "二"] }));
    expect(error.code).toBe("ai_answer_malformed");
  });
});

describe("HTTP failures", () => {
  it("500 is a transient ai_request_failed with the provider's message", async () => {
    chat.setFault("http_500");
    const error = await failure(translatePage(ai, { ...JA, texts: ["一"] }));
    expect(error.code).toBe("ai_request_failed");
    expect(error.transient).toBe(true);
    expect(error.message).toContain("500");
    expect(error.message).toContain("the model is overloaded");
  });

  it("401 is not transient and its message never contains the key", async () => {
    chat.setFault("http_401");
    const error = await failure(translatePage(ai, { ...JA, texts: ["一"] }));
    expect(error.code).toBe("ai_request_failed");
    expect(error.transient).toBe(false);
    expect(error.message).toContain("401");
    expect(error.message).toContain("Incorrect API key provided");
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain(chat.baseUrl);
  });

  it("a wrong key is refused (401 from the provider's own check)", async () => {
    const error = await failure(translatePage({ ...ai, apiKey: "sk-wrong" }, { ...JA, texts: ["一"] }));
    expect(error.transient).toBe(false);
    expect(error.message).toContain("invalid api key");
  });

  it("a refused connection is transient", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const error = await failure(
      translatePage({ ...ai, baseUrl: `http://127.0.0.1:${port}/v1` }, { ...JA, texts: ["一"] }),
    );
    expect(error.code).toBe("ai_request_failed");
    expect(error.transient).toBe(true);
    expect(error.message).not.toContain(KEY);
  });

  it("a provider that never answers times out as transient", async () => {
    chat.setFault("hang");
    const started = Date.now();
    const error = await failure(createChatTranslator({ timeoutMs: 300 })(ai, { ...JA, texts: ["一"] }));
    expect(error.code).toBe("ai_request_failed");
    expect(error.transient).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("the caller's signal aborts the request in flight quickly", async () => {
    chat.setFault("hang");
    const controller = new AbortController();
    const started = Date.now();
    const pending = translatePage(ai, { ...JA, texts: ["一"] }, controller.signal);
    await new Promise((r) => setTimeout(r, 100));
    expect(chat.requests).toHaveLength(1);
    controller.abort();
    const error = await failure(pending);
    expect(error.code).toBe("interrupted");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("redacts every occurrence of the key and bounds the text", () => {
    expect(redact(`a ${KEY} b ${KEY}`, KEY)).toBe("a [redacted] b [redacted]");
    expect(redact("x".repeat(1000), KEY).length).toBeLessThan(310);
  });
});

describe("the fake's validation faults reach the worker validation as intended", () => {
  it.each([
    ["wrong_language", "wrong_language"],
    ["source_script", "source_script"],
    ["leftover_marker", "marker_numbering"],
    ["echo", "echo"],
    ["empty", "empty"],
  ] as const)("%s → %s", async (fault, code) => {
    chat.setFault(fault);
    const source = "おまえはもうしんでいる";
    const { translations } = await translatePage(ai, { ...JA, texts: [source, "なに"] });
    const identifier = await loadLanguageIdentifier();
    const result = checkRegion(
      { source, translation: translations[0] ?? "", sourceLanguage: "ja", targetLanguage: "en" },
      identifier,
    );
    // Region faults are the region's own; the wrong language shows on the page's pooled text.
    const page = judgePage(
      { name: "001.png", sources: [source], translations: translations.slice(0, 1), results: [result] },
      { sourceLanguage: "ja", targetLanguage: "en", identifier },
    );
    expect(page).toMatchObject({ status: "refused", codes: [code] });
  });

  it("a custom translation passes the validation", async () => {
    const fake = await startFakeChat({ translate: () => "You are already dead, and you do not even know it yet." });
    try {
      const { translations } = await translatePage(
        { ...ai, baseUrl: fake.baseUrl },
        { ...JA, texts: ["おまえはもうしんでいる"] },
      );
      const identifier: LanguageIdentifier = await loadLanguageIdentifier();
      const source = "おまえはもうしんでいる";
      const result = checkRegion(
        { source, translation: translations[0] ?? "", sourceLanguage: "ja", targetLanguage: "en" },
        identifier,
      );
      expect(result.verdict).toBe("passed");
      expect(
        judgePage(
          { name: "001.png", sources: [source], translations, results: [result] },
          { sourceLanguage: "ja", targetLanguage: "en", identifier },
        ),
      ).toMatchObject({ status: "released", pool: "page" });
    } finally {
      await fake.close();
    }
  });

  it("close() ends a hanging request", async () => {
    const fake = await startFakeChat({ fault: "hang" });
    const pending = translatePage({ ...ai, baseUrl: fake.baseUrl }, { ...JA, texts: ["一"] });
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await fake.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    const error = await failure(pending);
    expect(error.transient).toBe(true);
  });
});
