import type { Db } from "../db/client.ts";
import type { SeriesSnapshot } from "../domain/types.ts";
import { loadSnapshots } from "./snapshots-repo.ts";

/**
 * Loads everything the rule core needs about one series: the one snapshot loader (snapshots-repo.ts)
 * for a single id — one fixed lookup (the series row, its map sources, its book proofs) and five bulk
 * selects (volume slots, chapter slots, map entries, active files, releases), whatever the size of
 * the series. No
 * archive is opened. Null when the series does not exist.
 */
export async function loadSnapshot(db: Db, seriesId: number): Promise<SeriesSnapshot | null> {
  return (await loadSnapshots(db, [seriesId])).get(seriesId) ?? null;
}
