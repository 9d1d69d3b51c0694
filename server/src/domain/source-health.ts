/**
 * The health of a linked source, from its latest downloads (each series' Sources page, and the
 * service's health for the whole library): "unknown" without a finished one among its latest
 * RECENT_DOWNLOADS, "failing" when at least half of the finished ones (and at least two) ended
 * degraded or failed, "degraded" when any did, else "ok".
 */

export type MappingHealthStatus = "unknown" | "ok" | "degraded" | "failing";

export interface MappingHealth {
  status: MappingHealthStatus;
  recent: number;
  published: number;
  degraded: number;
  failed: number;
  lastProblemAt: Date | null;
}

/** How many of a source's latest downloads its health reads. */
export const RECENT_DOWNLOADS = 10;

const PROBLEM_STATES = new Set(["degraded", "failed"]);

/** `states`: a source's latest downloads, newest first (at most RECENT_DOWNLOADS are read). */
export function healthOf(states: readonly { state: string; updatedAt: Date }[]): MappingHealth {
  const done = states.slice(0, RECENT_DOWNLOADS).filter((d) => d.state === "published" || PROBLEM_STATES.has(d.state));
  const degraded = done.filter((d) => d.state === "degraded").length;
  const failed = done.filter((d) => d.state === "failed").length;
  const problems = degraded + failed;
  const lastProblem = done.find((d) => PROBLEM_STATES.has(d.state));
  const status: MappingHealthStatus =
    done.length === 0
      ? "unknown"
      : problems >= 2 && problems * 2 >= done.length
        ? "failing"
        : problems > 0
          ? "degraded"
          : "ok";
  return {
    status,
    recent: done.length,
    published: done.length - problems,
    degraded,
    failed,
    lastProblemAt: lastProblem?.updatedAt ?? null,
  };
}

/** Downloads (newest first) grouped by their source, each group newest first and cut to RECENT_DOWNLOADS. */
export function latestBySource<D extends { sourceMappingId: number | null }>(
  downloads: readonly D[],
): Map<number, D[]> {
  const out = new Map<number, D[]>();
  for (const d of downloads) {
    if (d.sourceMappingId === null) continue;
    const list = out.get(d.sourceMappingId) ?? [];
    if (list.length < RECENT_DOWNLOADS) list.push(d);
    out.set(d.sourceMappingId, list);
  }
  return out;
}
