/**
 * What the audit reads from the database, and the identities its previews bind. A fixed number of
 * bulk selects per request, whatever the size of the series; no archive is opened (the list
 * never reads a file, the previews only stat the selected ones).
 */
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { intOrNull, jsonRows, str } from "./json-rows.ts";
import { AppError } from "../errors.ts";
import type { AuditFileFacts, AuditSource, AuditVerdict } from "../domain/audit.ts";
import { languageInSeries } from "../domain/file-language.ts";
import { FILE_FACT_COLUMNS, fileFacts } from "./mappers.ts";
import { inChunks } from "./in-chunks.ts";

/** Where the audit's file select puts size and state: after the columns of the file's facts. */
const SIZE_AT = FILE_FACT_COLUMNS.split(",").length;

/** Download states during which files of the series may be written or replaced. */
export const ACTIVE_DOWNLOAD_STATES = ["queued", "waiting", "fetching", "judging", "publishing"] as const;

/** The stored verdict's reasons and black share; anything unreadable counts as no verdict figures. */
function verdictFacts(row: { state: string; needsReplacement: boolean; verdict: string | null }): AuditVerdict {
  let reasons: string[] = [];
  let blackShare: number | null = null;
  try {
    const v =
      row.verdict === null
        ? null
        : (JSON.parse(row.verdict) as { reasons?: unknown; figures?: { blackShare?: unknown } });
    if (v && Array.isArray(v.reasons)) reasons = v.reasons.filter((r): r is string => typeof r === "string");
    const share = v?.figures?.blackShare;
    if (typeof share === "number" && Number.isFinite(share)) blackShare = share;
  } catch {
    // A damaged verdict proves nothing; the download state still says whether it was degraded.
  }
  return { state: row.state, needsReplacement: row.needsReplacement, reasons, blackShare };
}

/** Every active or missing file of a series with its source and verdict (three bulk selects). */
export async function loadAuditFacts(db: Db, seriesId: number, seriesLanguage: string): Promise<AuditFileFacts[]> {
  // Two JSON selects (see json-rows.ts): a 10,000-file series spent most of its time building row objects.
  const files = await jsonRows(
    db,
    `${FILE_FACT_COLUMNS}, size, state, mtime_ms`,
    Prisma.sql`library_file WHERE series_id = ${seriesId} AND state IN ('active', 'missing') ORDER BY id`,
  );
  const releases = (
    await jsonRows(
      db,
      "id, file_id, language, source_mapping_id, provider_name, mapping_source_id",
      Prisma.sql`(SELECT r.id AS id, r.file_id AS file_id, r.language AS language, r.source_mapping_id AS source_mapping_id,
                         p.name AS provider_name, m.source_id AS mapping_source_id
                  FROM chapter_release r
                  LEFT JOIN provider p ON p.id = r.provider_id
                  LEFT JOIN source_mapping m ON m.id = r.source_mapping_id
                  WHERE r.series_id = ${seriesId} AND r.file_id IS NOT NULL) AS released ORDER BY id`,
    )
  ).map(([id, fileId, language, sourceMappingId, providerName, mappingSourceId]) => ({
    id: Number(id),
    fileId: Number(fileId),
    language: str(language),
    sourceMappingId: intOrNull(sourceMappingId),
    provider: providerName === null || providerName === undefined ? null : { name: str(providerName) },
    sourceMapping:
      mappingSourceId === null || mappingSourceId === undefined ? null : { sourceId: str(mappingSourceId) },
  }));
  const downloads = await db.download.findMany({
    where: { seriesId, fileId: { not: null } },
    select: { fileId: true, state: true, needsReplacement: true, verdict: true },
    orderBy: { id: "asc" },
  });

  // A file's source: its release through a mapping first, else one naming a provider.
  const sourceByFile = new Map<number, { source: AuditSource | null; language: string }>();
  for (const r of releases) {
    const fileId = r.fileId as number;
    const source: AuditSource | null = r.provider
      ? {
          provider: r.provider.name,
          sourceId: r.sourceMapping?.sourceId ?? null,
          mappingId: r.sourceMapping ? r.sourceMappingId : null,
        }
      : null;
    const known = sourceByFile.get(fileId);
    const better =
      !known ||
      (known.source === null && source !== null) ||
      (known.source !== null && known.source.mappingId === null && source !== null && source.mappingId !== null);
    if (better) sourceByFile.set(fileId, { source, language: r.language });
  }
  // The latest download that published the file carries its verdict.
  const verdictByFile = new Map<number, AuditVerdict>();
  for (const d of downloads) verdictByFile.set(d.fileId as number, verdictFacts(d));

  return files.map((r) => {
    const f = fileFacts(r);
    const release = sourceByFile.get(f.id);
    // Copied field by field: object spread or rest takes V8's slow path, about 60 ms on 10,000 files.
    return {
      id: f.id,
      path: f.path,
      kind: f.kind,
      volume: f.volume,
      chapter: f.chapter,
      chapterEnd: f.chapterEnd,
      part: f.part,
      pageCount: f.pageCount,
      size: Number(r[SIZE_AT]),
      sha256: f.sha256,
      state: str(r[SIZE_AT + 1]) === "missing" ? "missing" : "active",
      mtimeMs: Number(r[SIZE_AT + 2]),
      origin: f.origin,
      language: languageInSeries(f.language ?? release?.language ?? seriesLanguage, seriesLanguage),
      source: release?.source ?? null,
      verdict: verdictByFile.get(f.id) ?? null,
    };
  });
}

export async function activeDownloads(db: Db, seriesId: number): Promise<number> {
  return db.download.count({ where: { seriesId, state: { in: [...ACTIVE_DOWNLOAD_STATES] } } });
}

/** Torrent job states in which its files are being brought into the series (book channel). */
export const IMPORTING_TORRENT_STATES = ["completed", "importing", "assigning"] as const;

/**
 * Imports of the series under way besides its downloads: a torrent whose books are being imported
 * and a translation whose result is being published.
 */
export async function activeImports(db: Db, seriesId: number): Promise<number> {
  const [torrents, translations] = await Promise.all([
    db.torrentJob.count({ where: { seriesId, state: { in: [...IMPORTING_TORRENT_STATES] } } }),
    db.translationJob.count({ where: { seriesId, state: "importing" } }),
  ]);
  return torrents + translations;
}

/** A file as a preview binds it: its record, and what is on disk now (null when nothing is). */
export interface FileIdentity {
  id: number;
  seriesId: number;
  path: string;
  sha256: string;
  size: string;
  mtimeMs: string;
  state: string;
  disk: { size: string; mtimeMs: string } | null;
}

async function diskOf(libraryRoot: string, rel: string): Promise<FileIdentity["disk"]> {
  try {
    const s = await stat(path.join(libraryRoot, ...rel.split("/")));
    // Whole milliseconds computed exactly as the scan and the publication record them
    // (Math.trunc of the float, which can differ by one from the nanoseconds' floor).
    return { size: String(s.size), mtimeMs: String(Math.trunc(s.mtimeMs)) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/** The identities of these files (any series, any state; unknown ids are left out), ids ascending. */
export async function fileIdentities(db: Db, libraryRoot: string, ids: readonly number[]): Promise<FileIdentity[]> {
  if (ids.length === 0) return [];
  const rows = (
    await inChunks(ids, (chunk) =>
      db.libraryFile.findMany({
        where: { id: { in: chunk } },
        select: { id: true, seriesId: true, path: true, sha256: true, size: true, mtimeMs: true, state: true },
      }),
    )
  ).sort((a, b) => a.id - b.id);
  const out: FileIdentity[] = [];
  for (const r of rows) {
    out.push({
      id: r.id,
      seriesId: r.seriesId,
      path: r.path,
      sha256: r.sha256,
      size: r.size.toString(),
      mtimeMs: r.mtimeMs.toString(),
      state: r.state,
      disk: r.state === "active" ? await diskOf(libraryRoot, r.path) : null,
    });
  }
  return out;
}

/** The releases of these files, and the mappings they came through with their offer counts. */
export async function releasesAndMappings(db: Db, fileIds: readonly number[]) {
  const releases = (
    await inChunks(fileIds, (chunk) =>
      db.chapterRelease.findMany({
        where: { fileId: { in: chunk } },
        select: { id: true, fileId: true, providerId: true, sourceMappingId: true, externalId: true },
      }),
    )
  ).sort((a, b) => a.id - b.id);
  const mappingIds = [...new Set(releases.map((r) => r.sourceMappingId).filter((id): id is number => id !== null))];
  const mappings = await mappingStates(db, mappingIds);
  return { releases, mappings };
}

/** What of an offer a refresh may change in place (offer-repo.ts `replaceForMapping`). */
const OFFER_FIELDS = {
  id: true,
  sourceMappingId: true,
  kind: true,
  volume: true,
  chapter: true,
  part: true,
  language: true,
  scanlator: true,
  externalId: true,
  title: true,
  pageCount: true,
  uploadedAt: true,
  overridden: true,
} as const;

/**
 * Mappings as previews bind them: identity, state, and their offers (count, newest id, and a digest
 * of what each offer says, so that a refresh changing a release in place changes the binding too).
 */
export async function mappingStates(db: Db, ids: readonly number[]) {
  if (ids.length === 0) return [];
  const rows = (
    await inChunks(ids, (chunk) =>
      db.sourceMapping.findMany({
        where: { id: { in: chunk } },
        select: {
          id: true,
          seriesId: true,
          providerId: true,
          sourceId: true,
          language: true,
          priority: true,
          state: true,
        },
      }),
    )
  ).sort((a, b) => a.id - b.id);
  const offers = (
    await inChunks(ids, (chunk) =>
      db.offer.findMany({ where: { sourceMappingId: { in: chunk } }, select: OFFER_FIELDS }),
    )
  ).sort((a, b) => a.id - b.id);
  const byMapping = new Map<number, { count: number; newest: number | null; digest: ReturnType<typeof createHash> }>();
  for (const o of offers) {
    const m = byMapping.get(o.sourceMappingId) ?? { count: 0, newest: null, digest: createHash("sha256") };
    m.count++;
    m.newest = o.id;
    m.digest.update(`${JSON.stringify({ ...o, uploadedAt: o.uploadedAt?.getTime() ?? null })}\n`);
    byMapping.set(o.sourceMappingId, m);
  }
  return rows.map((r) => {
    const m = byMapping.get(r.id);
    return { ...r, offers: m ? { count: m.count, newest: m.newest, digest: m.digest.digest("hex") } : NO_OFFERS };
  });
}

const NO_OFFERS = { count: 0, newest: null, digest: null };

/**
 * The newest download row of the series, and the newest torrent job: a preview binds them, so a
 * download started after it (even one that has ended by the confirm) invalidates the review.
 */
export async function downloadMarks(db: Db, seriesId: number) {
  const [downloads, torrents] = await Promise.all([
    db.download.aggregate({ where: { seriesId }, _max: { id: true } }),
    db.torrentJob.aggregate({ where: { seriesId }, _max: { id: true } }),
  ]);
  return { download: downloads._max.id, torrent: torrents._max.id };
}

/** Files a preview may move: active and on disk. */
export function requireMovable(files: readonly FileIdentity[]): void {
  for (const f of files) {
    if (f.state !== "active")
      throw new AppError("nothing_to_retire", `file ${f.id} is ${f.state}: there is nothing to move`, {
        file_id: f.id,
      });
    if (f.disk === null)
      throw new AppError("nothing_to_retire", `file ${f.id} is not on disk (a scan will mark it missing)`, {
        file_id: f.id,
      });
  }
}

/** The series the audit works on (its language decides which files are translations). */
export function auditSeries(db: Db, id: number) {
  return db.series.findUnique({ where: { id }, select: { id: true, language: true } });
}

/** The mapping of this provider (by name) and source id in a series, with its state. */
export function mappingByProviderName(db: Db, seriesId: number, provider: string, sourceId: string) {
  return db.sourceMapping.findFirst({
    where: { seriesId, sourceId, provider: { name: provider } },
    select: { id: true, state: true },
  });
}

export function providerName(db: Db, providerId: number) {
  return db.provider.findUniqueOrThrow({ where: { id: providerId }, select: { name: true } });
}

/**
 * Rejects a mapping in one transaction: its offers go, the rejection is recorded (never linked
 * again), and the mapping is removed, not only marked, so nothing that lists mappings picks it up.
 * Returns how many offers went.
 */
export async function rejectMapping(
  db: Db,
  mapping: { id: number; seriesId: number; providerId: number; sourceId: string },
  reason: string,
): Promise<number> {
  const key = { seriesId: mapping.seriesId, providerId: mapping.providerId, sourceId: mapping.sourceId };
  const [offers] = await db.$transaction([
    db.offer.deleteMany({ where: { sourceMappingId: mapping.id } }),
    db.sourceRejection.upsert({
      where: { seriesId_providerId_sourceId: key },
      create: { ...key, reason },
      update: { reason },
    }),
    db.sourceMapping.delete({ where: { id: mapping.id } }),
  ]);
  return offers.count;
}

/** What a thumbnail needs of a file: its path, fingerprint and state. */
export function thumbnailFile(db: Db, fileId: number) {
  return db.libraryFile.findUnique({
    where: { id: fileId },
    select: { path: true, sha256: true, size: true, mtimeMs: true, state: true },
  });
}
