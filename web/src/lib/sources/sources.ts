/** Pure helpers of the sources page: words for health and state, priority moves, provider choices. */
import type { HealthStatus } from "./queries";

/** The range of a mapping's priority, as the API gives it (GraphQL `rules`, REST GET /api/rules). */
export interface PriorityRange {
  min: number;
  max: number;
}

export function healthWords(status: HealthStatus | string): { label: string; tone: "good" | "warn" | "bad" | "" } {
  switch (status) {
    case "OK":
      return { label: "Healthy", tone: "good" };
    case "DEGRADED":
      return { label: "Some problems", tone: "warn" };
    case "FAILING":
      return { label: "Failing", tone: "bad" };
    case "UNKNOWN":
      return { label: "No downloads yet", tone: "" };
    default:
      return { label: String(status).toLowerCase(), tone: "" };
  }
}

/** The mapping's state in words; a rejected mapping says so. */
export function mappingStateWords(state: string): { label: string; tone: "good" | "bad" | "" } {
  const s = state.toLowerCase();
  if (s === "active") return { label: "Active", tone: "good" };
  if (s === "rejected") return { label: "Rejected", tone: "bad" };
  return { label: s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, " "), tone: "" };
}

export function clampPriority(value: number, range: PriorityRange): number {
  return Math.max(range.min, Math.min(range.max, Math.round(value)));
}

/**
 * The priority that moves the mapping at `index` (list ordered highest first) one place up or
 * down: just above (or below) its neighbour. Null when it cannot move.
 */
export function movedPriority(
  priorities: number[],
  index: number,
  direction: "up" | "down",
  range: PriorityRange,
): number | null {
  const own = priorities[index];
  const neighbour = priorities[direction === "up" ? index - 1 : index + 1];
  if (own === undefined || neighbour === undefined) return null;
  const next = clampPriority(direction === "up" ? Math.max(own, neighbour) + 1 : Math.min(own, neighbour) - 1, range);
  return next === own ? null : next;
}

/** "Drop folder" or the Suwayomi source's name. */
export function providerLabel(provider: string, displayName?: string | null): string {
  if (provider === "drop-folder") return "Drop folder";
  return displayName && displayName !== provider ? displayName : provider.replace(/^suwayomi:/, "Suwayomi source ");
}

/** A refresh result in one sentence. */
export function refreshSentence(
  r: { status: string; error: string | null; offers: number; added: number; updated: number; removed: number },
  name: string,
): string {
  if (r.status === "UNAVAILABLE") return `${name}: not available (check the settings); its offers stay as they were.`;
  if (r.status === "FAILED")
    return `${name}: the refresh failed${r.error ? ` (${r.error})` : ""}; its offers stay as they were.`;
  return `${name}: ${r.offers} offers (${r.added} new, ${r.updated} changed, ${r.removed} gone).`;
}

/** The headline of a drop-folder work's problems: "1 file could not be offered", "2 files …". */
export function problemsHeadline(count: number): string {
  return count === 1 ? "1 file could not be offered" : `${count} files could not be offered`;
}

/** A problem's reason in words: the server's sentence, with a hint where the code calls for one. */
export function problemReason(p: { code: string; detail: string }): string {
  if (p.code === "archive_truncated") return `${p.detail.replace(/\.$/, "")} (still being copied?).`;
  return p.detail;
}
