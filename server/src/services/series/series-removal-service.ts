/**
 * Removing a series whose files are gone from the library (docs/rules.md, "Removing a series"):
 * only the service's records of it go — its slots, map, links, offers, downloads, reading progress
 * and the rest — and nothing in the library is touched (its catalogue covers, the service's own
 * copies in DATA_DIR, go unless another series' link names them). The rule
 * (domain/series-removal.ts) decides on the facts read in the transaction that deletes the rows;
 * the removal runs while no scan does (a scan records files under the series it listed) and after
 * an assembly of the series under way ended.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { decideSeriesRemoval, type SeriesBusy } from "../../domain/series-removal.ts";
import { AppError } from "../../errors.ts";
import { seriesRemovalRepo, type SeriesRemoved } from "../../repositories/series-removal-repo.ts";
import type { AppContext } from "../context.ts";
import { boundariesLock } from "./boundaries-lock.ts";
import { dropCoverIfUnused } from "./series-cover.ts";

/** Whether the series can be removed now, and why not (GraphQL `Series.removal`). */
export interface SeriesRemovalView {
  allowed: boolean;
  /** `series_has_files` | `series_busy`; null when allowed. */
  refusal: "series_has_files" | "series_busy" | null;
  activeFiles: number;
  busy: SeriesBusy;
  /** Whether the series' folder is on disk (read only; a removal never looks at it or touches it). */
  folderPresent: boolean;
}

export interface RemovedSeriesView extends SeriesRemoved {
  id: number;
}

const BUSY_WORDS: Record<keyof SeriesBusy, string> = {
  downloads: "download(s)",
  torrentJobs: "torrent job(s)",
  translationJobs: "translation job(s)",
  publications: "file move(s)",
};

async function folderExists(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isDirectory();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}

export function seriesRemovalService(ctx: AppContext, scan: { whileNotScanning<T>(fn: () => Promise<T>): Promise<T> }) {
  const repo = seriesRemovalRepo(ctx.db);
  const exclusive = boundariesLock(ctx);

  return {
    async removal(seriesId: number): Promise<SeriesRemovalView> {
      const series = await ctx.repos.series.get(seriesId);
      if (!series) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      const folderPresent = await folderExists(path.join(ctx.config.libraryRoot, series.folder));
      const d = decideSeriesRemoval(await repo.facts(seriesId));
      if (d.ok) return { allowed: true, refusal: null, activeFiles: 0, busy: {}, folderPresent };
      return d.code === "series_has_files"
        ? { allowed: false, refusal: d.code, activeFiles: d.activeFiles, busy: {}, folderPresent }
        : { allowed: false, refusal: d.code, activeFiles: 0, busy: d.busy, folderPresent };
    },

    async remove(seriesId: number): Promise<RemovedSeriesView> {
      const outcome = await scan.whileNotScanning(() =>
        exclusive(seriesId, () => repo.remove(seriesId, decideSeriesRemoval)),
      );
      if (!outcome) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      const d = outcome.decision;
      if (!d.ok && d.code === "series_has_files")
        throw new AppError(
          "series_has_files",
          `the library still holds ${d.activeFiles} file(s) of series ${seriesId}: delete or move its folder first, then rescan`,
          { active_files: d.activeFiles },
        );
      if (!d.ok) {
        const what = Object.entries(d.busy).map(([k, n]) => `${n} ${BUSY_WORDS[k as keyof SeriesBusy]}`);
        // Problem details are snake_case in both APIs, as every other problem's.
        const busy = {
          downloads: d.busy.downloads ?? 0,
          torrent_jobs: d.busy.torrentJobs ?? 0,
          translation_jobs: d.busy.translationJobs ?? 0,
          publications: d.busy.publications ?? 0,
        };
        throw new AppError("series_busy", `under way for series ${seriesId}: ${what.join(", ")}`, { busy });
      }
      const removed = outcome.removed as SeriesRemoved;
      // The catalogue covers are the service's own copies, not library files: one no other series'
      // link names goes with the series (as when a link is removed).
      for (const file of new Set(outcome.coverFiles)) await dropCoverIfUnused(ctx, file);
      ctx.log(
        `series ${seriesId} (${removed.folder}) removed from the library records; ${removed.recycleEntriesKept} recycle-bin entries kept`,
      );
      ctx.events.publish("series_changed", seriesId);
      return { id: seriesId, ...removed };
    },
  };
}

export type SeriesRemovalService = ReturnType<typeof seriesRemovalService>;
