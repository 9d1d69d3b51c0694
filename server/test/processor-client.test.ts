/**
 * The protocol v1 client against the fake processor (a real HTTP server on 127.0.0.1): what it sends,
 * how it classifies failures, and that neither the token nor the AI key reaches a URL or a message.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { drawnPages } from "../src/library/test-pages.ts";
import { ProcessorError, processorClient } from "../src/services/translation/processor-client.ts";
import { sha256File } from "../src/library/durable-fs.ts";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { startFakeProcessor, type FakeProcessor } from "./fakes/processor-server.ts";

const TOKEN = "proc-token-5f1e";
const AI_KEY = "sk-ai-key-93ab";
let dir: string;
let source: string;
let fake: FakeProcessor;
let chat: FakeChat;

async function cbz(file: string, pages: number): Promise<void> {
  const zip = new ZipFile();
  (await drawnPages(pages, 3, { width: 90, height: 130 })).forEach((p, i) =>
    zip.addBuffer(p, `${String(i + 1).padStart(3, "0")}.jpg`, { compress: false }),
  );
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  await writeFile(file, Buffer.concat(chunks));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "proc-client-"));
  source = path.join(dir, "source.cbz");
  await cbz(source, 3);
  fake = await startFakeProcessor({ token: TOKEN, faults: { pageMs: 5 } });
  chat = await startFakeChat({ apiKey: AI_KEY });
});
afterAll(async () => {
  await fake.close();
  await chat.close();
  await rm(dir, { recursive: true, force: true });
});

const id = (n: number) => `${"ab".repeat(16)}-${n}`;

describe("processor client", () => {
  it("runs upload → submit → status → result with the bearer token, the key only in the POST body", async () => {
    const client = processorClient({ url: fake.url, token: TOKEN });
    const sha = await sha256File(source);
    expect(await client.status(id(0))).toBeNull();
    await client.uploadSource(id(0), source);
    const put = fake.requests.find((r) => r.method === "PUT")!;
    expect(put.headers["content-type"]).toBe("application/zip");
    expect(put.headers["content-length"]).toBe(String((await readFile(source)).length));
    const first = await client.submit(id(0), {
      source_sha256: sha,
      source_language: "ja",
      target_language: "en",
      ai: { base_url: chat.baseUrl, model: "m-1", api_key: AI_KEY },
    });
    expect(["queued", "running"]).toContain(first.status);
    let s = first;
    while (s.status !== "completed") {
      await new Promise((r) => setTimeout(r, 20));
      s = (await client.status(id(0)))!;
    }
    expect(s.progress).toEqual({ pagesDone: 3, pagesTotal: 3 });
    const out = await client.result(id(0), path.join(dir, "a", "result.zip"));
    expect((await readFile(out)).subarray(0, 2).toString()).toBe("PK");
    await client.cancel(id(0));
    for (const r of fake.requests) {
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.url).not.toContain(AI_KEY);
      expect(r.url).not.toContain(TOKEN);
      expect(JSON.stringify(r.headers)).not.toContain(AI_KEY);
    }
    expect(fake.aiKeysSeen).toEqual([AI_KEY]);
    expect(chat.requests.every((r) => r.authorization === `Bearer ${AI_KEY}`)).toBe(true);
  });

  it("classifies: bad token 401 permanent, cancelled 409 permanent with its code, a dropped connection transient", async () => {
    const bad = processorClient({ url: fake.url, token: "wrong" });
    const e401 = await bad.status(id(1)).catch((e: unknown) => e);
    expect(e401).toBeInstanceOf(ProcessorError);
    expect((e401 as ProcessorError).transient).toBe(false);
    expect((e401 as ProcessorError).httpStatus).toBe(401);
    expect((e401 as Error).message).not.toContain("wrong");

    const client = processorClient({ url: fake.url, token: TOKEN });
    await client.cancel(id(2));
    const cancelled = await client.uploadSource(id(2), source).catch((e: unknown) => e);
    expect((cancelled as ProcessorError).processorCode).toBe("cancelled");
    expect((cancelled as ProcessorError).transient).toBe(false);

    fake.faults.dropUpload = 1;
    const dropped = await client.uploadSource(id(3), source).catch((e: unknown) => e);
    expect((dropped as ProcessorError).transient).toBe(true);
    await client.uploadSource(id(3), source);
    const missing = await client
      .submit(id(4), {
        source_sha256: "0".repeat(64),
        source_language: "ja",
        target_language: "en",
        ai: { base_url: chat.baseUrl, model: "m", api_key: AI_KEY },
      })
      .catch((e: unknown) => e);
    expect((missing as ProcessorError).processorCode).toBe("source_missing");
    expect((missing as Error).message).not.toContain(AI_KEY);
  });

  it("times out (transient), treats 5xx as transient and refuses an oversized result", async () => {
    const slow = createServer((req, res) => {
      if (req.url?.endsWith("/result")) {
        res.writeHead(200, { "content-type": "application/zip", "content-length": "5000" });
        res.end(Buffer.alloc(5000));
      } else if (req.method === "DELETE") {
        res.writeHead(503);
        res.end();
      }
      // GET: never answers.
    });
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    const port = (slow.address() as { port: number }).port;
    const client = processorClient({
      url: `http://127.0.0.1:${port}`,
      token: null,
      timeoutMs: 150,
      maxResultBytes: 1000,
    });
    const t = await client.status(id(5)).catch((e: unknown) => e);
    expect((t as ProcessorError).transient).toBe(true);
    const d = await client.cancel(id(5)).catch((e: unknown) => e);
    expect((d as ProcessorError).transient).toBe(true);
    const big = await client.result(id(5), path.join(dir, "big.zip")).catch((e: unknown) => e);
    expect((big as ProcessorError).processorCode).toBe("result_too_large");
    await expect(readFile(path.join(dir, "big.zip"))).rejects.toThrow();
    slow.closeAllConnections();
    await new Promise<void>((r) => slow.close(() => r()));
  });
});
