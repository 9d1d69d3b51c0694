/**
 * Foreign books from the indexer/torrent channel (docs/rules.md, "Translation fallback" 6).
 * A completed translation torrent is never published: only the requested books' image ZIP/CBZ
 * files are copied (the client keeps seeding its own bytes) into translation staging, checked by
 * the hardened reader, and become translation jobs (origin "indexer"); the OCR confirms the
 * actual languages before import (the receipt check). A book that looks like another edition —
 * its page count far from the series' books, or numbered beyond the series' edition size — is not
 * staged but waits for an explicit assignment (the operator assigns it a file of the torrent, or
 * uploads a source). The torrent's retention action waits until every translation made from it is
 * imported.
 */
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { stateDirs } from "../../config.ts";
import { parseFileName } from "../../domain/filename.ts";
import { compareLabels, labelEquals, type Label } from "../../domain/labels.ts";
import type { PendingBook } from "../../domain/torrent-assignment.ts";
import { AppError } from "../../errors.ts";
import { sha256File } from "../../library/durable-fs.ts";
import type { QbtFile, QbtTorrent } from "../../providers/qbittorrent.ts";
import type { TorrentJobRow } from "../../repositories/torrent-repo.ts";
import {
  checkArchive,
  checkLocal,
  copyIntoStaging,
  localFileOf,
  noteBookFailure,
  placeOf,
  type ImportOutcome,
  type TorrentPlace,
} from "./book-channel-import.ts";
import type { MountMapping } from "./book-channel-settings.ts";
import { translationRepo } from "../../repositories/translation-repo.ts";
import type { AppContext } from "../context.ts";
import { jobKey } from "../../domain/translation-jobs.ts";
import type { TranslationService } from "../translation/translation-service.ts";

/** What the channel needs of the translation service, and the hook the fallback calls it through. */
export type ForeignTranslations = Pick<TranslationService, "createFromStaged"> & {
  useForeignBooks?(
    fetch: (
      seriesId: number,
      books: readonly Label[],
      sources: readonly string[],
    ) => Promise<{ book: Label; outcome: string; detail: string }[]>,
  ): void;
};

/** A book with more than this many times (or less than its inverse) the median page count is another edition's. */
export const PAGE_RATIO_LIMIT = 2;

const ARCHIVE = /\.(cbz|zip)$/i;
/** Book-like files we recognise but refuse as translation sources (only image ZIP/CBZ are read). */
const OTHER_BOOK = /\.(cbr|rar|cb7|7z|cbt|tar|pdf|epub|mobi|azw3?)$/i;

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * One file of a translation torrent staged as the translation job of book `book` (never published):
 * checked on the way, copied into translation staging, read through the hardened reader. The page
 * count is checked against the series' books unless an operator assigned the file (`median` null).
 * The translation job's id, or a pending entry when the book looks like another edition's.
 */
export async function stageForeignFile(
  ctx: AppContext,
  translations: ForeignTranslations,
  job: TorrentJobRow,
  series: { id: number; language: string },
  book: Label,
  local: string,
  place: TorrentPlace,
  median: number | null,
): Promise<{ id: number } | { pending: PendingBook }> {
  const key = jobKey({ seriesId: series.id, kind: "volume", number: book, destination: series.language });
  const staged = path.join(stateDirs(ctx.config).staging, "translations", "incoming", `${randomUUID()}.cbz`);
  try {
    await checkLocal(local, place.mount, place.mountReal);
    await copyIntoStaging(local, staged);
    const pages = await checkArchive(ctx, staged);
    if (median !== null && (pages > median * PAGE_RATIO_LIMIT || pages * PAGE_RATIO_LIMIT < median)) {
      await rm(staged, { force: true });
      return {
        pending: {
          book,
          reason: "page_count",
          detail: `${pages} pages where the series' books have ${median} (median): another edition?`,
        },
      };
    }
    const view = await translations.createFromStaged({
      jobKey: key,
      seriesId: series.id,
      kind: "volume",
      number: book,
      sourceLanguage: job.sourceLanguage ?? "",
      targetLanguage: series.language,
      origin: "indexer",
      sourceSha256: await sha256File(staged),
      received: staged,
    });
    const row = await translationRepo(ctx.db).idOf(key, view.attempt);
    if (!row) throw new AppError("internal", `the translation job of book ${book} was not recorded`);
    return { id: row.id };
  } catch (e) {
    // createFromStaged discards its own source; a refusal before it leaves ours to drop.
    await rm(staged, { force: true });
    throw e;
  }
}

/** The translation job already made from this torrent for that book (staged before a restart), if any. */
export async function stagedBefore(ctx: AppContext, seriesId: number, language: string, book: Label) {
  const key = jobKey({ seriesId, kind: "volume", number: book, destination: language });
  return translationRepo(ctx.db).stagedFromIndexer(key);
}

export async function stageForeignBooks(
  ctx: AppContext,
  translations: ForeignTranslations | undefined,
  job: TorrentJobRow,
  torrent: QbtTorrent,
  files: QbtFile[],
  mount: MountMapping,
): Promise<ImportOutcome> {
  if (!translations)
    throw new AppError("invalid_field", "a translation torrent completed but the translation service is not wired");
  const series = await ctx.repos.series.get(job.seriesId);
  if (!series) throw new AppError("series_not_found", `series ${job.seriesId} does not exist`);
  const full = series;
  const place = await placeOf(torrent, mount);

  const requested = job.books as Label[];
  const found = new Map<Label, string>();
  const refused: string[] = [];
  let highest: Label | null = null;
  for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    const local = localFileOf(place, f.name);
    const p = parseFileName(path.posix.basename(f.name), { series: series.title });
    if (p.kind !== "book" || p.volume === null || p.volumeEnd !== null || p.extra || p.special) continue;
    if (highest === null || compareLabels(p.volume, highest) > 0) highest = p.volume;
    const book = requested.find((b) => labelEquals(b, p.volume as Label));
    if (book === undefined || found.has(book)) continue;
    if (ARCHIVE.test(f.name)) found.set(book, local);
    else if (OTHER_BOOK.test(f.name))
      refused.push(
        `v${book}: unsupported_format: ${path.posix.basename(f.name)} is not an image ZIP/CBZ (only those are translation sources)`,
      );
  }

  const out: ImportOutcome = {
    imported: [...job.imported],
    alreadyOwned: [],
    failed: [...refused],
    pending: requested
      .filter((b) => !found.has(b) && !refused.some((r) => r.startsWith(`v${b}:`)))
      .map((book) => ({
        book,
        reason: "not_found_by_name" as const,
        detail: `no image ZIP/CBZ of the torrent is named for book ${book}`,
      })),
  };
  // The torrent numbers books beyond the series' edition: another edition, whose numbering is not ours.
  const otherEdition =
    full?.editionBookCount != null &&
    highest !== null &&
    compareLabels(highest, String(full.editionBookCount) as Label) > 0;
  const owned = await ctx.repos.files.activeBookPageCounts(series.id);
  const mid = median(owned.map((o) => o.pageCount).filter((n): n is number => typeof n === "number" && n > 0));
  for (const [book, local] of found) {
    // Staged before a restart: its job exists already, nothing to stage twice.
    const existing = await stagedBefore(ctx, series.id, series.language, book);
    if (existing) {
      if (!out.imported.includes(existing.id)) out.imported.push(existing.id);
      continue;
    }
    if (otherEdition) {
      out.pending.push({
        book,
        reason: "other_edition",
        detail: `the torrent numbers books up to ${highest} but the series' edition has ${full?.editionBookCount}`,
      });
      continue;
    }
    try {
      const staged = await stageForeignFile(ctx, translations, job, series, book, local, place, mid);
      if ("pending" in staged) out.pending.push(staged.pending);
      else out.imported.push(staged.id);
    } catch (e) {
      if (!noteBookFailure(out, book, e)) break;
    }
  }
  return out;
}

/** Every translation made from this torrent (its newest attempt) is imported. */
export async function translationsImported(ctx: AppContext, job: TorrentJobRow): Promise<boolean> {
  if (job.imported.length === 0) return false;
  const jobs = translationRepo(ctx.db);
  const rows = await jobs.jobKeysOf(job.imported);
  if (rows.length !== job.imported.length) return false;
  for (const r of rows) {
    const newest = await jobs.newestState(r.jobKey);
    if (newest?.state !== "imported") return false;
  }
  return true;
}
