import type { Db } from "../db/client.ts";
import type { MapSourceFacts, SeriesSnapshot } from "../domain/types.ts";
import {
  chapterFacts,
  entryFacts,
  fileFacts,
  mapKind,
  releaseFacts,
  seriesFacts,
  volumeFacts,
} from "./mappers.ts";

/**
 * Loads everything the rule core needs about one series: two fixed lookups (the series row and
 * its handful of map sources) and exactly five bulk selects (volume slots, chapter slots, map
 * entries, active files, releases), whatever the size of the series. No archive is opened.
 */
export async function loadSnapshot(db: Db, seriesId: number): Promise<SeriesSnapshot | null> {
  const series = await db.series.findUnique({ where: { id: seriesId } });
  if (!series) return null;
  const [sources, volumes, chapters, entries, files, releases] = await Promise.all([
    db.mapSource.findMany({
      where: { seriesId },
      select: { id: true, kind: true, name: true, revision: true },
      orderBy: { id: "asc" },
    }),
    db.volumeSlot.findMany({ where: { seriesId }, select: { id: true, number: true, monitored: true } }),
    db.chapterSlot.findMany({
      where: { seriesId },
      select: { id: true, number: true, monitored: true, parts: true, extra: true },
    }),
    db.mapEntry.findMany({
      where: { source: { seriesId } },
      select: { sourceId: true, volume: true, chapters: true },
      orderBy: { id: "asc" },
    }),
    db.libraryFile.findMany({
      where: { seriesId, state: "active" },
      select: {
        id: true, path: true, kind: true, volume: true, chapter: true, chapterEnd: true, part: true,
        pageCount: true, sha256: true, origin: true, language: true, tagSource: true,
      },
      orderBy: { id: "asc" },
    }),
    db.chapterRelease.findMany({
      where: { seriesId },
      select: { id: true, kind: true, volume: true, chapter: true, part: true, fileId: true, language: true, assembledFrom: true },
      orderBy: { id: "asc" },
    }),
  ]);

  const bySource = new Map<number, MapSourceFacts>();
  for (const s of sources) {
    bySource.set(s.id, { id: s.id, kind: mapKind(s.kind), name: s.name, revision: s.revision, entries: [] });
  }
  for (const e of entries) bySource.get(e.sourceId)?.entries.push(entryFacts(e));

  return {
    series: seriesFacts(series),
    volumes: volumes.map(volumeFacts),
    chapters: chapters.map(chapterFacts),
    mapSources: [...bySource.values()],
    files: files.map(fileFacts),
    releases: releases.map(releaseFacts),
  };
}
