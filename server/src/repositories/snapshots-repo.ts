import type { Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import type { MapSourceFacts, SeriesSnapshot } from "../domain/types.ts";
import { bool, intOrNull, jsonRows as bulk, str, strOrNull } from "./json-rows.ts";
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
import { verificationFacts } from "./verification-repo.ts";

/** Series per round of statements: keeps the IN lists far below SQLite's bound-parameter limit. */
const CHUNK = 400;

/**
 * The one snapshot loader: the facts of many series at once (one series through `loadSnapshot`, the
 * library list's overviews), eight statements for up to CHUNK series — the series rows, their map
 * sources, their proofs and the five bulk selects with `series_id IN (…)`. Unknown ids are absent
 * from the result.
 */
export async function loadSnapshots(db: Db, seriesIds: readonly number[]): Promise<Map<number, SeriesSnapshot>> {
  const out = new Map<number, SeriesSnapshot>();
  const ids = [...new Set(seriesIds)];
  for (let i = 0; i < ids.length; i += CHUNK) await loadChunk(db, ids.slice(i, i + CHUNK), out);
  return out;
}

async function loadChunk(db: Db, ids: number[], out: Map<number, SeriesSnapshot>): Promise<void> {
  const rows = await db.series.findMany({ where: { id: { in: ids } } });
  if (rows.length === 0) return;
  const found = rows.map((r) => r.id);
  const inList = Prisma.join(found);
  // Sequential on purpose: the adapter runs one statement at a time anyway.
  const sources = await db.mapSource.findMany({
    where: { seriesId: { in: found } },
    select: { id: true, seriesId: true, kind: true, name: true, revision: true },
    orderBy: { id: "asc" },
  });
  const proofs = await db.verification.findMany({ where: { seriesId: { in: found } }, orderBy: { id: "asc" } });
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
  for (const s of sources) {
    const facts: MapSourceFacts = { id: s.id, kind: mapKind(s.kind), name: s.name, revision: s.revision, entries: [] };
    bySource.set(s.id, facts);
    of(s.seriesId)?.mapSources.push(facts);
  }
  for (const [, sourceId, volume, chaptersJson] of entries) {
    bySource.get(Number(sourceId))?.entries.push(entryFacts({ volume: str(volume), chapters: str(chaptersJson) }));
  }
  for (const p of proofs) {
    const facts = verificationFacts(p);
    if (facts) of(p.seriesId)?.verifications.push(facts);
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
