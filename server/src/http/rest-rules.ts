/**
 * REST of the rules' figures (GET /api/rules), the twin of GraphQL `rules`, and of the label order
 * (POST /api/labels/order), the twin of GraphQL `labelOrder`.
 */
import type { Hono } from "hono";
import { AppError } from "../errors.ts";
import { MAX_ORDERED_LABELS, orderLabels } from "../domain/labels.ts";
import { jsonBody } from "./request.ts";
import type { ServiceRules } from "../domain/rules.ts";
import type { Services } from "../services/index.ts";

export function restRules(rules: ServiceRules) {
  return {
    max_black_share: rules.maxBlackShare,
    few_pages: rules.fewPages,
    oversized_book_pages: rules.oversizedBookPages,
    source_priority_min: rules.sourcePriorityMin,
    source_priority_max: rules.sourcePriorityMax,
    calendar_min_releases: rules.calendarMinReleases,
    calendar_min_interval_days: rules.calendarMinIntervalDays,
    calendar_max_interval_days: rules.calendarMaxIntervalDays,
    calendar_overdue_intervals: rules.calendarOverdueIntervals,
    recycle_retention_days: rules.recycleRetentionDays,
  };
}

export function rulesRoutes(app: Hono, services: Services): void {
  app.get("/api/rules", (c) => c.json(restRules(services.rules())));
  app.post("/api/labels/order", async (c) => {
    const body = (await jsonBody(c)) as { labels?: unknown } | null;
    const labels = body?.labels;
    if (!Array.isArray(labels) || !labels.every((l): l is string => typeof l === "string"))
      throw new AppError("invalid_field", "labels must be a list of strings");
    if (labels.length > MAX_ORDERED_LABELS)
      throw new AppError("invalid_field", `at most ${MAX_ORDERED_LABELS} labels can be ordered at once`);
    const order = orderLabels(labels);
    return c.json({ labels: order.labels, rejected: order.rejected, next_whole: order.nextWhole });
  });
}
