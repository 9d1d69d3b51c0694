/**
 * The audit benchmark's series: 10,000 library_file rows written with Prisma createMany (no file on
 * disk: the audit list must not need one).
 *
 * "Audit Run" is a long-running series with 2,500 chapter slots and 150 volume slots under an
 * operator map of 150 books × 13 chapters. Its files, all active:
 * - 40 book files (v1–v40, scanned): the chapter files of those books are duplicates;
 * - 2,500 chapter files in English from provider A, 2,490 from provider B (10 chapters skipped, so
 *   some files carry a numbering gap), 2,500 in French from provider A: each downloaded through a
 *   source mapping, with one release and one published download carrying a conformity verdict
 *   (1 in 100 degraded by black cards);
 * - 2,470 scanned chapter files (no source).
 * Every 50th chapter file has 6 pages (few pages).
 */
import type { Db } from "../src/db/client.ts";
import { createManyChunked, fakeSha, pad, type LibraryFileRow } from "./fixture.ts";

export const AUDIT_FILES = 10_000;
const CHAPTERS = 2500;
const BOOKS = 150;
const PER_BOOK = 13;
const OWNED_BOOKS = 40;
const SCANNED_CHAPTERS = 2470;

/** A file row and, for a downloaded one, the SOURCES key it came from (not a column). */
interface FileRow extends LibraryFileRow {
  source: string | null;
}

interface Source {
  key: string;
  provider: string;
  sourceId: string;
  language: string;
  skip: (n: number) => boolean;
}
const SOURCES: Source[] = [
  { key: "a-en", provider: "bench-provider-a", sourceId: "work-a-en", language: "en", skip: () => false },
  { key: "b-en", provider: "bench-provider-b", sourceId: "work-b-en", language: "en", skip: (n) => n % 250 === 17 },
  { key: "a-fr", provider: "bench-provider-a", sourceId: "work-a-fr", language: "fr", skip: () => false },
];

/** Writes the series and returns its id; the caller checks the row count. */
export async function seedAuditSeries(db: Db): Promise<number> {
  const title = "Audit Run";
  const { id: seriesId } = await db.series.create({
    data: { title, folder: title, status: "running", language: "en" },
  });
  await createManyChunked(
    Array.from({ length: BOOKS }, (_, i) => ({ seriesId, number: String(i + 1) })),
    (data) => db.volumeSlot.createMany({ data }),
  );
  await createManyChunked(
    Array.from({ length: CHAPTERS }, (_, i) => ({ seriesId, number: String(i + 1) })),
    (data) => db.chapterSlot.createMany({ data }),
  );
  const map = await db.mapSource.create({ data: { seriesId, kind: "operator", name: "operator", revision: 1 } });
  await createManyChunked(
    Array.from({ length: BOOKS }, (_, v) => ({
      sourceId: map.id,
      volume: String(v + 1),
      chapters: JSON.stringify(Array.from({ length: PER_BOOK }, (_, k) => String(v * PER_BOOK + k + 1))),
    })),
    (data) => db.mapEntry.createMany({ data }),
  );

  const mappingIds = new Map<string, { providerId: number; mappingId: number }>();
  for (const s of SOURCES) {
    const p = await db.provider.upsert({
      where: { name: s.provider },
      create: { name: s.provider, kind: "suwayomi" },
      update: {},
    });
    const m = await db.sourceMapping.create({
      data: { seriesId, providerId: p.id, sourceId: s.sourceId, language: s.language },
    });
    mappingIds.set(s.key, { providerId: p.id, mappingId: m.id });
  }

  const mtime = BigInt(Date.UTC(2026, 0, 1));
  const base = { seriesId, state: "active", chapterEnd: null, part: null };
  const files: FileRow[] = [];
  for (let v = 1; v <= OWNED_BOOKS; v++) {
    files.push({
      ...base,
      source: null,
      path: `${title}/${title} v${pad(v, 3)}.cbz`,
      size: BigInt(90_000_000 + v),
      mtimeMs: mtime + BigInt(v),
      sha256: fakeSha(v),
      pageCount: 190 + (v % 20),
      kind: "book",
      volume: String(v),
      chapter: null,
      tagSource: "comicinfo",
      language: "en",
      origin: "scan",
    });
  }
  const chapterFile = (n: number, tag: string, source: string | null, language: string, seed: number): FileRow => ({
    ...base,
    source,
    path: `${title}/${tag}/${title} - c${pad(n, 4)} [${language}].cbz`,
    size: BigInt(9_000_000 + seed),
    mtimeMs: mtime + BigInt(seed),
    sha256: fakeSha(seed),
    pageCount: n % 50 === 0 ? 6 : 18 + (n % 7),
    kind: "chapter",
    volume: null,
    chapter: String(n),
    tagSource: "filename",
    language,
    origin: source === null ? "scan" : "download",
  });
  let seed = 1000;
  for (const s of SOURCES) {
    for (let n = 1; n <= CHAPTERS; n++) if (!s.skip(n)) files.push(chapterFile(n, s.key, s.key, s.language, seed++));
  }
  for (let n = 1; n <= SCANNED_CHAPTERS; n++) files.push(chapterFile(n, "local", null, "en", seed++));
  if (files.length !== AUDIT_FILES) throw new Error(`the audit fixture has ${files.length} files, not ${AUDIT_FILES}`);
  await createManyChunked(
    files.map(({ source: _source, ...row }) => row),
    (data) => db.libraryFile.createMany({ data }),
  );

  // Releases and published downloads of the downloaded files, looked up by path.
  const written = await db.libraryFile.findMany({
    where: { seriesId },
    select: { id: true, path: true },
    orderBy: { id: "asc" },
  });
  const idByPath = new Map(written.map((w) => [w.path, w.id]));
  const releases: {
    seriesId: number;
    kind: string;
    chapter: string | null;
    language: string;
    providerId: number;
    sourceMappingId: number;
    externalId: string;
    fileId: number;
  }[] = [];
  const downloads: {
    seriesId: number;
    sourceMappingId: number;
    kind: string;
    chapter: string | null;
    language: string;
    externalId: string;
    state: string;
    needsReplacement: boolean;
    verdict: string;
    fileId: number;
  }[] = [];
  let k = 0;
  for (const f of files) {
    if (f.source === null) continue;
    const s = SOURCES.find((x) => x.key === f.source)!;
    const m = mappingIds.get(s.key)!;
    const fileId = idByPath.get(f.path)!;
    const externalId = `${s.key}-${f.chapter}`;
    releases.push({
      seriesId,
      kind: "chapter",
      chapter: f.chapter,
      language: s.language,
      providerId: m.providerId,
      sourceMappingId: m.mappingId,
      externalId,
      fileId,
    });
    const degraded = k++ % 100 === 99;
    const verdict = {
      version: 1,
      reasons: degraded ? ["black_cards"] : [],
      figures: { pages: f.pageCount, blackShare: degraded ? 0.25 : 0 },
    };
    downloads.push({
      seriesId,
      sourceMappingId: m.mappingId,
      kind: "chapter",
      chapter: f.chapter,
      language: s.language,
      externalId,
      state: degraded ? "degraded" : "published",
      needsReplacement: degraded,
      verdict: JSON.stringify(verdict),
      fileId,
    });
  }
  await createManyChunked(releases, (data) => db.chapterRelease.createMany({ data }));
  await createManyChunked(downloads, (data) => db.download.createMany({ data }));
  return seriesId;
}
