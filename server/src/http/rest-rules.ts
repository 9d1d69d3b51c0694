/** REST of the rules' figures (GET /api/rules), the twin of GraphQL `rules`. */
import type { Hono } from "hono";
import { PRODUCT_RULES } from "../domain/rules.ts";

export function restRules() {
  return {
    max_black_share: PRODUCT_RULES.maxBlackShare,
    few_pages: PRODUCT_RULES.fewPages,
    oversized_book_pages: PRODUCT_RULES.oversizedBookPages,
    source_priority_min: PRODUCT_RULES.sourcePriorityMin,
    source_priority_max: PRODUCT_RULES.sourcePriorityMax,
  };
}

export function rulesRoutes(app: Hono): void {
  app.get("/api/rules", (c) => c.json(restRules()));
}
