/**
 * The raw reads of series rows and snapshots (repositories/series-rows.ts, snapshots-repo.ts)
 * against Prisma's model API on the same database: the same values, timestamps, booleans and nulls
 * included. Run on SQLite (series-rows.test.ts) and on PostgreSQL (postgres.test.ts).
 */
import { expect } from "vitest";
import type { Db } from "../src/db/client.ts";
import { parseLabel, type Label } from "../src/domain/labels.ts";
import { seriesRows } from "../src/repositories/series-rows.ts";
import { loadSnapshots } from "../src/repositories/snapshots-repo.ts";
import { verificationRepo } from "../src/repositories/verification-repo.ts";

const label = (s: string) => parseLabel(s) as Label;

export async function expectRawReadsAsPrisma(db: Db): Promise<void> {
  const plain = await db.series.create({ data: { title: "Plain Rows", folder: "Plain Rows" } });
  const full = await db.series.create({
    data: {
      title: "Full Rows",
      folder: "Full Rows",
      form: "books",
      language: "de",
      originalLanguage: "ja",
      status: "finished",
      knownBookCount: 12,
      editionBookCount: 6,
      webtoon: true,
      planWording: "chapters_first",
      monitored: false,
      assembleBooksAutomatically: true,
      translationFallbackEnabled: true,
      translationSourceLanguages: '["en","fr"]',
    },
  });
  const ids = [plain.id, full.id, 999_999];
  const viaPrisma = await db.series.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
  expect(await seriesRows(db, ids)).toEqual(viaPrisma);
  expect(await seriesRows(db, [])).toEqual([]);

  const proofs = verificationRepo(db);
  await proofs.put(full.id, {
    volume: label("2"),
    fileId: 41,
    digest: "sha256:ab",
    chapters: [label("7"), label("8.5")],
    sourceUrl: null,
    note: "checked by hand",
  });
  await proofs.put(full.id, {
    volume: label("1"),
    fileId: 40,
    digest: "sha256:cd",
    chapters: [label("1")],
    sourceUrl: "https://example.org/volume-1",
    note: "",
  });
  const snapshots = await loadSnapshots(db, ids);
  expect(snapshots.get(full.id)?.verifications).toEqual(await proofs.ofSeries(full.id));
  expect(snapshots.get(full.id)?.verifications.map((v) => v.fileId)).toEqual([41, 40]);
  expect(snapshots.get(plain.id)?.verifications).toEqual([]);
  expect(snapshots.has(999_999)).toBe(false);
  await expectSnapshotAsPrisma(db, full.id, plain.id);
}

/** Every part of a snapshot, read raw, against the same rows read through the model API. */
async function expectSnapshotAsPrisma(db: Db, seriesId: number, otherId: number): Promise<void> {
  const operator = await db.mapSource.create({ data: { seriesId, kind: "operator", name: "operator", revision: 3 } });
  await db.mapSource.create({ data: { seriesId, kind: "reading", name: "reading" } });
  await db.mapEntry.createMany({
    data: [
      { sourceId: operator.id, volume: "1", chapters: '["1","2","2.5"]' },
      { sourceId: operator.id, volume: "2", chapters: "[]" },
    ],
  });
  await db.volumeSlot.createMany({
    data: [
      { seriesId, number: "1" },
      { seriesId, number: "2", monitored: false },
    ],
  });
  await db.chapterSlot.createMany({
    data: [
      { seriesId, number: "1" },
      { seriesId, number: "2", parts: 2, monitored: false },
      { seriesId, number: "2.5", extra: true, title: "Omake" },
      { seriesId: otherId, number: "9" },
    ],
  });
  const file = (over: Record<string, unknown>) => ({
    seriesId,
    path: `Full Rows/${String(over.path)}`,
    size: 1000n,
    mtimeMs: 1_700_000_000_000n,
    sha256: "ab".repeat(32),
    pageCount: 20,
    kind: "chapter",
    ...over,
  });
  await db.libraryFile.createMany({
    data: [
      file({ path: "v01.cbz", kind: "book", volume: "1", tagSource: "comicinfo", language: "ja", origin: "assembled" }),
      file({ path: "c002 part 1.cbz", chapter: "2", part: 1 }),
      file({ path: "c001-002.cbz", chapter: "1", chapterEnd: "2" }),
      file({ path: "old.cbz", chapter: "1", state: "recycled" }),
    ],
  });
  const files = await db.libraryFile.findMany({ where: { seriesId, state: "active" }, orderBy: { id: "asc" } });
  const provenance = JSON.stringify({
    version: 1,
    volume: "1",
    chapters: ["1", "2"],
    sourceReleaseIds: [7],
    files: [],
  });
  await db.chapterRelease.createMany({
    data: [
      { seriesId, kind: "volume", volume: "1", fileId: files[0]!.id, language: "ja", assembledFrom: provenance },
      { seriesId, kind: "chapter", chapter: "2", part: 1, fileId: files[1]!.id },
      { seriesId, kind: "chapter", chapter: "3" },
    ],
  });

  const snapshot = (await loadSnapshots(db, [seriesId, otherId])).get(seriesId);
  const where = { where: { seriesId }, orderBy: { id: "asc" as const } };
  const series = (await db.series.findUnique({ where: { id: seriesId } }))!;
  expect(snapshot?.series).toEqual({
    id: series.id,
    title: series.title,
    status: series.status,
    knownBookCount: series.knownBookCount,
    editionBookCount: series.editionBookCount,
    webtoon: series.webtoon,
    formOverride: series.form,
    planWording: series.planWording,
    monitored: series.monitored,
    language: series.language,
  });
  const sources = await db.mapSource.findMany({ ...where, include: { entries: { orderBy: { id: "asc" } } } });
  expect(snapshot?.mapSources).toEqual(
    sources.map((s) => ({
      id: s.id,
      kind: s.kind,
      name: s.name,
      revision: s.revision,
      entries: s.entries.map((e) => ({ volume: e.volume, chapters: JSON.parse(e.chapters) as string[] })),
    })),
  );
  expect(snapshot?.volumes).toEqual(
    (await db.volumeSlot.findMany(where)).map((v) => ({ id: v.id, number: v.number, monitored: v.monitored })),
  );
  expect(snapshot?.chapters).toEqual(
    (await db.chapterSlot.findMany(where)).map((c) => ({
      id: c.id,
      number: c.number,
      monitored: c.monitored,
      parts: c.parts,
      extra: c.extra,
      title: c.title,
    })),
  );
  expect(snapshot?.files).toEqual(
    files.map((f) => ({
      id: f.id,
      path: f.path,
      kind: f.kind,
      volume: f.volume,
      chapter: f.chapter,
      chapterEnd: f.chapterEnd,
      part: f.part,
      pageCount: f.pageCount,
      sha256: f.sha256,
      origin: f.origin,
      language: f.language,
      tagSource: f.tagSource,
    })),
  );
  expect(snapshot?.releases).toEqual(
    (await db.chapterRelease.findMany(where)).map((r) => ({
      id: r.id,
      kind: r.kind,
      volume: r.volume,
      chapter: r.chapter,
      part: r.part,
      fileId: r.fileId,
      language: r.language,
      assembledFrom:
        r.assembledFrom === null
          ? null
          : { version: 1, volume: "1", chapters: ["1", "2"], sourceReleaseIds: [7], files: [] },
    })),
  );
}
