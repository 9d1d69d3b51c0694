/**
 * The automatic-assembly monitor (spec "Assembled books" 7, "Limits"): a scheduled loop that, for
 * series with `assemble_books_automatically` on, previews and assembles ready books — at most
 * MAX_BOOKS_PER_CYCLE per cycle across the library — and defers a series (no attempt) while a
 * download of it is active or a library scan is running. Observable: last run, next run, outcome.
 */
import { isAppError } from "../errors.ts";
import type { Label } from "../domain/labels.ts";
import { activeDownloads } from "../repositories/audit-repo.ts";
import type { AssemblyService } from "./assembly-service.ts";
import type { AppContext } from "./context.ts";

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

export interface MonitorStatus {
  lastRun: string | null;
  nextRun: string | null;
  running: boolean;
  lastOutcome: MonitorOutcome | null;
}

export function assemblyMonitor(
  ctx: AppContext,
  deps: { assembly: Pick<AssemblyService, "preview" | "assemble" | "readiness">; scanning(): boolean },
) {
  let lastRun: Date | null = null;
  let nextRun: Date | null = null;
  let lastOutcome: MonitorOutcome | null = null;
  let current: Promise<MonitorOutcome> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function cycle(): Promise<MonitorOutcome> {
    const out: MonitorOutcome = { attempted: 0, assembled: 0, deferred: 0, failed: 0, books: [] };
    const series = await ctx.db.series.findMany({
      where: { assembleBooksAutomatically: true },
      select: { id: true },
      orderBy: { id: "asc" },
    });
    for (const { id } of series) {
      if (out.attempted >= MAX_BOOKS_PER_CYCLE) break;
      const ready = (await deps.assembly.readiness(id)).filter((b) => b.status === "ready").map((b) => b.volume);
      // An import under way could change these books' files: try again next cycle.
      if (deps.scanning() || (await activeDownloads(ctx.db, id)) > 0) {
        for (const volume of ready)
          out.books.push({ seriesId: id, volume, outcome: "deferred", code: "download_active" });
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

  /** Runs one cycle now (joins the one under way). */
  function runNow(): Promise<MonitorOutcome> {
    current ??= cycle()
      .then((o) => (lastOutcome = o))
      .finally(() => {
        lastRun = new Date();
        current = null;
      });
    return current;
  }

  return {
    runNow,
    status(): MonitorStatus {
      return {
        lastRun: lastRun?.toISOString() ?? null,
        nextRun: nextRun?.toISOString() ?? null,
        running: current !== null,
        lastOutcome,
      };
    },
    /** Starts the loop: a cycle every `intervalMs`, the next one scheduled after the last ends. */
    start(intervalMs: number): void {
      const schedule = () => {
        nextRun = new Date(Date.now() + intervalMs);
        timer = setTimeout(() => {
          runNow()
            .catch((e: unknown) => ctx.log(`assembly monitor: cycle failed: ${(e as Error).message}`))
            .finally(() => timer !== null && schedule());
        }, intervalMs);
        timer.unref();
      };
      if (timer === null) schedule();
    },
    async stop(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      nextRun = null;
      await current?.catch(() => undefined);
    },
  };
}

export type AssemblyMonitor = ReturnType<typeof assemblyMonitor>;
