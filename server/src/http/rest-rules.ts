/**
 * REST of the rules' figures (GET /api/rules), the twin of GraphQL `rules`, and of the label order
 * (POST /api/labels/order), the twin of GraphQL `labelOrder`.
 */
import type { Hono } from "hono";
import { AppError } from "../errors.ts";
import { MAX_ORDERED_LABELS, orderLabels } from "../domain/labels.ts";
import { jsonBody } from "./request.ts";
import { PRODUCT_RULES } from "../domain/rules.ts";

export function restRules() {
  return {
    max_black_share: PRODUCT_RULES.maxBlackShare,
    few_pages: PRODUCT_RULES.fewPages,
    oversized_book_pages: PRODUCT_RULES.oversizedBookPages,
    source_priority_min: PRODUCT_RULES.sourcePriorityMin,
    source_priority_max: PRODUCT_RULES.sourcePriorityMax,
    calendar_min_releases: PRODUCT_RULES.calendarMinReleases,
    calendar_min_interval_days: PRODUCT_RULES.calendarMinIntervalDays,
    calendar_max_interval_days: PRODUCT_RULES.calendarMaxIntervalDays,
    calendar_overdue_intervals: PRODUCT_RULES.calendarOverdueIntervals,
  };
}

export function rulesRoutes(app: Hono): void {
  app.get("/api/rules", (c) => c.json(restRules()));
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
