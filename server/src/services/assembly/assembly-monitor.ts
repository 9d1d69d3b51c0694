/**
 * The automatic-assembly monitor (docs/rules.md, "Assembly"): a scheduled loop that, for
 * series with `assemble_books_automatically` on, previews and assembles ready books — at most
 * MAX_BOOKS_PER_CYCLE per cycle across the library — and defers a series (no attempt) while an
 * import is active: a download of it, a torrent or translation of it being imported, or a library
 * scan. Observable: last run, next run, outcome.
 */
import { isAppError } from "../../errors.ts";
import type { Label } from "../../domain/labels.ts";
import { activeDownloads, activeImports } from "../../repositories/audit-repo.ts";
import type { AssemblyService } from "./assembly-service.ts";
import type { AppContext } from "../context.ts";
import { scheduledLoop, type LoopStatus } from "../../scheduled-loop.ts";

export const MAX_BOOKS_PER_CYCLE = 4;

export interface MonitorBook {
  seriesId: number;
  volume: Label;
  outcome: "assembled" | "deferred" | "failed";
  code: string | null;
}

export interface MonitorOutcome {
  attempted: number;
  assembled: number;
  deferred: number;
  failed: number;
  books: MonitorBook[];
}

export type MonitorStatus = LoopStatus<MonitorOutcome>;

export function assemblyMonitor(
  ctx: AppContext,
  deps: { assembly: Pick<AssemblyService, "preview" | "assemble" | "readiness">; scanning(): boolean },
) {
  async function cycle(): Promise<MonitorOutcome> {
    const out: MonitorOutcome = { attempted: 0, assembled: 0, deferred: 0, failed: 0, books: [] };
    const series = await ctx.repos.series.idsWhere({ assembleBooksAutomatically: true });
    for (const id of series) {
      if (out.attempted >= MAX_BOOKS_PER_CYCLE) break;
      const ready = (await deps.assembly.readiness(id)).filter((b) => b.status === "ready").map((b) => b.volume);
      // An import under way could change these books' files: try again next cycle.
      const busy =
        deps.scanning() || (await activeDownloads(ctx.db, id)) > 0
          ? "download_active"
          : (await activeImports(ctx.db, id)) > 0
            ? "import_active"
            : null;
      if (busy) {
        for (const volume of ready) out.books.push({ seriesId: id, volume, outcome: "deferred", code: busy });
        out.deferred += ready.length;
        continue;
      }
      for (const volume of ready) {
        if (out.attempted >= MAX_BOOKS_PER_CYCLE) break;
        out.attempted += 1;
        try {
          const p = await deps.assembly.preview(id, volume);
          await deps.assembly.assemble(id, volume, p.confirmation);
          out.assembled += 1;
          out.books.push({ seriesId: id, volume, outcome: "assembled", code: null });
        } catch (e) {
          if (!isAppError(e)) ctx.log(`assembly monitor: series ${id} book ${volume}: ${(e as Error).message}`);
          out.failed += 1;
          out.books.push({ seriesId: id, volume, outcome: "failed", code: isAppError(e) ? e.code : "internal" });
        }
      }
    }
    return out;
  }

  return scheduledLoop("assembly monitor", cycle, ctx.log, ctx.cluster.turn, ctx.repos.scheduledRuns);
}

export type AssemblyMonitor = ReturnType<typeof assemblyMonitor>;
