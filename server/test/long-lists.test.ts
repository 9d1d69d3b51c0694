/**
 * Lists longer than the SQLite driver binds in one statement (999 values): a series of a few
 * thousand chapters, a library of a thousand series. Every repository call whose IN list grows with
 * the library answers for such lists (repositories/in-chunks.ts) instead of failing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileIdentities, mappingStates, releasesAndMappings } from "../src/repositories/audit-repo.ts";
import { calendarRepo } from "../src/repositories/calendar-repo.ts";
import { catalogueRepo } from "../src/repositories/catalogue-repo.ts";
import { downloadQueueRepo } from "../src/repositories/download-queue-repo.ts";
import { fileRepo } from "../src/repositories/file-repo.ts";
import { IN_CHUNK, chunksOf, countInChunks, inChunks } from "../src/repositories/in-chunks.ts";
import { pageSignatureRepo } from "../src/repositories/page-signature-repo.ts";
import { readingRepo } from "../src/repositories/reading-repo.ts";
import { slotRepo } from "../src/repositories/slot-repo.ts";
import { label } from "../src/domain/labels.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const FILES = 2_400;
const SERIES = 1_200;
let app: TestApp;
let fileIds: number[];
let seriesIds: number[];

beforeAll(async () => {
  app = await createTestApp();
  const db = app.ctx.db;
  await db.series.createMany({
    data: Array.from({ length: SERIES }, (_, i) => ({ title: `Series ${i}`, folder: `Series ${i}` })),
  });
  seriesIds = (await db.series.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((s) => s.id);
  const first = seriesIds[0]!;
  await db.libraryFile.createMany({
    data: Array.from({ length: FILES }, (_, i) => ({
      seriesId: first,
      path: `Series 0/c${i}.cbz`,
      size: 100n,
      mtimeMs: 1n,
      sha256: i.toString(16).padStart(64, "0"),
      pageCount: 3,
      kind: "chapter",
      chapter: String(i + 1),
    })),
  });
  fileIds = (await db.libraryFile.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((f) => f.id);
  await db.readProgress.createMany({
    data: fileIds.map((fileId) => ({ userName: "admin", fileId, page: 1, completed: false, updatedAt: new Date() })),
  });
}, 120_000);
afterAll(() => app?.close());

describe("the chunk helpers", () => {
  it("split, deduplicate and add up", async () => {
    const values = [...Array.from({ length: 1_234 }, (_, i) => i), 5, 5];
    expect(chunksOf(values).map((c) => c.length)).toEqual([IN_CHUNK, IN_CHUNK, 1_234 - 2 * IN_CHUNK]);
    const seen: number[] = [];
    expect(await inChunks(values, async (c) => (seen.push(c.length), c))).toHaveLength(1_234);
    expect(seen).toHaveLength(3);
    expect(await countInChunks(values, async (c) => ({ count: c.length }))).toEqual({ count: 1_234 });
    expect(await inChunks([], async () => [1])).toEqual([]);
  });
});

describe("repository calls with long lists", () => {
  it("files, releases and mappings of a long series", async () => {
    const db = app.ctx.db;
    expect((await fileRepo(db).activeAmong(fileIds)).size).toBe(FILES);
    expect(await downloadQueueRepo(db).activeFileIds(fileIds)).toHaveLength(FILES);
    const identities = await fileIdentities(db, app.ctx.config.libraryRoot, fileIds);
    expect(identities.map((f) => f.id)).toEqual(fileIds);
    expect((await releasesAndMappings(db, fileIds)).releases).toEqual([]);
    expect(await mappingStates(db, fileIds)).toEqual([]);
  });

  it("page signatures of a long series", async () => {
    const sha = Array.from({ length: FILES }, (_, i) => i.toString(16).padStart(64, "0"));
    const repo = pageSignatureRepo(app.ctx.db);
    expect((await repo.lastPages(sha)).size).toBe(0);
    expect((await repo.byContent(sha)).size).toBe(0);
  });

  it("reading places on a long series", async () => {
    const repo = readingRepo(app.ctx.db);
    expect(await repo.progressFor("admin", fileIds)).toHaveLength(FILES);
    expect((await repo.assembledProvenance(fileIds)).size).toBe(0);
    const recent = await repo.recentProgress("admin", { take: 5 });
    expect(recent.length).toBeGreaterThan(0);
    expect(await repo.clearProgress("admin", fileIds)).toEqual({ count: FILES });
  });

  it("a library of many series: covers, calendar offers, slots of a first scan", async () => {
    const db = app.ctx.db;
    expect((await catalogueRepo(db).seriesWithCovers(seriesIds)).size).toBe(0);
    expect(await calendarRepo(db).datedOffers(seriesIds)).toEqual([]);
    const r = await slotRepo(db).ensureMany(
      seriesIds.map((seriesId) => ({
        seriesId,
        monitored: true,
        volumes: [label("1")],
        chapters: [{ number: label("1") }],
      })),
    );
    expect(r).toEqual({ volumes: SERIES, chapters: SERIES });
  });
});
