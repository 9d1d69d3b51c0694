/**
 * The reference processor's durability: a restart on the same --state resumes queued and running
 * jobs (running ones from their checkpoints, once the service's re-POST brought the key back),
 * remembers cancellations, and an explicit retry (next number) reuses the checkpoints.
 */
import { readFile, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessor } from "../src/processor/processor.ts";
import { processorClient, ProcessorError, type SubmitBody } from "../src/services/translation/processor-client.ts";
import { filesContaining, hexOf, jobId, tempDir, testEngine, waitFor, writeCbz } from "./processor-harness.ts";

const AI_KEY = "sk-restart-key-81fa";
let dir: string;
let source: string;
let sha: string;
const request = (): SubmitBody => ({
  source_sha256: sha,
  source_language: "fr",
  target_language: "en",
  ai: { base_url: "http://127.0.0.1:9/v1", model: "m1", api_key: AI_KEY },
});

beforeAll(async () => {
  dir = await tempDir("processor-restart-");
  source = path.join(dir, "source.cbz");
  sha = await writeCbz(source, 3, 7);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("restart", () => {
  it("resumes a running job from its checkpoints and a queued one, and remembers a cancellation", async () => {
    const state = path.join(dir, "state");
    const first = testEngine({ holdAt: 2 });
    let proc = await startProcessor({ stateDir: state, engine: first, port: 0 });
    let client = processorClient({ url: proc.url, token: null, timeoutMs: 5000 });
    const running = jobId();
    const queued = jobId();
    const cancelled = jobId();
    for (const id of [running, queued]) await client.uploadSource(id, source);
    await client.submit(running, request());
    await first.held; // pages 1 and 2 are checkpointed, page 3 is in the works
    await client.submit(queued, { ...request(), target_language: "de" });
    await client.cancel(cancelled);
    expect((await client.status(queued))?.status).toBe("queued");
    await proc.close();
    expect(first.signals[0]?.aborted).toBe(true);
    expect(first.processed).toBe(2);

    const records = Object.fromEntries(
      await Promise.all(
        (await readdir(path.join(state, "jobs"))).map(
          async (n) =>
            [
              n.replace(".json", ""),
              JSON.parse(await readFile(path.join(state, "jobs", n), "utf8")) as { status: string },
            ] as const,
        ),
      ),
    );
    expect(records[running]?.status).toBe("running");
    expect(records[queued]?.status).toBe("queued");
    expect(records[cancelled]?.status).toBe("cancelled");
    expect(await filesContaining(state, AI_KEY)).toEqual([]);

    const second = testEngine();
    proc = await startProcessor({ stateDir: state, engine: second, port: 0 });
    try {
      client = processorClient({ url: proc.url, token: null, timeoutMs: 5000 });
      // The key was never persisted: the processor asks for the submission again (404) ...
      expect(await client.status(running)).toBeNull();
      expect(await client.status(queued)).toBeNull();
      expect((await client.status(cancelled))?.status).toBe("cancelled");
      const refused = await client.submit(cancelled, request()).catch((e: unknown) => e);
      expect((refused as ProcessorError).processorCode).toBe("cancelled");
      // ... and the service's re-POST of the same request resumes both jobs.
      expect(["queued", "running"]).toContain((await client.submit(running, request())).status);
      await client.submit(queued, { ...request(), target_language: "de" });
      expect((await waitFor(client, running, ["completed", "failed"])).status).toBe("completed");
      expect((await waitFor(client, queued, ["completed", "failed"])).status).toBe("completed");
      // Page 3 of the running job plus the 3 pages of the queued one; pages 1–2 came from checkpoints.
      expect(second.processed).toBe(4);
      expect(second.jobs[0]?.checkpointDir).toBe(path.join(state, "checkpoints", hexOf(running)));
      expect(await filesContaining(state, AI_KEY)).toEqual([]);
    } finally {
      await proc.close();
    }
  });

  it("an explicit retry (next retry number) reuses the checkpoints of the failed attempt", async () => {
    const failing = testEngine({ failAt: 2 });
    const state = path.join(dir, "state-retry");
    const checkpoints = path.join(dir, "durable-checkpoints");
    let proc = await startProcessor({ stateDir: state, engine: failing, port: 0, checkpointDir: checkpoints });
    let client = processorClient({ url: proc.url, token: null, timeoutMs: 5000 });
    const attempt0 = jobId(0);
    await client.uploadSource(attempt0, source);
    await client.submit(attempt0, request());
    const failed = await waitFor(client, attempt0, ["failed", "completed"]);
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("validation_failed");
    expect(failing.processed).toBe(2);
    await proc.close();

    const working = testEngine();
    proc = await startProcessor({ stateDir: state, engine: working, port: 0, checkpointDir: checkpoints });
    try {
      client = processorClient({ url: proc.url, token: null, timeoutMs: 5000 });
      expect((await client.status(attempt0))?.status).toBe("failed"); // failed stays failed
      const attempt1 = jobId(1, hexOf(attempt0));
      await client.uploadSource(attempt1, source);
      await client.submit(attempt1, request());
      expect((await waitFor(client, attempt1, ["completed", "failed"])).status).toBe("completed");
      expect(working.processed).toBe(1);
      expect(working.jobs[0]?.checkpointDir).toBe(path.join(checkpoints, hexOf(attempt0)));
    } finally {
      await proc.close();
    }
  });
});
