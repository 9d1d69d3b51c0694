/**
 * Helpers of the web-client support tests (series page, overview, book starts, file pages,
 * monitoring): the REST units payload back as the rule core's UnitsView, GraphQL enum names, and a
 * large series written straight into the database.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Label } from "../src/domain/labels.ts";
import type { Coverage, Plan, Unit, UnitsView } from "../src/domain/types.ts";
import { expectJson, type RestUnit, type RestUnits } from "./fixtures.ts";
import type { TestApp } from "./utils.ts";

export const restUnitToDomain = (u: RestUnit): Unit => ({
  kind: u.kind,
  number: u.number as Label,
  book: u.book as Label | null,
  owned: u.owned,
  monitored: u.monitored,
  coverage: u.coverage as Coverage | null,
  plan: u.plan as Plan | null,
  estimatedBook: u.estimated_book as Label | null,
  pageCount: u.page_count,
  fileIds: u.file_ids,
  duplicateFileIds: u.duplicate_file_ids,
  problems: u.problems,
  extra: u.extra,
});

/** GET /api/manga/{id}/units as the rule core's UnitsView (the REST payload is its snake_case). */
export async function restUnitsView(app: TestApp, seriesId: number): Promise<UnitsView> {
  const v = await expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);
  return {
    seriesId: v.series_id,
    form: v.form as UnitsView["form"],
    map: v.map as UnitsView["map"],
    status: v.status as UnitsView["status"],
    planWording: v.plan_wording as UnitsView["planWording"],
    units: v.units.map(restUnitToDomain),
  };
}

/** A rule-core enum value as GraphQL spells it ("all books" → ALL_BOOKS, "book on disk" → BOOK_ON_DISK). */
const GQL_PLAN: Record<Plan, string> = {
  "book on disk": "BOOK_ON_DISK",
  "assemble when its chapters are complete": "ASSEMBLE_WHEN_CHAPTERS_COMPLETE",
  "in part": "IN_PART",
  missing: "MISSING",
};
export function gqlEnum(v: string): string;
export function gqlEnum(v: string | null): string | null;
export function gqlEnum(v: string | null): string | null {
  if (v === null) return null;
  if (v in GQL_PLAN) return GQL_PLAN[v as Plan];
  return v.replace(/ /g, "_").toUpperCase();
}

/** A REST unit as GraphQL spells it (camelCase fields, enum values). */
export const gqlUnit = (u: RestUnit) => ({
  kind: gqlEnum(u.kind),
  number: u.number,
  book: u.book,
  owned: u.owned,
  monitored: u.monitored,
  coverage: gqlEnum(u.coverage),
  plan: gqlEnum(u.plan),
  estimatedBook: u.estimated_book,
  pageCount: u.page_count,
  fileIds: u.file_ids,
  duplicateFileIds: u.duplicate_file_ids,
  problems: u.problems,
  extra: u.extra,
});

export interface SeriesRef {
  id: number;
  title: string;
}

/** Every series, by title. */
export async function seriesByTitle(app: TestApp): Promise<Map<string, number>> {
  const list = await expectJson<SeriesRef[]>(await app.api("/api/manga"), 200);
  return new Map(list.map((s) => [s.title, s.id]));
}

/**
 * A books-form series written straight into the database: `chapters` chapters split evenly over
 * `books` books, every book in the operator map; owned books have one book file (and a release),
 * the chapters of the other books one chapter file each. No file is written to disk.
 */
/** One row of `libraryFile.createMany` (the shape the client takes, without naming its generated types). */
type FileRowInput = Extract<
  NonNullable<Parameters<TestApp["ctx"]["db"]["libraryFile"]["createMany"]>[0]>["data"],
  unknown[]
>[number];

export async function writeBigSeries(
  app: TestApp,
  title: string,
  chapters: number,
  books: number,
  owned: (book: number) => boolean,
) {
  const db = app.ctx.db;
  const series = await db.series.create({ data: { title, folder: title, status: "finished", knownBookCount: books } });
  // Its folder is there (empty): a library folder without any, while files are recorded, is an
  // unmounted disk's empty mount point, where nothing is written (library-root.ts).
  mkdirSync(path.join(app.config.libraryRoot, title), { recursive: true });
  const seriesId = series.id;
  const chaptersOf = (b: number) => {
    const first = Math.floor(((b - 1) * chapters) / books) + 1;
    const last = Math.floor((b * chapters) / books);
    return Array.from({ length: last - first + 1 }, (_, i) => String(first + i));
  };
  const bookNumbers = Array.from({ length: books }, (_, i) => i + 1);
  await db.volumeSlot.createMany({ data: bookNumbers.map((b) => ({ seriesId, number: String(b) })) });
  await db.chapterSlot.createMany({
    data: Array.from({ length: chapters }, (_, i) => ({ seriesId, number: String(i + 1) })),
  });
  const sha = (s: string) => s.padEnd(64, "0").slice(0, 64);
  const fileRows = bookNumbers.flatMap<FileRowInput>((b) =>
    owned(b)
      ? [
          {
            seriesId,
            path: `${title}/${title} v${b}.cbz`,
            size: 1000n,
            mtimeMs: 1n,
            sha256: sha(`b${b}`),
            pageCount: 180,
            kind: "book",
            volume: String(b),
            tagSource: "comicinfo",
            // Books the service downloaded: sound (a book found by the scan would be a hand import).
            origin: "download",
          },
        ]
      : chaptersOf(b).map((c) => ({
          seriesId,
          path: `${title}/${title} c${c}.cbz`,
          size: 100n,
          mtimeMs: 1n,
          sha256: sha(`c${c}`),
          pageCount: 20,
          kind: "chapter",
          chapter: String(c),
          chapterEnd: String(c),
        })),
  );
  const files = await db.libraryFile.createManyAndReturn({
    data: fileRows,
    select: { id: true, kind: true, volume: true, chapter: true, path: true },
  });
  await db.chapterRelease.createMany({
    data: files.map((f) => ({
      seriesId,
      kind: f.kind === "book" ? "volume" : "chapter",
      volume: f.volume,
      chapter: f.chapter,
      fileId: f.id,
    })),
  });
  const source = await db.mapSource.create({ data: { seriesId, kind: "operator", name: "operator", revision: 1 } });
  await db.mapEntry.createMany({
    data: bookNumbers.map((b) => ({ sourceId: source.id, volume: String(b), chapters: JSON.stringify(chaptersOf(b)) })),
  });
  return { id: seriesId, files, chaptersOf };
}

/** Runs fn and counts the SQL statements it made. */
export async function countStatements<T>(
  app: TestApp,
  fn: () => Promise<T>,
): Promise<{ value: T; count: number; statements: string[] }> {
  app.ctx.queries.reset();
  const value = await fn();
  return { value, count: app.ctx.queries.count, statements: [...app.ctx.queries.statements] };
}
