import type { Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import type { MapSourceFacts, SeriesSnapshot } from "../domain/types.ts";
import { bool, intOrNull, jsonRows as bulk, storedDate, str, strOrNull } from "./json-rows.ts";
import {
  chapterFacts,
  entryFacts,
  FILE_FACT_COLUMNS,
  fileFacts,
  mapKind,
  releaseFacts,
  seriesFacts,
  volumeFacts,
} from "./mappers.ts";
import { seriesRows } from "./series-rows.ts";
import { verificationFacts } from "./verification-repo.ts";

/** Series per round of statements: keeps the IN lists far below SQLite's bound-parameter limit. */
const CHUNK = 400;

/**
 * The one snapshot loader: the facts of many series at once (one series through `loadSnapshot`, the
 * library list's overviews), eight statements for up to CHUNK series — the series rows, their map
 * sources, their proofs and the five other bulk selects with `series_id IN (…)`, all raw. Unknown
 * ids are absent from the result.
 */
export async function loadSnapshots(db: Db, seriesIds: readonly number[]): Promise<Map<number, SeriesSnapshot>> {
  const out = new Map<number, SeriesSnapshot>();
  const ids = [...new Set(seriesIds)];
  for (let i = 0; i < ids.length; i += CHUNK) await loadChunk(db, ids.slice(i, i + CHUNK), out);
  return out;
}

async function loadChunk(db: Db, ids: number[], out: Map<number, SeriesSnapshot>): Promise<void> {
  // Raw selects throughout: Prisma's model API compiles every query first (series-rows.ts).
  const rows = await seriesRows(db, ids);
  if (rows.length === 0) return;
  const found = rows.map((r) => r.id);
  const inList = Prisma.join(found);
  // Sequential on purpose: the adapter runs one statement at a time anyway.
  const sources = await bulk(
    db,
    "series_id, id, kind, name, revision",
    Prisma.sql`map_source WHERE series_id IN (${inList}) ORDER BY id`,
  );
  const proofs = await bulk(
    db,
    "series_id, volume, file_id, digest, chapters, source_url, note, created_at",
    Prisma.sql`verification WHERE series_id IN (${inList}) ORDER BY id`,
  );
  const volumes = await bulk(
    db,
    "series_id, id, number, monitored",
    Prisma.sql`volume_slot WHERE series_id IN (${inList}) ORDER BY id`,
  );
  const chapters = await bulk(
    db,
    "series_id, id, number, monitored, parts, extra, title",
    Prisma.sql`chapter_slot WHERE series_id IN (${inList}) ORDER BY id`,
  );
  const entries = await bulk(
    db,
    "id, source_id, volume, chapters",
    Prisma.sql`map_entry WHERE source_id IN (SELECT id FROM map_source WHERE series_id IN (${inList})) ORDER BY id`,
  );
  const files = await bulk(
    db,
    `${FILE_FACT_COLUMNS}, series_id`,
    Prisma.sql`library_file WHERE series_id IN (${inList}) AND state = 'active' ORDER BY id`,
  );
  const releases = await bulk(
    db,
    "series_id, id, kind, volume, chapter, part, file_id, language, assembled_from",
    Prisma.sql`chapter_release WHERE series_id IN (${inList}) ORDER BY id`,
  );

  const snaps = new Map<number, SeriesSnapshot>();
  for (const row of rows) {
    snaps.set(row.id, {
      series: seriesFacts(row),
      volumes: [],
      chapters: [],
      mapSources: [],
      files: [],
      releases: [],
      verifications: [],
    });
  }
  const of = (seriesId: unknown) => snaps.get(Number(seriesId));
  const bySource = new Map<number, MapSourceFacts>();
  for (const [seriesId, id, kind, name, revision] of sources) {
    const facts: MapSourceFacts = {
      id: Number(id),
      kind: mapKind(str(kind)),
      name: str(name),
      revision: Number(revision),
      entries: [],
    };
    bySource.set(facts.id, facts);
    of(seriesId)?.mapSources.push(facts);
  }
  for (const [, sourceId, volume, chaptersJson] of entries) {
    bySource.get(Number(sourceId))?.entries.push(entryFacts({ volume: str(volume), chapters: str(chaptersJson) }));
  }
  for (const [seriesId, volume, fileId, digest, chaptersJson, sourceUrl, note, createdAt] of proofs) {
    const facts = verificationFacts({
      volume: str(volume),
      fileId: Number(fileId),
      digest: str(digest),
      chapters: str(chaptersJson),
      sourceUrl: strOrNull(sourceUrl),
      note: str(note),
      createdAt: storedDate(createdAt),
    });
    if (facts) of(seriesId)?.verifications.push(facts);
  }
  for (const [seriesId, id, number, monitored] of volumes) {
    of(seriesId)?.volumes.push(volumeFacts({ id: Number(id), number: str(number), monitored: bool(monitored) }));
  }
  for (const [seriesId, id, number, monitored, parts, extra, title] of chapters) {
    of(seriesId)?.chapters.push(
      chapterFacts({
        id: Number(id),
        number: str(number),
        monitored: bool(monitored),
        parts: Number(parts),
        extra: bool(extra),
        title: strOrNull(title),
      }),
    );
  }
  for (const f of files) of(f[f.length - 1])?.files.push(fileFacts(f));
  for (const [seriesId, id, kind, volume, chapter, part, fileId, language, assembledFrom] of releases) {
    of(seriesId)?.releases.push(
      releaseFacts({
        id: Number(id),
        kind: str(kind),
        volume: strOrNull(volume),
        chapter: strOrNull(chapter),
        part: intOrNull(part),
        fileId: intOrNull(fileId),
        language: str(language),
        assembledFrom: strOrNull(assembledFrom),
      }),
    );
  }
  for (const [id, snap] of snaps) out.set(id, snap);
}
