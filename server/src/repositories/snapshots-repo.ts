import type { Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import type { MapSourceFacts, SeriesSnapshot } from "../domain/types.ts";
import { jsonRows as bulk, jsonRowSets as bulkSets, storedDate, str, strOrNull } from "./json-rows.ts";
import {
  CHAPTER_FACT_COLUMNS,
  chapterFactsOfRow,
  entryFacts,
  FILE_FACT_COLUMNS,
  fileFacts,
  mapKind,
  RELEASE_FACT_COLUMNS,
  releaseFactsOfRow,
  seriesFacts,
  VOLUME_FACT_COLUMNS,
  volumeFactsOfRow,
} from "./mappers.ts";
import { SERIES_COLUMNS, seriesOfRow } from "./series-rows.ts";
import { verificationFacts } from "./verification-repo.ts";

/** Series per round of statements: keeps the IN lists far below SQLite's bound-parameter limit. */
const CHUNK = 400;

/**
 * The one snapshot loader: the facts of many series at once (one series through `loadSnapshot`, the
 * library list's overviews), six statements for up to CHUNK series — one fixed lookup of the series
 * rows, their map sources and their proofs, then the five bulk selects with `series_id IN (…)`, all
 * raw. Unknown ids are absent from the result.
 */
export async function loadSnapshots(db: Db, seriesIds: readonly number[]): Promise<Map<number, SeriesSnapshot>> {
  const out = new Map<number, SeriesSnapshot>();
  const ids = [...new Set(seriesIds)];
  for (let i = 0; i < ids.length; i += CHUNK) await loadChunk(db, ids.slice(i, i + CHUNK), out);
  return out;
}

async function loadChunk(db: Db, ids: number[], out: Map<number, SeriesSnapshot>): Promise<void> {
  // Raw selects throughout: Prisma's model API compiles every query first (series-rows.ts). The
  // fixed lookups go in one statement: the series rows, their map sources and their proofs.
  const inIds = Prisma.join(ids);
  const [seriesSet, sources, proofs] = await bulkSets(db, [
    { columns: SERIES_COLUMNS, from: Prisma.sql`series WHERE id IN (${inIds}) ORDER BY id` },
    {
      columns: "series_id, id, kind, name, revision",
      from: Prisma.sql`map_source WHERE series_id IN (${inIds}) ORDER BY id`,
    },
    {
      columns: "series_id, volume, file_id, digest, chapters, source_url, note, created_at",
      from: Prisma.sql`verification WHERE series_id IN (${inIds}) ORDER BY id`,
    },
  ]);
  const rows = seriesSet.map(seriesOfRow);
  if (rows.length === 0) return;
  const found = rows.map((r) => r.id);
  const inList = Prisma.join(found);
  const volumes = await bulk(
    db,
    `${VOLUME_FACT_COLUMNS}, series_id`,
    Prisma.sql`volume_slot WHERE series_id IN (${inList}) ORDER BY id`,
  );
  const chapters = await bulk(
    db,
    `${CHAPTER_FACT_COLUMNS}, series_id`,
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
    `${RELEASE_FACT_COLUMNS}, series_id`,
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
  // Each bulk row ends with its series id.
  const seriesOf = (r: readonly unknown[]) => of(r[r.length - 1]);
  for (const r of volumes) seriesOf(r)?.volumes.push(volumeFactsOfRow(r));
  for (const r of chapters) seriesOf(r)?.chapters.push(chapterFactsOfRow(r));
  for (const r of files) seriesOf(r)?.files.push(fileFacts(r));
  for (const r of releases) seriesOf(r)?.releases.push(releaseFactsOfRow(r));
  for (const [id, snap] of snaps) out.set(id, snap);
}
