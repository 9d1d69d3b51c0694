/**
 * The writes of one download attempt. A fetching download's page count only grows: its job writes
 * the count while further pages arrive, and on PostgreSQL two such writes go out on two
 * connections and may commit in either order (a published download showed 1 of 6 pages). And an
 * attempt whose row another instance took over (its instance stalled past its lease, then woke
 * up) changes nothing: not the row, not the later attempt's staged file (test/instances-downloads
 * runs both with real processes). Also run on PostgreSQL.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCluster, type Cluster } from "../src/library/cluster.ts";
import { pageStats } from "../src/library/page-stats.ts";
import { leaseRepo } from "../src/repositories/lease-repo.ts";
import { downloadQueueRepo } from "../src/repositories/download-queue-repo.ts";
import {
  applyEvent,
  attemptStagingDir,
  downloadClaimKey,
  runJob,
  stagingDirOf,
  type JobDeps,
} from "../src/services/acquisition/download-pipeline-job.ts";
import { downloadPipeline } from "../src/services/acquisition/download-pipeline.ts";
import { downloadService } from "../src/services/acquisition/download-service.ts";
import { drawnChapter, fakeChapter, fakeWork, startFakeSuwayomi, type FakeSuwayomi } from "./fakes/suwayomi-server.ts";
import { fakeLookup, linkWork, pipelineApp, seriesWithSlots } from "./downloads-fixtures.ts";
import type { TestApp } from "./utils.ts";

let app: TestApp;
let fake: FakeSuwayomi;
let seriesId: number;
let mappingId: number;
let externalId: string;
const members: Cluster[] = [];

/** Another instance among several on the test's database (leases work on SQLite as on PostgreSQL). */
function member(): Cluster {
  const c = createCluster(leaseRepo(app.ctx.db), { exclusive: false, leaseMs: 60_000, log: () => {} });
  members.push(c);
  return c;
}

beforeAll(async () => {
  const work = fakeWork({
    id: 41,
    title: "Progress Lanes",
    chapters: [fakeChapter({ chapterNumber: 1, pages: await drawnChapter(4, 41) })],
  });
  fake = await startFakeSuwayomi({ works: [work] });
  app = await pipelineApp();
  seriesId = await seriesWithSlots(app, "Progress Lanes", ["1"]);
  mappingId = await linkWork(app, seriesId, work, { providerName: "suwayomi:lanes" });
  externalId = String(work.chapters[0]!.id);
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.stop()));
  await app.dispose();
  await fake.close();
});

/** A row in fetching, in its `attempts`-th attempt (the pipeline's workers never take fetching rows). */
const fetchingRow = (attempts: number) =>
  app.ctx.db.download.create({
    data: {
      seriesId,
      sourceMappingId: mappingId,
      externalId,
      kind: "chapter",
      chapter: "1",
      language: "en",
      state: "fetching",
      attempts,
      pagesDone: 1,
      pagesTotal: 4,
    },
  });
const rowOf = (id: number) => app.ctx.db.download.findUniqueOrThrow({ where: { id } });

function jobDeps(ctx = app.ctx): JobDeps {
  return {
    ctx,
    queue: downloadQueueRepo(app.ctx.db),
    downloads: downloadService(app.ctx),
    publication: app.services.publication,
    lookup: fakeLookup(app, fake).lookup,
    afterDegraded: async () => {},
  };
}

/** A staged file of attempt `attempt` (the later attempt: the instance that took the row over). */
async function attemptFile(id: number, attempt: number): Promise<string> {
  const dir = attemptStagingDir(app.ctx, id, attempt);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "later.cbz"), "later attempt");
  return dir;
}

describe("download progress", () => {
  it("a lower count written after a higher one leaves the higher one", async () => {
    const queue = downloadQueueRepo(app.ctx.db);
    const { id } = await fetchingRow(1);
    expect(await queue.progress(id, 1, 4)).toBe(true);
    expect(await queue.progress(id, 1, 2)).toBe(false);
    expect((await rowOf(id)).pagesDone).toBe(4);
  });

  it("writes in any order, at once, end at the highest", async () => {
    const queue = downloadQueueRepo(app.ctx.db);
    const { id } = await fetchingRow(1);
    await Promise.all([3, 6, 2, 5, 4].map((n) => queue.progress(id, 1, n)));
    expect((await rowOf(id)).pagesDone).toBe(6);
  });

  it("a row that left fetching, or another attempt's, keeps its count", async () => {
    const queue = downloadQueueRepo(app.ctx.db);
    const { id } = await fetchingRow(2);
    expect(await queue.progress(id, 1, 3)).toBe(false);
    await app.ctx.db.download.update({ where: { id }, data: { state: "queued" } });
    expect(await queue.progress(id, 2, 3)).toBe(false);
    expect((await rowOf(id)).pagesDone).toBe(1);
  });
});

describe("an attempt whose row was taken over", () => {
  it("runs to its end and changes nothing: no verdict, no file, the later attempt's staging kept", async () => {
    const row = await fetchingRow(2);
    const later = await attemptFile(row.id, 2);
    const filesBefore = await app.ctx.db.libraryFile.count({ where: { seriesId } });
    // The woken instance still believes it holds the claim (no renewal has told it otherwise yet).
    const stalled = member();
    expect(await stalled.claim(downloadClaimKey(row.id))).toBe(true);
    await runJob(jobDeps({ ...app.ctx, cluster: stalled }), { ...row, attempts: 1 }, new AbortController().signal);
    expect(await rowOf(row.id)).toMatchObject({ state: "fetching", attempts: 2, pagesDone: 1, verdict: null });
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId } })).toBe(filesBefore);
    expect(await readdir(later)).toEqual(["later.cbz"]);
    expect(await readdir(stagingDirOf(app.ctx, row.id))).toEqual(["2"]);
  });

  it("its events move nothing and remove only its own staging", async () => {
    const row = await fetchingRow(2);
    const later = await attemptFile(row.id, 2);
    const failed = await applyEvent(jobDeps(), { ...row, attempts: 1 }, "fetching", { type: "permanent", error: "x" });
    expect(failed).toBe(null);
    expect(await rowOf(row.id)).toMatchObject({ state: "fetching", attempts: 2, error: null });
    expect(await readdir(later)).toEqual(["later.cbz"]);
    const stats = await Promise.all(
      (await drawnChapter(4, 42)).map((p) => pageStats(p.bytes, app.config.archiveLimits)),
    );
    await expect(downloadService(app.ctx).judgeStats(row.id, stats, 1)).rejects.toMatchObject({
      code: "download_not_judgeable",
    });
    expect(await rowOf(row.id)).toMatchObject({ state: "fetching", attempts: 2, verdict: null });
  });

  it("a job whose claim is lost stops between pages and leaves the row to its new owner", async () => {
    const row = await fetchingRow(1);
    // An instance among several that holds no claim on the row (its lease ran out and was dropped).
    const requests = fake.requests.length;
    await runJob(jobDeps({ ...app.ctx, cluster: member() }), row, new AbortController().signal);
    expect(await rowOf(row.id)).toMatchObject({ state: "fetching", attempts: 1, verdict: null });
    expect(fake.requests.slice(requests).filter((r) => r.startsWith("GET "))).toEqual([]);
    await expect(readdir(stagingDirOf(app.ctx, row.id))).rejects.toThrow(/ENOENT/);
  });

  it("the recovery that takes a row over removes the staging of the attempts it took, not a later one's", async () => {
    // Only this test's row is mid-way (the others' instances are long gone in this story).
    await app.ctx.db.download.updateMany({ where: { seriesId }, data: { state: "failed" } });
    const row = await fetchingRow(1);
    const dirs = await Promise.all([0, 1, 2].map((a) => attemptFile(row.id, a)));
    const other = downloadPipeline(
      { ...app.ctx, cluster: member() },
      { downloads: downloadService(app.ctx), publication: app.services.publication, lookup: jobDeps().lookup },
    );
    expect(await other.resume()).toMatchObject({ requeued: 1 });
    expect(await rowOf(row.id)).toMatchObject({ state: "queued", attempts: 1, pagesDone: 0 });
    // Attempts 0 and 1 were this row's before the takeover; 2 stands for another instance's next one.
    expect(await readdir(stagingDirOf(app.ctx, row.id))).toEqual(["2"]);
    expect(await readdir(dirs[2]!)).toEqual(["later.cbz"]);
    await app.ctx.db.download.update({ where: { id: row.id }, data: { state: "failed" } });
  });
});
