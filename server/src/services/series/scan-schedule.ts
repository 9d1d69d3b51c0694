/**
 * The library scan on a schedule (LIBRARY_SCAN_INTERVAL_SECONDS; 0: only on request), as Komga and
 * Kavita rescan their libraries: files copied into the library root appear without anyone asking.
 * A scan already under way (a request's, or another instance's) is not waited for: the next cycle
 * comes soon enough, and a request is never refused because of a scheduled one it could have run.
 *
 * A library root that is missing, or holds no series folder while active files are recorded, is
 * skipped, not scanned (library/library-root.ts): an unmounted disk or share would otherwise mark
 * every file missing, and the Wanted pass would then fetch the whole library again. Only an
 * operator's scan records a library emptied on purpose.
 */
import { isAppError } from "../../errors.ts";
import { scheduledLoop } from "../../scheduled-loop.ts";
import type { AppContext } from "../context.ts";
import { libraryFolderState } from "../../library/library-root.ts";
import type { ScanResult } from "./scan-service.ts";

export function scanSchedule<S extends { scan(): Promise<ScanResult> }>(ctx: AppContext, scan: S) {
  const looksUnmounted = async () => (await libraryFolderState(ctx)) !== "present";

  const loop = scheduledLoop<ScanResult | null>(
    "library scan",
    async () => {
      if (await looksUnmounted()) {
        ctx.log(
          `library scan: skipped: ${ctx.config.libraryRoot} is missing or holds no series folder while files are recorded (is its disk mounted?)`,
        );
        return null;
      }
      try {
        return await scan.scan();
      } catch (e) {
        if (isAppError(e) && e.code === "scan_in_progress") return null;
        throw e;
      }
    },
    ctx.log,
    undefined,
    ctx.repos.scheduledRuns,
  );
  return {
    ...loop,
    /** The configured interval (0: off), for what readers' APIs say of the library. */
    intervalSeconds: ctx.config.libraryScanIntervalSeconds,
    /**
     * The scan as the operator and the other services ask for it: a whole scan that ended is a
     * cycle of the schedule too (as the *arr apps count a task run by hand), so the task list says
     * it ran and the next scheduled scan is one interval after it.
     */
    scanning: {
      ...scan,
      scan: async (): Promise<ScanResult> => {
        const result = await scan.scan();
        await loop.noteRun();
        return result;
      },
    } as S,
  };
}
