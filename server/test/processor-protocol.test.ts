/**
 * The reference processor over real HTTP on 127.0.0.1, driven by the service's own protocol v1
 * client: round trip, auth, id and upload refusals, the 409 codes, cancellation, the result cache,
 * and that no credential reaches the state directory.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import unzipper from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessor, type RunningProcessor } from "../src/processor/processor.ts";
import {
  ProcessorError,
  processorClient,
  type ProcessorClient,
  type SubmitBody,
} from "../src/services/translation/processor-client.ts";
import {
  filesContaining,
  jobId,
  tempDir,
  testEngine,
  waitFor,
  writeCbz,
  type TestEngine,
} from "./processor-harness.ts";

const TOKEN = "proc-token-7d2c";
const AI_KEY = "sk-secret-ai-key-4b19";
const BASE_URL = "http://127.0.0.1:9/private-endpoint/v1";
let dir: string;
let source: string;
let sha: string;
let engine: TestEngine;
let proc: RunningProcessor;
let client: ProcessorClient;

const request = (over: Partial<SubmitBody> = {}): SubmitBody => ({
  source_sha256: sha,
  source_language: "ja",
  target_language: "en",
  ai: { base_url: BASE_URL, model: "test-model", api_key: AI_KEY },
  ...over,
});
const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ProcessorError);
  return e as ProcessorError;
};

beforeAll(async () => {
  dir = await tempDir("processor-protocol-");
  source = path.join(dir, "source.cbz");
  sha = await writeCbz(source, 3);
  engine = testEngine();
  proc = await startProcessor({
    stateDir: path.join(dir, "state"),
    engine,
    port: 0,
    token: TOKEN,
    maxSourceBytes: 400_000,
  });
  client = processorClient({ url: proc.url, token: TOKEN, timeoutMs: 5000 });
});
afterAll(async () => {
  await proc.close();
  await rm(dir, { recursive: true, force: true });
});

describe("protocol v1 round trip", () => {
  it("uploads, submits, polls and serves a byte-identical result with its receipt", async () => {
    const id = jobId();
    expect(await client.status(id)).toBeNull();
    await client.uploadSource(id, source);
    expect(await client.status(id)).toBeNull(); // GET before a submit is 404 even when uploaded
    const started = Date.now();
    const first = await client.submit(id, request());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(["queued", "running", "completed"]).toContain(first.status);
    const done = await waitFor(client, id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.progress).toEqual({ pagesDone: 3, pagesTotal: 3 });
    const a = await client.result(id, path.join(dir, "a.zip"));
    const b = await client.result(id, path.join(dir, "b.zip"));
    expect((await readFile(a)).equals(await readFile(b))).toBe(true);
    const zip = await unzipper.Open.file(a);
    expect(zip.files.map((f) => f.path)).toEqual(["001.jpg", "002.jpg", "003.jpg", "translation.json"]);
    const receipt = JSON.parse((await zip.files[3]!.buffer()).toString("utf8")) as Record<string, unknown>;
    expect(receipt).toMatchObject({
      source_sha256: sha,
      source_language: "ja",
      target_language: "en",
      page_count: 3,
      model: "test-model",
    });
    // Re-POST with the same identity: the current status, no new run.
    const runs = engine.runs;
    expect((await client.submit(id, request())).status).toBe("completed");
    expect(engine.runs).toBe(runs);
  });

  it("answers a resubmitted identical job under a new id from the cache, with no engine run", async () => {
    const first = jobId();
    await client.uploadSource(first, source);
    await client.submit(first, request({ target_language: "fr" }));
    await waitFor(client, first, ["completed"]);
    const runs = engine.runs;
    const again = jobId();
    await client.uploadSource(again, source);
    const st = await client.submit(again, request({ target_language: "fr" }));
    expect(st.status).toBe("completed");
    expect(engine.runs).toBe(runs);
    const x = await readFile(await client.result(first, path.join(dir, "c1.zip")));
    const y = await readFile(await client.result(again, path.join(dir, "c2.zip")));
    expect(x.equals(y)).toBe(true);
    // The key is not part of the identity: another key still hits the cache.
    const third = jobId();
    await client.uploadSource(third, source);
    expect(
      (
        await client.submit(
          third,
          request({
            target_language: "fr",
            ai: { base_url: BASE_URL, model: "test-model", api_key: "another-key-1234" },
          }),
        )
      ).status,
    ).toBe("completed");
    expect(engine.runs).toBe(runs);
  });
});

describe("refusals", () => {
  it("401 with a wrong or missing token", async () => {
    const wrong = processorClient({ url: proc.url, token: "wrong-token", timeoutMs: 5000 });
    expect((await refusal(wrong.status(jobId()))).httpStatus).toBe(401);
    const none = await fetch(`${proc.url}/jobs/${jobId()}`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { code: string }).code).toBe("unauthorized");
  });

  it("400 for a malformed job id", async () => {
    for (const bad of ["abc-0", `${"A".repeat(32)}-0`, `${"a".repeat(32)}-01`, `${"a".repeat(32)}`]) {
      const res = await fetch(`${proc.url}/jobs/${bad}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("invalid_id");
    }
  });

  it("400 invalid_id for an id that is not even valid percent-encoding, on every route", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const bad of ["%ZZ", `${"a".repeat(31)}%E0%A4%A-0`, `${"a".repeat(32)}-0%`]) {
      for (const [method, suffix] of [
        ["GET", ""],
        ["POST", ""],
        ["DELETE", ""],
        ["PUT", "/source"],
        ["GET", "/result"],
      ] as const) {
        const res = await fetch(`${proc.url}/jobs/${bad}${suffix}`, { method, headers: auth });
        expect(res.status, `${method} ${bad}${suffix}`).toBe(400);
        expect(((await res.json()) as { code: string }).code).toBe("invalid_id");
      }
    }
  });

  it("takes the bearer scheme in any letter case (HTTP auth schemes are case-insensitive), never another token", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const res = await fetch(`${proc.url}/jobs/${jobId()}`, { headers: { authorization: `${scheme} ${TOKEN}` } });
      expect(res.status, scheme).toBe(404);
    }
    for (const header of [
      `bearer ${TOKEN}x`,
      `Basic ${TOKEN}`,
      TOKEN,
      `Bearer  ${TOKEN}`,
      `Bearer ${TOKEN.toUpperCase()}`,
    ]) {
      const res = await fetch(`${proc.url}/jobs/${jobId()}`, { headers: { authorization: header } });
      expect(res.status, header).toBe(401);
    }
  });

  it("411 without Content-Length, 415 for another type, 413 over the limit, 422 for a non-archive", async () => {
    const id = jobId();
    const auth = { authorization: `Bearer ${TOKEN}` };
    const body = await readFile(source);
    const chunked = await fetch(`${proc.url}/jobs/${id}/source`, {
      method: "PUT",
      headers: { ...auth, "content-type": "application/zip" },
      body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(body)), c.close()) }),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(411);
    const text = await fetch(`${proc.url}/jobs/${id}/source`, {
      method: "PUT",
      headers: { ...auth, "content-type": "text/plain" },
      body,
    });
    expect(text.status).toBe(415);
    const big = path.join(dir, "big.cbz");
    await writeFile(big, Buffer.alloc(500_000, 1));
    const e = await refusal(client.uploadSource(id, big));
    expect([e.httpStatus, e.processorCode]).toEqual([413, "source_too_large"]);
    const junk = path.join(dir, "junk.cbz");
    await writeFile(junk, Buffer.from("not a zip at all"));
    const j = await refusal(client.uploadSource(id, junk));
    expect([j.httpStatus, j.processorCode]).toEqual([422, "source_unreadable"]);
  });

  it("415 for a submit that is not application/json: nothing is submitted, a JSON submit then works", async () => {
    const id = jobId();
    await client.uploadSource(id, source);
    const json = JSON.stringify(request());
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/zip", null]) {
      const runs = engine.runs;
      const r = await fetch(`${proc.url}/jobs/${id}`, {
        method: "POST",
        headers: type === null ? auth : { ...auth, "content-type": type },
        body: type === null ? new Blob([json]) : json,
      });
      expect(r.status, String(type)).toBe(415);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(((await r.json()) as { code: string }).code).toBe("unsupported_media_type");
      // Nothing was submitted: GET still answers 404 and the engine never ran.
      expect(await client.status(id)).toBeNull();
      expect(engine.runs).toBe(runs);
    }
    const ok = await fetch(`${proc.url}/jobs/${id}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json; charset=utf-8" },
      body: json,
    });
    expect(ok.status).toBe(202);
    await waitFor(client, id, ["completed"]);
  });

  it("409 source_missing before an upload, request_changed for another request, invalid_body for a bad one", async () => {
    const id = jobId();
    expect((await refusal(client.submit(id, request()))).processorCode).toBe("source_missing");
    await client.uploadSource(id, source);
    expect((await refusal(client.submit(id, { ...request(), source_language: "original" }))).processorCode).toBe(
      "invalid_body",
    );
    await client.submit(id, request({ target_language: "de" }));
    expect((await refusal(client.submit(id, request({ target_language: "es" })))).processorCode).toBe(
      "request_changed",
    );
    const model = await refusal(
      client.submit(
        id,
        request({ target_language: "de", ai: { base_url: BASE_URL, model: "other", api_key: AI_KEY } }),
      ),
    );
    expect([model.httpStatus, model.processorCode]).toEqual([409, "request_changed"]);
    await waitFor(client, id, ["completed"]);
  });
});

describe("cancellation", () => {
  it("DELETE of an unknown id is 202 and remembered: later PUT and POST are 409 cancelled", async () => {
    const id = jobId();
    await client.cancel(id);
    await client.cancel(id); // idempotent
    expect((await client.status(id))?.status).toBe("cancelled");
    expect((await refusal(client.uploadSource(id, source))).processorCode).toBe("cancelled");
    expect((await refusal(client.submit(id, request()))).processorCode).toBe("cancelled");
  });

  it("cancelling a running job aborts the engine between pages: cancelling, then cancelled", async () => {
    const held = testEngine({ holdAt: 1, stopDelayMs: 150 });
    const own = await startProcessor({ stateDir: path.join(dir, "state-cancel"), engine: held, port: 0, token: TOKEN });
    try {
      const c = processorClient({ url: own.url, token: TOKEN, timeoutMs: 5000 });
      const id = jobId();
      await c.uploadSource(id, source);
      await c.submit(id, request());
      await held.held;
      expect((await c.status(id))?.status).toBe("running");
      const res = await fetch(`${own.url}/jobs/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(202);
      expect(((await res.json()) as { status: string }).status).toBe("cancelling");
      expect(held.signals[0]?.aborted).toBe(true);
      expect((await c.status(id))?.status).toBe("cancelling");
      await waitFor(c, id, ["cancelled"]);
      expect(held.processed).toBe(1);
      expect((await refusal(c.submit(id, request()))).processorCode).toBe("cancelled");
      // The run leaves the queue right after it wrote "cancelled".
      for (let i = 0; i < 100 && own.jobs.runningIds().length > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(own.jobs.runningIds()).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe("credentials", () => {
  it("no file under the state directory holds the AI key or the endpoint", async () => {
    const root = path.join(dir, "state");
    expect(await filesContaining(root, AI_KEY)).toEqual([]);
    expect(await filesContaining(root, "private-endpoint")).toEqual([]);
    expect(await filesContaining(root, TOKEN)).toEqual([]);
  });
});
