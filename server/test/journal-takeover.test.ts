/**
 * A publication journal entry whose instance stalls past its lease (its event loop does not run, as
 * under SIGSTOP) and that the recovery sweep of another instance takes over: the entry is finished
 * or undone once, by the sweep, and the instance that wakes up moves nothing on disk and changes
 * nothing in the database (every step holds the entry's lease first). Disk and database agree
 * afterwards. Two cluster members on the test's database stand for the instances (also run on
 * PostgreSQL); downloads: download-takeover.test.ts.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import { createCluster, type Cluster } from "../src/library/cluster.ts";
import { createPublication } from "../src/library/publication.ts";
import { leaseRepo } from "../src/repositories/lease-repo.ts";
import type { AppContext } from "../src/services/context.ts";
import { gate, sleep, stalledAtTransaction } from "./claim-gates.ts";
import { createSeriesWithFiles, scanLibrary } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
const members: Cluster[] = [];
let seq = 0;

/** The stalling instance's leases run out after this long (it never renews them). */
const SHORT_LEASE_MS = 300;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.stop()));
  await app.dispose();
});

function instance(o: { leaseMs?: number; db?: AppContext["db"] } = {}) {
  const cluster = createCluster(leaseRepo(app.ctx.db), {
    exclusive: false,
    leaseMs: o.leaseMs ?? 60_000,
    log: () => {},
  });
  members.push(cluster);
  return createPublication({ ...app.ctx, cluster, ...(o.db ? { db: o.db } : {}) });
}

/** Two chapter files of a new series, scanned: their rows and absolute paths. */
async function twoFiles() {
  const s = await createSeriesWithFiles(app, `Journal Takeover ${++seq}`, { books: [], chapters: [1, 2] });
  await scanLibrary(app);
  const rows = await app.ctx.db.libraryFile.findMany({ where: { seriesId: s.id }, orderBy: { id: "asc" } });
  return { rows, abs: rows.map((r) => path.join(app.config.libraryRoot, ...r.path.split("/"))) };
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe("a journal entry taken over by another instance's recovery sweep", () => {
  it("a retirement undone by the sweep while its instance stalled before moving anything: it moves nothing when it wakes up", async () => {
    const { rows, abs } = await twoFiles();
    const stall = gate();
    const a = instance({
      leaseMs: SHORT_LEASE_MS,
      // A stalls once its journal entry is committed, before its first move.
      db: stalledAtTransaction(app.ctx.db, stall, 1, "after"),
    });
    const retiring = a.retire(
      rows.map((r) => r.id),
      "stalled retirement",
    );
    const outcome = retiring.catch((e: unknown) => e as { code?: string });
    await stall.reached;
    await sleep(SHORT_LEASE_MS + 100);

    expect(await instance().recoverExpired()).toEqual({ replayed: 0, rolledBack: 1 });
    stall.open();
    expect(await outcome).toMatchObject({ code: "journal_entry_taken_over" });

    for (const [i, row] of rows.entries()) {
      expect((await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: row.id } })).state).toBe("active");
      expect(await exists(abs[i]!)).toBe(true);
    }
    expect(await app.ctx.db.recycleEntry.count({ where: { fileId: { in: rows.map((r) => r.id) } } })).toBe(0);
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
  });

  it("a retirement finished by the sweep while its instance stalled after its moves: not committed again, nothing moved back", async () => {
    const { rows, abs } = await twoFiles();
    const stall = gate();
    const a = instance({
      leaseMs: SHORT_LEASE_MS,
      // A stalls once every file is in the bin, as the entry is to record it (its second transaction).
      db: stalledAtTransaction(app.ctx.db, stall, 2),
    });
    const outcome = a
      .retire(
        rows.map((r) => r.id),
        "stalled retirement",
      )
      .catch((e: unknown) => e as { code?: string });
    await stall.reached;
    await sleep(SHORT_LEASE_MS + 100);

    expect(await instance().recoverExpired()).toEqual({ replayed: 1, rolledBack: 0 });
    stall.open();
    expect(await outcome).toMatchObject({ code: "journal_entry_taken_over" });

    const entries = await app.ctx.db.recycleEntry.findMany({ where: { fileId: { in: rows.map((r) => r.id) } } });
    expect(entries.map((e) => e.fileId).sort()).toEqual(rows.map((r) => r.id).sort());
    for (const [i, row] of rows.entries()) {
      expect((await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: row.id } })).state).toBe("recycled");
      expect(await exists(abs[i]!)).toBe(false);
      const entry = entries.find((e) => e.fileId === row.id)!;
      expect(await exists(path.join(stateDirs(app.config).recycleBin, ...entry.binPath.split("/")))).toBe(true);
    }
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
  });
});
