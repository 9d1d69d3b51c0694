/**
 * The library scan on a schedule (LIBRARY_SCAN_INTERVAL_SECONDS; 0: only on request), as Komga and
 * Kavita rescan their libraries: files copied into the library root appear without anyone asking.
 * A scan already under way (a request's, or another instance's) is not waited for: the next cycle
 * comes soon enough, and a request is never refused because of a scheduled one it could have run.
 */
import { isAppError } from "../../errors.ts";
import { scheduledLoop } from "../../scheduled-loop.ts";
import type { AppContext } from "../context.ts";
import type { ScanResult } from "./scan-service.ts";

export function scanSchedule(ctx: AppContext, scan: { scan(): Promise<ScanResult> }) {
  const loop = scheduledLoop<ScanResult | null>(
    "library scan",
    async () => {
      try {
        return await scan.scan();
      } catch (e) {
        if (isAppError(e) && e.code === "scan_in_progress") return null;
        throw e;
      }
    },
    ctx.log,
  );
  /** The configured interval (0: off), for what readers' APIs say of the library. */
  return { ...loop, intervalSeconds: ctx.config.libraryScanIntervalSeconds };
}
