/**
 * Series rows in the shape of Prisma's model, read by one raw select. The hot reads (the snapshot
 * of a series, the GraphQL `series` field without relations) go this way: each query through
 * Prisma's model API is first compiled by its query compiler, about 2 ms of CPU per call on this
 * machine against 0.2 ms for the raw select of the same row (measured, docs/benchmarks.md), which
 * was most of a cached request's time.
 */
import type { Db } from "../db/client.ts";
import { Prisma, type Series } from "../generated/prisma/client.ts";
import { bool, intOrNull, jsonRows, str, storedDate, strOrNull } from "./json-rows.ts";

const SERIES_COLUMNS =
  "id, title, folder, form, language, original_language, status, known_book_count, edition_book_count, webtoon, " +
  "plan_wording, monitored, assemble_books_automatically, translation_fallback_enabled, " +
  "translation_source_languages, created_at, updated_at";

/** The rows of these series (unknown ids are absent), by id; the caller keeps the list short (an IN list). */
export async function seriesRows(db: Db, ids: readonly number[]): Promise<Series[]> {
  if (ids.length === 0) return [];
  const rows = await jsonRows(db, SERIES_COLUMNS, Prisma.sql`series WHERE id IN (${Prisma.join(ids)}) ORDER BY id`);
  return rows.map(
    ([
      id,
      title,
      folder,
      form,
      language,
      originalLanguage,
      status,
      knownBookCount,
      editionBookCount,
      webtoon,
      planWording,
      monitored,
      assembleBooksAutomatically,
      translationFallbackEnabled,
      translationSourceLanguages,
      createdAt,
      updatedAt,
    ]) => ({
      id: Number(id),
      title: str(title),
      folder: str(folder),
      form: strOrNull(form),
      language: str(language),
      originalLanguage: strOrNull(originalLanguage),
      status: str(status),
      knownBookCount: intOrNull(knownBookCount),
      editionBookCount: intOrNull(editionBookCount),
      webtoon: bool(webtoon),
      planWording: str(planWording),
      monitored: bool(monitored),
      assembleBooksAutomatically: bool(assembleBooksAutomatically),
      translationFallbackEnabled: bool(translationFallbackEnabled),
      translationSourceLanguages: str(translationSourceLanguages),
      createdAt: storedDate(createdAt),
      updatedAt: storedDate(updatedAt),
    }),
  );
}
