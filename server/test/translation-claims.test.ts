/**
 * A translation job whose instance stalls past its claim (its event loop does not run, as under
 * SIGSTOP) and wakes up after another instance took the job over. Each claim counts the job's
 * epoch up and every write of the worker names its epoch, so the woken instance moves nothing;
 * its import's publication checks the epoch in the journal entry's own transaction, so it imports
 * nothing and leaves no entry behind; the job ends imported once. Two cluster members on the test's
 * database stand for the instances, with the fake processor and chat server on 127.0.0.1 (also run
 * on PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCluster, type Cluster } from "../src/library/cluster.ts";
import { WORKING_STATES } from "../src/domain/translation-jobs.ts";
import { createPublication } from "../src/library/publication.ts";
import { leaseRepo } from "../src/repositories/lease-repo.ts";
import type { AppContext } from "../src/services/context.ts";
import { translationWorker, type TranslationWorker } from "../src/services/translation/translation-worker.ts";
import { gate, hookedDb, sleep, stalledAtTransaction, type Gate } from "./claim-gates.ts";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { startFakeProcessor, type FakeProcessor } from "./fakes/processor-server.ts";
import { AI_KEY, TOKEN, configure, jobRow, queueJob, translatedSeries } from "./translation-worker-harness.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let fake: FakeProcessor;
let chat: FakeChat;
const members: Cluster[] = [];
const workers: TranslationWorker[] = [];

/** The stalling instance's claims run out after this long (it never renews them). */
const SHORT_LEASE_MS = 300;

beforeAll(async () => {
  app = await createTestApp();
  fake = await startFakeProcessor({ token: TOKEN, faults: { pageMs: 5 } });
  chat = await startFakeChat({ apiKey: AI_KEY });
  await configure(app, { processorUrl: fake.url, chatBaseUrl: chat.baseUrl });
  // Only the two instances of each test work the jobs.
  await app.services.translationWorker.stop();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all(members.map((m) => m.stop()));
  await app.dispose();
  await fake.close();
  await chat.close();
});

/** An instance's translation worker (stepped by the test), on its own cluster member. */
function instance(o: { leaseMs?: number; db?: AppContext["db"] } = {}): TranslationWorker {
  const cluster = createCluster(leaseRepo(app.ctx.db), {
    exclusive: false,
    leaseMs: o.leaseMs ?? 60_000,
    log: () => {},
  });
  members.push(cluster);
  const ctx: AppContext = { ...app.ctx, cluster, ...(o.db ? { db: o.db } : {}) };
  const worker = translationWorker(ctx, { publication: createPublication(ctx) });
  worker.tune({ pollMs: 30, retryScale: 0.002 });
  workers.push(worker);
  return worker;
}

/** Steps `worker` until `done` holds of the job's row (each step awaited). */
async function stepUntil(
  worker: TranslationWorker,
  id: number,
  done: (r: Awaited<ReturnType<typeof jobRow>>) => boolean,
) {
  for (let i = 0; i < 400; i++) {
    await worker.runOnce();
    if (done(await jobRow(app, id))) return jobRow(app, id);
    await sleep(20);
  }
  throw new Error(`job ${id} never reached the expected state: ${JSON.stringify(await jobRow(app, id))}`);
}

/** Steps `worker` until it stops at `stall`; returns the step left waiting there. */
async function stepUntilStalled(worker: TranslationWorker, stall: Gate): Promise<{ step: Promise<void> }> {
  let reached = false;
  void stall.reached.then(() => (reached = true));
  for (let i = 0; i < 400; i++) {
    const step = worker.runOnce();
    await Promise.race([step, stall.reached]);
    if (reached) return { step };
    await sleep(20);
  }
  throw new Error("the worker never reached the stall");
}

describe("a translation job whose instance stalled past its claim", () => {
  it("a late progress write of the stalled instance moves nothing once another took the job over", async () => {
    fake.faults.pageMs = 150;
    const seriesId = await translatedSeries(app, "Late Progress");
    const job = await queueJob(app, seriesId, "1", { pages: 8 });
    // A stalls right before it writes a progress it read from the processor.
    let armed = false;
    let stalledAt: number | null = null;
    const stall = gate();
    const a = instance({
      leaseMs: SHORT_LEASE_MS,
      db: hookedDb(app.ctx.db, {
        "translationJob.updateMany": async (args) => {
          const data = (args as { data: { pagesDone?: number } }).data;
          if (!armed || typeof data.pagesDone !== "number") return;
          armed = false;
          stalledAt = data.pagesDone;
          await stall.pass();
        },
      }),
    });
    await stepUntil(a, job.row.id, (r) => r.state === "running");
    armed = true;
    const { step: late } = await stepUntilStalled(a, stall);
    await sleep(SHORT_LEASE_MS + 100);

    // B takes the job over and follows the processor further.
    const b = instance();
    const ahead = await stepUntil(b, job.row.id, (r) => (r.pagesDone ?? 0) > stalledAt!);
    expect(ahead.state).toBe("running");

    // A wakes up: its write is refused, and its next cycle gives the job up.
    stall.open();
    await late;
    expect((await jobRow(app, job.row.id)).pagesDone).toBeGreaterThanOrEqual(ahead.pagesDone!);
    await a.runOnce();
    fake.faults.pageMs = 5;
    const done = await stepUntil(b, job.row.id, (r) => r.state === "imported" || r.state === "failed");
    expect(done).toMatchObject({ state: "imported", errorCode: null, pagesDone: 8 });
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId, state: "active" } })).toBe(1);
  });

  it("its import publishes nothing and leaves no journal entry; the job is imported once, by the other", async () => {
    const seriesId = await translatedSeries(app, "Late Import");
    const job = await queueJob(app, seriesId, "2", { pages: 3 });
    // A stalls inside its publication, right before the journal entry's transaction.
    const stall = gate();
    const a = instance({
      leaseMs: SHORT_LEASE_MS,
      db: hookedDb(app.ctx.db, { $transaction: () => stall.pass() }),
    });
    const { step: late } = await stepUntilStalled(a, stall);
    expect((await jobRow(app, job.row.id)).state).toBe("importing");
    await sleep(SHORT_LEASE_MS + 100);

    const b = instance();
    const imported = await stepUntil(b, job.row.id, (r) => r.state === "imported" || r.state === "failed");
    expect(imported).toMatchObject({ state: "imported", errorCode: null });

    stall.open();
    await late;
    expect(await jobRow(app, job.row.id)).toMatchObject({
      state: "imported",
      fileId: imported.fileId,
      errorCode: null,
      journalId: null,
    });
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
    const files = await app.ctx.db.libraryFile.findMany({ where: { seriesId, state: "active" } });
    expect(files.map((f) => f.id)).toEqual([imported.fileId]);
    expect(await app.ctx.db.chapterRelease.count({ where: { seriesId, fileId: { not: null } } })).toBe(1);
  });

  it("while its import's publication is in flight the job is not taken over; it commits and the job is imported once", async () => {
    const seriesId = await translatedSeries(app, "Import In Flight");
    const job = await queueJob(app, seriesId, "3", { pages: 3 });
    // A stalls inside its publication: the journal entry is there, the commit is not.
    const stall = gate();
    const a = instance({
      leaseMs: SHORT_LEASE_MS,
      db: stalledAtTransaction(app.ctx.db, stall, 2),
    });
    const { step: late } = await stepUntilStalled(a, stall);
    await sleep(SHORT_LEASE_MS + 100);
    const inFlight = await jobRow(app, job.row.id);
    expect(inFlight).toMatchObject({ state: "importing", journalId: expect.any(Number) });

    // B looks, and looks again: the job stays A's, nothing of it is fetched or published by B.
    const b = instance();
    const results = () => fake.requests.filter((r) => r.url === `/jobs/${job.id}/result`).length;
    const fetched = results();
    for (let i = 0; i < 3; i++) await b.runOnce();
    expect(await jobRow(app, job.row.id)).toMatchObject({ state: "importing", epoch: inFlight.epoch });
    expect(results()).toBe(fetched);

    stall.open();
    await late;
    const done = await jobRow(app, job.row.id);
    expect(done).toMatchObject({ state: "imported", errorCode: null, journalId: null, epoch: inFlight.epoch });
    const files = await app.ctx.db.libraryFile.findMany({ where: { seriesId, state: "active" } });
    expect(files.map((f) => f.id)).toEqual([done.fileId]);
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
    // B finds nothing left to do.
    await b.runOnce();
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId, state: "active" } })).toBe(1);
  });
});

describe("a worker's wake-up", () => {
  it("a job queued while the worker's cycle reads is still worked: the kick is not lost", async () => {
    // Nothing to work on when the cycle reads: without the job it goes to sleep after this cycle.
    expect(await app.ctx.db.translationJob.count({ where: { state: { in: [...WORKING_STATES] } } })).toBe(0);
    const seriesId = await translatedSeries(app, "Kicked While Reading");
    let armed = true;
    const read = gate();
    const w = instance({
      db: hookedDb(app.ctx.db, {
        // The worker's read of its working rows has returned (nothing); it waits here before deciding.
        "translationJob.findMany:after": async () => {
          if (!armed) return;
          armed = false;
          await read.pass();
        },
      }),
    });
    w.start();
    await read.reached;
    // Another connection queues a job and kicks the worker while that cycle still decides.
    const job = await queueJob(app, seriesId, "1");
    w.kick();
    read.open();
    // No other kick: the worker looks again and takes the job (its claim counts the epoch up).
    for (let i = 0; i < 100 && (await jobRow(app, job.row.id)).epoch === 0; i++) await sleep(50);
    expect((await jobRow(app, job.row.id)).epoch).toBeGreaterThan(0);
    await w.stop();
  });
});
