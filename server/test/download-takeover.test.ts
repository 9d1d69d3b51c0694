/**
 * A download whose instance stalls past its lease around its publication, and another instance
 * that takes it over (its recovery sweep: the journal first, then the downloads). The publication
 * of a download goes ahead only while its attempt is still the row's, checked in the journal
 * entry's own transaction, and its commit records the file on the row: the takeover never queues a
 * download whose publication is in flight or committed, and a journal entry the sweep finished is
 * not finished again by the instance that wakes up. Whatever the order, the library ends with one
 * file for the download and none lost; nor does a Wanted pass that reads while the download
 * publishes queue its chapter a second time. Two cluster members on the test's database stand for
 * the two instances (leases work on SQLite as on PostgreSQL; also run on PostgreSQL).
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCluster, type Cluster } from "../src/library/cluster.ts";
import { createPublication, type Publication } from "../src/library/publication.ts";
import { leaseRepo } from "../src/repositories/lease-repo.ts";
import { downloadQueueRepo } from "../src/repositories/download-queue-repo.ts";
import {
  attemptStagingDir,
  downloadClaimKey,
  runJob,
  type JobDeps,
} from "../src/services/acquisition/download-pipeline-job.ts";
import { downloadPipeline } from "../src/services/acquisition/download-pipeline.ts";
import { downloadService } from "../src/services/acquisition/download-service.ts";
import { wantedService } from "../src/services/acquisition/wanted-service.ts";
import type { AppContext } from "../src/services/context.ts";
import { gate, hookedDb, sleep, stalledAtTransaction, type Gate } from "./claim-gates.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSuwayomi,
  type FakeWork,
} from "./fakes/suwayomi-server.ts";
import { fakeLookup, linkWork, pipelineApp, seriesWithSlots } from "./downloads-fixtures.ts";
import type { TestApp } from "./utils.ts";

let app: TestApp;
let fake: FakeSuwayomi;
let seriesId: number;
let mappingId: number;
let externalId: string;
let work: FakeWork;
const members: Cluster[] = [];

/** The stalling instance's leases run out after this long (it never renews them). */
const SHORT_LEASE_MS = 300;

function member(leaseMs = 60_000): Cluster {
  const c = createCluster(leaseRepo(app.ctx.db), { exclusive: false, leaseMs, log: () => {} });
  members.push(c);
  return c;
}

beforeAll(async () => {
  work = fakeWork({
    id: 43,
    title: "Takeover Lanes",
    chapters: [fakeChapter({ chapterNumber: 1, pages: await drawnChapter(4, 43) })],
  });
  fake = await startFakeSuwayomi({ works: [work] });
  app = await pipelineApp();
  seriesId = await seriesWithSlots(app, "Takeover Lanes", ["1"]);
  mappingId = await linkWork(app, seriesId, work, { providerName: "suwayomi:takeover" });
  externalId = String(work.chapters[0]!.id);
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.stop()));
  await app.dispose();
  await fake.close();
});
// Each test's download is the only one mid-way (the others' instances are long gone in its story).
beforeEach(async () => {
  await app.ctx.db.download.updateMany({ where: { seriesId }, data: { state: "failed" } });
});

const rowOf = (id: number) => app.ctx.db.download.findUniqueOrThrow({ where: { id } });

/** What the library holds of this chapter: files of the series, releases naming a file. */
async function library() {
  return {
    files: await app.ctx.db.libraryFile.count({ where: { seriesId, state: "active" } }),
    releases: await app.ctx.db.chapterRelease.count({ where: { seriesId, externalId, fileId: { not: null } } }),
    journal: await app.ctx.db.publicationJournal.count(),
  };
}

/**
 * Instance A's job on a download it claimed (attempt 1), started and left running: its leases run
 * out after SHORT_LEASE_MS, as those of an instance that stalled.
 */
async function stalledJob(o: {
  db?: AppContext["db"];
  publication?: (ctx: AppContext) => JobDeps["publication"];
  series?: { id: number; mappingId: number };
}) {
  const row = await app.ctx.db.download.create({
    data: {
      seriesId: o.series?.id ?? seriesId,
      sourceMappingId: o.series?.mappingId ?? mappingId,
      externalId,
      kind: "chapter",
      chapter: "1",
      language: "en",
      state: "fetching",
      attempts: 1,
    },
  });
  const a = member(SHORT_LEASE_MS);
  expect(await a.claim(downloadClaimKey(row.id))).toBe(true);
  const ctx: AppContext = { ...app.ctx, cluster: a, ...(o.db ? { db: o.db } : {}) };
  const deps: JobDeps = {
    ctx,
    queue: downloadQueueRepo(app.ctx.db),
    downloads: downloadService(app.ctx),
    publication: o.publication?.(ctx) ?? createPublication(ctx),
    lookup: fakeLookup(app, fake).lookup,
    afterDegraded: async () => {},
  };
  const job = runJob(deps, row, new AbortController().signal);
  return { row, job };
}

/**
 * A's publication, held at `stall` until it opens; `settled()` is the publication that followed
 * (resolved whatever its outcome).
 */
function publicationAfter(stall: Gate) {
  let settled: Promise<unknown> = Promise.resolve();
  return {
    publication: (ctx: AppContext): Publication => {
      const real = createPublication(ctx);
      return {
        ...real,
        publish: async (input) => {
          await stall.pass();
          const p = real.publish(input);
          settled = p.catch(() => undefined);
          return p;
        },
      };
    },
    settled: () => settled,
  };
}

/** Instance B: its download workers' recovery (and its publication, for the journal's). */
function instanceB(db: AppContext["db"] = app.ctx.db) {
  const ctx: AppContext = { ...app.ctx, cluster: member(), db };
  const publication = createPublication(ctx);
  const pipeline = downloadPipeline(ctx, {
    downloads: downloadService(app.ctx),
    publication,
    lookup: fakeLookup(app, fake).lookup,
  });
  return { pipeline, publication };
}

describe("a download whose instance stalls around its publication", () => {
  it("publishing exactly while the instance taking it over is between its look and its move: published once, never queued again", async () => {
    const before = await library();
    // A stalls right after its download moved to publishing, before its publication began.
    const stall = gate();
    const held = publicationAfter(stall);
    const { row, job } = await stalledJob({
      publication: held.publication,
    });
    await stall.reached;
    await sleep(SHORT_LEASE_MS + 100);
    expect(await rowOf(row.id)).toMatchObject({ state: "publishing", attempts: 1 });

    // B takes the row over; at the very moment it writes the row back to the queue, A wakes up and
    // publishes (its whole publication commits before B's write reaches the database).
    let raced = false;
    const b = instanceB(
      hookedDb(app.ctx.db, {
        "download.updateMany": async (args) => {
          const a = args as { where: { id?: number }; data: { state?: string } };
          if (raced || a.where.id !== row.id || a.data.state !== "queued") return;
          raced = true;
          stall.open();
          await sleep(0);
          await held.settled();
        },
      }),
    );
    await b.pipeline.resume();
    expect(raced).toBe(true);
    await job;

    const after = await rowOf(row.id);
    expect(after).toMatchObject({ state: "published", attempts: 1, journalId: null });
    const now = await library();
    expect(now).toEqual({ files: before.files + 1, releases: before.releases + 1, journal: 0 });
    const file = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: after.fileId! } });
    expect((await stat(path.join(app.config.libraryRoot, file.path))).isFile()).toBe(true);
  });

  it("its publication in flight keeps the row from the takeover (and its staged file), then commits", async () => {
    const before = await library();
    // A stalls inside its publication: the journal entry is there, the commit is not.
    const stall = gate();
    const db = stalledAtTransaction(app.ctx.db, stall, 2);
    const { row, job } = await stalledJob({ db });
    await stall.reached;
    await sleep(SHORT_LEASE_MS + 100);
    expect(await app.ctx.db.publicationJournal.count()).toBe(1);

    const b = instanceB();
    expect(await b.pipeline.resume()).toMatchObject({ requeued: 0, published: 0 });
    expect(await rowOf(row.id)).toMatchObject({ state: "publishing", attempts: 1 });
    const staged = path.join(attemptStagingDir(app.ctx, row.id, 1), "Takeover Lanes - c001.cbz");
    expect((await stat(staged)).isFile()).toBe(true);

    // A wakes up; nobody took its journal entry: its publication commits, the row is published.
    stall.open();
    await job;
    const after = await rowOf(row.id);
    expect(after).toMatchObject({ state: "published", attempts: 1, journalId: null });
    expect(await library()).toEqual({ files: before.files + 1, releases: before.releases + 1, journal: 0 });
  });

  it("its journal entry finished by the recovery sweep of another instance is not finished again when it wakes up", async () => {
    const before = await library();
    const stall = gate();
    const db = stalledAtTransaction(app.ctx.db, stall, 2);
    const { row, job } = await stalledJob({ db });
    await stall.reached;
    await sleep(SHORT_LEASE_MS + 100);

    // B's sweep: the journal entry whose lease ran out first, then the downloads.
    const b = instanceB();
    expect(await b.publication.recoverExpired()).toEqual({ replayed: 1, rolledBack: 0 });
    expect(await b.pipeline.resume()).toMatchObject({ requeued: 0, published: 1 });
    const published = await rowOf(row.id);
    expect(published).toMatchObject({ state: "published", attempts: 1, journalId: null });
    expect(await library()).toEqual({ files: before.files + 1, releases: before.releases + 1, journal: 0 });

    // A wakes up in the middle of the entry B finished: it changes nothing.
    stall.open();
    await job;
    expect(await rowOf(row.id)).toMatchObject({ state: "published", fileId: published.fileId, error: null });
    expect(await library()).toEqual({ files: before.files + 1, releases: before.releases + 1, journal: 0 });
    const file = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: published.fileId! } });
    expect((await stat(path.join(app.config.libraryRoot, file.path))).isFile()).toBe(true);
  });

  it("an attempt another instance queued again publishes nothing when it wakes up", async () => {
    const before = await library();
    const stall = gate();
    const held = publicationAfter(stall);
    const { row, job } = await stalledJob({
      publication: held.publication,
    });
    await stall.reached;
    await sleep(SHORT_LEASE_MS + 100);
    // B queues the row again; A wakes up and publishes right after that, before B looks at the
    // staging folders (its staged file is still there).
    let requeued = false;
    let woke = false;
    const b = instanceB(
      hookedDb(app.ctx.db, {
        "download.updateMany": async (args) => {
          const a = args as { where: { id?: number }; data: { state?: string } };
          if (a.where.id === row.id && a.data.state === "queued") requeued = true;
        },
        "download.findUnique": async () => {
          if (!requeued || woke) return;
          woke = true;
          stall.open();
          await sleep(0);
          await held.settled();
        },
      }),
    );
    expect(await b.pipeline.resume()).toMatchObject({ requeued: 1 });
    expect(woke).toBe(true);
    await job;
    expect(await rowOf(row.id)).toMatchObject({ state: "queued", attempts: 1, fileId: null, journalId: null });
    expect(await library()).toEqual(before);
    // Its staging is gone (its attempt's own folder, nothing journalled names it).
    await expect(stat(attemptStagingDir(app.ctx, row.id, 1))).rejects.toThrow(/ENOENT/);
  });

  it("a Wanted pass that reads while the download publishes does not queue its chapter again", async () => {
    const series = await seriesWithSlots(app, `Takeover Pass`, ["1"]);
    const mapping = await linkWork(app, series, work, { providerName: "suwayomi:takeover" });
    const stall = gate();
    const held = publicationAfter(stall);
    const { row, job } = await stalledJob({
      series: { id: series, mappingId: mapping },
      publication: held.publication,
    });
    await stall.reached;
    // The download publishes right after the pass read the series' library files.
    let woke = false;
    const db = hookedDb(app.ctx.db, {
      "$queryRaw:after": async (query) => {
        if (woke || !String((query as { sql?: string }).sql).includes("library_file")) return;
        woke = true;
        stall.open();
        await sleep(0);
        await held.settled();
        await job;
      },
    });
    const pass = await wantedService({ ...app.ctx, db }, { kick: () => {} }).runPass(series, { force: true });
    expect(woke).toBe(true);
    expect(await rowOf(row.id)).toMatchObject({ state: "published" });
    expect(pass.queued).toBe(0);
    expect(await app.ctx.db.download.count({ where: { seriesId: series } })).toBe(1);
  });
});

describe("a download judged by hand", () => {
  it("is not taken over by its own instance's recovery sweep while it is judged", async () => {
    const row = await app.ctx.db.download.create({
      data: { seriesId, kind: "chapter", chapter: "1", language: "en", state: "judging" },
    });
    const cluster = member();
    // The judgement stalls right after it moved the row to judging; the sweep runs meanwhile.
    const stall = gate();
    const real = app.ctx.repos.downloads;
    const downloads: typeof real = {
      ...real,
      transition: async (...args: Parameters<typeof real.transition>) => {
        const moved = await real.transition(...args);
        if (args[2].state === "judging") await stall.pass();
        return moved;
      },
    };
    const ctx: AppContext = { ...app.ctx, cluster, repos: { ...app.ctx.repos, downloads } };
    const pages = (await drawnChapter(2, 44)).map((p) => p.bytes);
    const judged = downloadService(ctx).judge(row.id, pages);
    await stall.reached;
    const pipeline = downloadPipeline(ctx, {
      downloads: downloadService(ctx),
      publication: createPublication(ctx),
      lookup: fakeLookup(app, fake).lookup,
    });
    expect(await pipeline.resume()).toMatchObject({ requeued: 0 });
    // Another instance's sweep does not take it either: the claim is held.
    expect((await instanceB().pipeline.resume()).requeued).toBe(0);
    expect(await rowOf(row.id)).toMatchObject({ state: "judging" });
    stall.open();
    await judged;
    expect((await rowOf(row.id)).state).toMatch(/^(publishing|degraded)$/);
    expect(cluster.holds(downloadClaimKey(row.id))).toBe(false);
  });
});
