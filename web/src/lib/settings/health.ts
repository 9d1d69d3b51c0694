/**
 * The Settings page's health panel (the *arr apps' System → Status → Health) and the navigation's
 * badge on "Settings": the GraphQL document and the words around the checks. The checks, their
 * levels and messages are the server's.
 */
import { graphql, type ResultOf } from "$lib/gql";

export const SYSTEM_HEALTH_QUERY = graphql(`
  query SystemHealth {
    systemHealth {
      status
      checks {
        code
        level
        message
      }
    }
  }
`);

export type SystemHealth = ResultOf<typeof SYSTEM_HEALTH_QUERY>["systemHealth"];
export type HealthCheckItem = SystemHealth["checks"][number];

/** The badge of a check: its words and the page's badge class. */
export function levelBadge(level: HealthCheckItem["level"]): { words: string; className: string } {
  return level === "ERROR" ? { words: "Error", className: "bad" } : { words: "Warning", className: "warn" };
}

/** The panel's summary line. */
export function healthSummary(health: SystemHealth): string {
  if (health.status === "OK") return "No problems found.";
  const errors = health.checks.filter((c) => c.level === "ERROR").length;
  const warnings = health.checks.length - errors;
  const parts = [
    errors > 0 ? `${errors} error${errors === 1 ? "" : "s"}` : null,
    warnings > 0 ? `${warnings} warning${warnings === 1 ? "" : "s"}` : null,
  ].filter((p): p is string => p !== null);
  return `${parts.join(" and ")} to look at.`;
}

/** How often an open page asks for the health again, for the navigation's badge. */
export const HEALTH_BADGE_REFRESH_MS = 5 * 60_000;

/**
 * The navigation's badge (as the *arr apps' count on System): how many checks are listed, coloured
 * by the server's status, and the words a screen reader hears. None when nothing is listed.
 */
export function navHealthBadge(health: SystemHealth): { count: number; className: string; label: string } | null {
  if (health.status === "OK" || health.checks.length === 0) return null;
  return {
    count: health.checks.length,
    className: health.status === "ERROR" ? "bad" : "warn",
    label: `Health: ${healthSummary(health)}`,
  };
}
