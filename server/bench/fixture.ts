/**
 * Benchmark data: series rows written with Prisma createMany into a migrated SQLite database.
 *
 * The large series ("Long Run", running): 2,000 chapter slots "1".."2000", 150 volume slots, an
 * operator map of 150 books × 13 chapters (book v holds 13(v-1)+1 .. 13v, so chapters 1951..2000
 * are the uncollected tail), every 25th chapter split in 2 parts.
 * - Books 1..120 are owned: one book file each (ComicInfo-tagged, 180–220 pages).
 * - Chapters of books 121..150 and the tail are on disk as chapter files, split chapters as one
 *   file per part; the last split chapter of the tail misses its part 2.
 * - The chapter files the owned books replaced are still in library_file as `recycled` rows (the
 *   history of retired duplicates): the active-files select must filter them, the release select
 *   still returns their releases.
 * - One release per file (book file → volume release, chapter file → chapter release).
 *
 * The small series ("Short One", 10 chapters, 1 book holding 1..8, chapters 9 and 10 on disk)
 * exists to show that the statement count does not depend on the size of the series.
 */
import type { Db } from "../src/db/client.ts";

export interface SeriesShape {
  title: string;
  chapters: number;
  books: number;
  chaptersPerBook: number;
  ownedBooks: number;
  /** Chapters n with n % splitEvery === 0 are published in 2 parts (0 = none). */
  splitEvery: number;
  /** Keep the chapter files the owned books replaced as recycled rows. */
  recycledHistory: boolean;
}

export const LARGE: SeriesShape = {
  title: "Long Run",
  chapters: 2000,
  books: 150,
  chaptersPerBook: 13,
  ownedBooks: 120,
  splitEvery: 25,
  recycledHistory: true,
};

export const SMALL: SeriesShape = {
  title: "Short One",
  chapters: 10,
  books: 1,
  chaptersPerBook: 8,
  ownedBooks: 1,
  splitEvery: 0,
  recycledHistory: false,
};

/* ---- what both fixtures (this one and audit-fixture.ts) write rows with ---- */

export const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** A deterministic 64-hex-digit digest (xorshift32 from the seed; seed 0 starts from 1). */
export function fakeSha(seed: number): string {
  let out = "";
  let x = (seed * 2654435761) >>> 0 || 1;
  while (out.length < 64) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    out += x.toString(16).padStart(8, "0");
  }
  return out.slice(0, 64);
}

/** One library_file row as createMany takes it. */
export interface LibraryFileRow {
  seriesId: number;
  path: string;
  size: bigint;
  mtimeMs: bigint;
  sha256: string;
  pageCount: number;
  kind: string;
  volume: string | null;
  chapter: string | null;
  chapterEnd: string | null;
  part: number | null;
  tagSource: string | null;
  language: string;
  origin: string;
  state: string;
  recycledAt?: Date | null;
}

const CHUNK = 500;

/** Writes rows CHUNK at a time (one createMany per chunk). */
export async function createManyChunked<T>(rows: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await write(rows.slice(i, i + CHUNK));
}

/* ---- the units benchmark's series ---- */

/** Writes one series with its slots, operator map, files and releases; returns the series id. */
export async function seedSeries(db: Db, shape: SeriesShape): Promise<number> {
  const folder = shape.title;
  const series = await db.series.create({
    data: { title: shape.title, folder, status: "running", knownBookCount: null, language: "en" },
  });
  const seriesId = series.id;
  const split = (n: number) => shape.splitEvery > 0 && n % shape.splitEvery === 0;
  const bookOf = (n: number) =>
    n <= shape.books * shape.chaptersPerBook ? Math.ceil(n / shape.chaptersPerBook) : null;

  await createManyChunked(
    Array.from({ length: shape.books }, (_, i) => ({ seriesId, number: String(i + 1), monitored: true })),
    (data) => db.volumeSlot.createMany({ data }),
  );
  await createManyChunked(
    Array.from({ length: shape.chapters }, (_, i) => ({
      seriesId,
      number: String(i + 1),
      monitored: true,
      parts: split(i + 1) ? 2 : 1,
      extra: false,
    })),
    (data) => db.chapterSlot.createMany({ data }),
  );

  const source = await db.mapSource.create({ data: { seriesId, kind: "operator", name: "operator", revision: 1 } });
  const entries = Array.from({ length: shape.books }, (_, i) => {
    const first = i * shape.chaptersPerBook + 1;
    const chapters = Array.from({ length: shape.chaptersPerBook }, (_, k) => String(first + k)).filter(
      (c) => Number(c) <= shape.chapters,
    );
    return { sourceId: source.id, volume: String(i + 1), chapters: JSON.stringify(chapters) };
  });
  await createManyChunked(entries, (data) => db.mapEntry.createMany({ data }));

  const files: LibraryFileRow[] = [];
  const base = { seriesId, language: "en", chapterEnd: null, recycledAt: null };
  const mtime = BigInt(Date.UTC(2026, 0, 1));
  for (let v = 1; v <= shape.ownedBooks; v++) {
    files.push({
      ...base,
      path: `${folder}/${folder} v${pad(v, 3)}.cbz`,
      size: BigInt(90_000_000 + v * 1000),
      mtimeMs: mtime + BigInt(v),
      sha256: fakeSha(seriesId * 100_000 + v),
      pageCount: 180 + (v % 41),
      kind: "book",
      volume: String(v),
      chapter: null,
      part: null,
      tagSource: "comicinfo",
      origin: "scan",
      state: "active",
    });
  }
  const lastSplit = (() => {
    for (let n = shape.chapters; n > 0; n--) if (split(n)) return n;
    return 0;
  })();
  for (let n = 1; n <= shape.chapters; n++) {
    const book = bookOf(n);
    const replaced = book !== null && book <= shape.ownedBooks;
    if (replaced && !shape.recycledHistory) continue;
    const parts = split(n) ? [1, 2] : [null];
    for (const part of parts) {
      if (!replaced && n === lastSplit && part === 2) continue; // a split chapter with a part missing
      const name = `${folder} c${pad(n, 4)}${part === null ? "" : ` (part ${part})`}.cbz`;
      files.push({
        ...base,
        path: replaced ? `.recycle/${folder}/${name}` : `${folder}/${name}`,
        size: BigInt(9_000_000 + n),
        mtimeMs: mtime + BigInt(10_000 + n),
        sha256: fakeSha(seriesId * 100_000 + 10_000 + n * 3 + (part ?? 0)),
        pageCount: part === null ? 20 + (n % 7) : 10,
        kind: "chapter",
        volume: null,
        chapter: String(n),
        part,
        tagSource: "filename",
        origin: "download",
        state: replaced ? "recycled" : "active",
        recycledAt: replaced ? new Date(Date.UTC(2026, 5, 1)) : null,
      });
    }
  }
  await createManyChunked(files, (data) => db.libraryFile.createMany({ data }));

  const written = await db.libraryFile.findMany({
    where: { seriesId },
    select: { id: true, kind: true, volume: true, chapter: true, part: true },
    orderBy: { id: "asc" },
  });
  const releases = written.map((f) => ({
    seriesId,
    kind: f.kind === "book" ? "volume" : "chapter",
    volume: f.volume,
    chapter: f.chapter,
    part: f.part,
    language: "en",
    fileId: f.id,
  }));
  await createManyChunked(releases, (data) => db.chapterRelease.createMany({ data }));
  return seriesId;
}

/** Rows per table (all series), and the active files alone. */
export async function rowCounts(db: Db): Promise<{ table: string; rows: number }[]> {
  const [series, volumes, chapters, sources, entries, files, active, releases] = await Promise.all([
    db.series.count(),
    db.volumeSlot.count(),
    db.chapterSlot.count(),
    db.mapSource.count(),
    db.mapEntry.count(),
    db.libraryFile.count(),
    db.libraryFile.count({ where: { state: "active" } }),
    db.chapterRelease.count(),
  ]);
  return [
    { table: "series", rows: series },
    { table: "map_source", rows: sources },
    { table: "volume_slot", rows: volumes },
    { table: "chapter_slot", rows: chapters },
    { table: "map_entry", rows: entries },
    { table: "library_file", rows: files },
    { table: "  of which active", rows: active },
    { table: "chapter_release", rows: releases },
  ];
}
