/**
 * The external engine through the shipped adapter (adapter/mit_adapter.py) and the manga-image-
 * translator stand-in (test/fakes/mit-standin): the job reaches the engine over stdin only, chains
 * and skip rules are cleared, NDJSON events become progress and checkpoints, the worker validation
 * decides, and a failing engine fails the job with a coded error that does not leak the key.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import unzipper from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExternalEngine } from "../src/processor/external-engine.ts";
import { startProcessor, type RunningProcessor } from "../src/processor/processor.ts";
import { processorClient, type SubmitBody } from "../src/services/translation/processor-client.ts";
import { filesContaining, filesUnder, jobId, tempDir, waitFor, writeCbz } from "./processor-harness.ts";

/**
 * Longest wait for a job to end: the adapter is a Python process and the checks load the language
 * identifier, which takes seconds on a loaded machine. The waits end on the condition, not the bound.
 */
const JOB_WAIT_MS = 180_000;

const AI_KEY = "sk-external-key-c0ffee";
const STANDIN = path.join(import.meta.dirname, "fakes", "mit-standin");
let dir: string;
let source: string;
let sha: string;
const running: RunningProcessor[] = [];
const request = (): SubmitBody => ({
  source_sha256: sha,
  source_language: "fr",
  target_language: "en",
  ai: { base_url: "http://127.0.0.1:9/v1", model: "ext-model", api_key: AI_KEY },
});

function requirePython(): void {
  const r = spawnSync("python3", ["--version"]);
  if (r.error || r.status !== 0)
    throw new Error("python3 is missing: install the Debian package python3 to test the external engine adapter");
}

async function processorWith(name: string, standin: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const configText = JSON.stringify({ ...extra, standin });
  const engine = createExternalEngine({ python: "python3", root: STANDIN, configText, cpu: true });
  const proc = await startProcessor({ stateDir: path.join(dir, name), engine, port: 0 });
  running.push(proc);
  return { proc, client: processorClient({ url: proc.url, token: null, timeoutMs: 5000 }) };
}

beforeAll(async () => {
  requirePython();
  // The stand-in lives in the checkout: no __pycache__ beside it (the engine inherits this env).
  process.env.PYTHONDONTWRITEBYTECODE = "1";
  dir = await tempDir("processor-external-");
  source = path.join(dir, "source.cbz");
  sha = await writeCbz(source, 3, 11);
});
afterAll(async () => {
  for (const p of running) await p.close();
  await rm(dir, { recursive: true, force: true });
});

describe("external engine (adapter + stand-in)", { timeout: JOB_WAIT_MS + 60_000 }, () => {
  it("translates through the adapter: key over stdin only, chains cleared, validated receipt", async () => {
    const record = path.join(dir, "record.json");
    const { client } = await processorWith(
      "state-ok",
      { record_file: record },
      {
        translator: {
          translator: "sugoi",
          translator_chain: "google:JPN;sugoi:ENG",
          selective_translation: "sugoi:JPN",
          skip_lang: "ENG,FRA",
          target_lang: "JPN",
        },
      },
    );
    const id = jobId();
    await client.uploadSource(id, source);
    await client.submit(id, request());
    const st = await waitFor(client, id, ["completed", "failed"], JOB_WAIT_MS);
    expect(st.error).toBeNull();
    expect(st.status).toBe("completed");
    expect(st.progress).toEqual({ pagesDone: 3, pagesTotal: 3 });
    const seen = JSON.parse(await readFile(record, "utf8")) as Record<string, unknown>;
    expect(seen).toMatchObject({
      translator: "custom_openai",
      target_lang: "ENG",
      translator_chain: null,
      selective_translation: null,
      skip_lang: null,
      no_text_lang_skip: true,
    });
    expect(seen).toMatchObject({
      api_base: "http://127.0.0.1:9/v1",
      model: "ext-model",
      key_in_argv: false,
      key_in_env: false,
      params: { use_gpu: false },
    });
    expect(seen.key_sha256).toBe(createHash("sha256").update(AI_KEY).digest("hex"));
    const zip = await unzipper.Open.file(await client.result(id, path.join(dir, "ext.zip")));
    expect(zip.files.map((f) => f.path)).toEqual(["001.jpg", "002.jpg", "003.jpg", "translation.json"]);
    const receipt = JSON.parse((await zip.files[3]!.buffer()).toString("utf8")) as Record<string, unknown>;
    expect(receipt).toMatchObject({
      source_sha256: sha,
      page_count: 3,
      translated_regions: 3,
      untranslated_regions: 0,
      detected_source_language: "fr",
      detected_target_language: "en",
      model: "ext-model",
      // The book-level figures of the pooled language checks (a page's pool is in the local engine's records).
      evidence: {
        target: { judgement: { verdict: "confirmed", language: "en" } },
        source: { judgement: { verdict: "confirmed", language: "fr" } },
      },
    });
    expect(await filesContaining(path.join(dir, "state-ok"), AI_KEY)).toEqual([]);
  });

  it("a failing engine fails the job with a coded error, the key redacted", async () => {
    const { client } = await processorWith("state-fail", { fail_at: 1 });
    const id = jobId();
    await client.uploadSource(id, source);
    await client.submit(id, request());
    const st = await waitFor(client, id, ["completed", "failed"], JOB_WAIT_MS);
    expect(st.status).toBe("failed");
    expect(st.error?.code).toBe("engine_failed");
    expect(st.error?.message).toContain("stand-in failure");
    expect(st.error?.message).not.toContain(AI_KEY);
    expect(await filesContaining(path.join(dir, "state-fail"), AI_KEY)).toEqual([]);
  });

  it("an echoed answer is refused by the worker validation", async () => {
    const echo = "Je ne sais pas où se trouve la maison de mon ami, mais nous allons la chercher ensemble ce soir.";
    const { client } = await processorWith("state-echo", { texts: [[echo, echo]] });
    const id = jobId();
    await client.uploadSource(id, source);
    await client.submit(id, request());
    const st = await waitFor(client, id, ["completed", "failed"], JOB_WAIT_MS);
    expect(st.status).toBe("failed");
    expect(st.error?.code).toBe("validation_failed");
  });

  it("cancelling a hanging engine kills it: cancelling, then cancelled", async () => {
    const { client } = await processorWith("state-hang", { hang_at: 1 });
    const id = jobId();
    await client.uploadSource(id, source);
    await client.submit(id, request());
    await waitFor(client, id, ["running"]);
    for (let i = 0; i < 200 && (await client.status(id))?.progress?.pagesDone !== 1; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect((await client.status(id))?.progress?.pagesDone).toBe(1);
    await client.cancel(id);
    expect((await waitFor(client, id, ["cancelled"], 10_000)).status).toBe("cancelled");
  });

  it("a restart resumes from the checkpoints: the pages finished before it are not done again", async () => {
    // The stand-in counts pages per run: the first run hangs at its third page, the second run
    // (same configuration, so the same identity) has only that page left and finishes it.
    const first = await processorWith("state-restart", { hang_at: 2 });
    const id = jobId();
    await first.client.uploadSource(id, source);
    await first.client.submit(id, request());
    for (let i = 0; i < 400 && (await first.client.status(id))?.progress?.pagesDone !== 2; i++)
      await new Promise((r) => setTimeout(r, 25));
    const done = (await filesUnder(path.join(dir, "state-restart")))
      .filter((f) => /page-000[12]\.json$/.test(f))
      .sort();
    expect(done, "pages 1 and 2 checkpointed").toHaveLength(2);
    const before = await Promise.all(done.map((f) => stat(f)));
    await first.proc.close();

    // The same state directory and configuration; the service re-submits on 404.
    const engine = createExternalEngine({
      python: "python3",
      root: STANDIN,
      configText: JSON.stringify({ standin: { hang_at: 2 } }),
      cpu: true,
    });
    const proc = await startProcessor({ stateDir: path.join(dir, "state-restart"), engine, port: 0 });
    running.push(proc);
    const client = processorClient({ url: proc.url, token: null, timeoutMs: 5000 });
    expect(await client.status(id)).toBeNull();
    await client.submit(id, request());
    const st = await waitFor(client, id, ["completed", "failed"], JOB_WAIT_MS);
    expect(st.error).toBeNull();
    const after = await Promise.all(done.map((f) => stat(f)));
    expect(after.map((a) => [a.ino, a.mtimeMs])).toEqual(before.map((b) => [b.ino, b.mtimeMs]));
    const records = (await filesUnder(path.join(dir, "state-restart"))).filter((f) => /page-000\d\.json$/.test(f));
    expect(records).toHaveLength(3);
  });
});

describe("a non-Python engine path", { timeout: JOB_WAIT_MS + 60_000 }, () => {
  it("fails the job with engine_unavailable", async () => {
    const engine = createExternalEngine({
      python: path.join(dir, "no-such-python"),
      root: STANDIN,
      configText: null,
      cpu: false,
    });
    const proc = await startProcessor({ stateDir: path.join(dir, "state-missing"), engine, port: 0 });
    running.push(proc);
    const client = processorClient({ url: proc.url, token: null, timeoutMs: 5000 });
    const id = jobId();
    await client.uploadSource(id, source);
    await client.submit(id, request());
    const st = await waitFor(client, id, ["completed", "failed"], JOB_WAIT_MS);
    expect(st.error?.code).toBe("engine_unavailable");
  });
});
