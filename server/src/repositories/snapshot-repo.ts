import type { Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { bool, intOrNull, jsonRows as bulk, str, strOrNull } from "./json-rows.ts";
import type { MapSourceFacts, SeriesSnapshot } from "../domain/types.ts";
import { verificationRepo } from "./verification-repo.ts";
import {
  chapterFacts,
  entryFacts,
  FILE_FACT_COLUMNS,
  fileFacts,
  mapKind,
  releaseFacts,
  seriesFacts,
  volumeFacts,
  type ReleaseRow,
} from "./mappers.ts";

/**
 * Loads everything the rule core needs about one series: three fixed lookups (the series row, its
 * handful of map sources and its handful of book proofs) and exactly five bulk selects (volume slots, chapter slots, map
 * entries, active files, releases), whatever the size of the series. No archive is opened.
 */
export async function loadSnapshot(db: Db, seriesId: number): Promise<SeriesSnapshot | null> {
  const series = await db.series.findUnique({ where: { id: seriesId } });
  if (!series) return null;
  // Sequential on purpose: the adapter runs one statement at a time anyway.
  const sources = await db.mapSource.findMany({
    where: { seriesId },
    select: { id: true, kind: true, name: true, revision: true },
    orderBy: { id: "asc" },
  });
  const verifications = await verificationRepo(db).ofSeries(seriesId);
  const volumes = await bulk(
    db,
    "id, number, monitored",
    Prisma.sql`volume_slot WHERE series_id = ${seriesId} ORDER BY id`,
  );
  const chapters = await bulk(
    db,
    "id, number, monitored, parts, extra",
    Prisma.sql`chapter_slot WHERE series_id = ${seriesId} ORDER BY id`,
  );
  const entries = await bulk(
    db,
    "id, source_id, volume, chapters",
    Prisma.sql`map_entry WHERE source_id IN (SELECT id FROM map_source WHERE series_id = ${seriesId}) ORDER BY id`,
  );
  const files = await bulk(
    db,
    FILE_FACT_COLUMNS,
    Prisma.sql`library_file WHERE series_id = ${seriesId} AND state = 'active' ORDER BY id`,
  );
  const releases = await bulk(
    db,
    "id, kind, volume, chapter, part, file_id, language, assembled_from",
    Prisma.sql`chapter_release WHERE series_id = ${seriesId} ORDER BY id`,
  );

  const bySource = new Map<number, MapSourceFacts>();
  for (const s of sources) {
    bySource.set(s.id, { id: s.id, kind: mapKind(s.kind), name: s.name, revision: s.revision, entries: [] });
  }
  for (const [, sourceId, volume, chaptersJson] of entries) {
    bySource.get(Number(sourceId))?.entries.push(entryFacts({ volume: str(volume), chapters: str(chaptersJson) }));
  }

  return {
    series: seriesFacts(series),
    volumes: volumes.map(([id, number, monitored]) =>
      volumeFacts({ id: Number(id), number: str(number), monitored: bool(monitored) }),
    ),
    chapters: chapters.map(([id, number, monitored, parts, extra]) =>
      chapterFacts({
        id: Number(id),
        number: str(number),
        monitored: bool(monitored),
        parts: Number(parts),
        extra: bool(extra),
      }),
    ),
    mapSources: [...bySource.values()],
    files: files.map(fileFacts),
    releases: releases.map((r) => {
      const [id, kind, volume, chapter, part, fileId, language, assembledFrom] = r;
      const row: ReleaseRow = {
        id: Number(id),
        kind: str(kind),
        volume: strOrNull(volume),
        chapter: strOrNull(chapter),
        part: intOrNull(part),
        fileId: intOrNull(fileId),
        language: str(language),
        assembledFrom: strOrNull(assembledFrom),
      };
      return releaseFacts(row);
    }),
    verifications,
  };
}
