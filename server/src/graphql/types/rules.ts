import { PRODUCT_RULES, type ProductRules } from "../../domain/rules.ts";
import { builder } from "../builder.ts";

const RulesRef = builder.objectRef<ProductRules>("Rules").implement({
  description: "Figures of the service's rules, for clients to word them (REST: GET /api/rules).",
  fields: (t) => ({
    maxBlackShare: t.exposeFloat("maxBlackShare", {
      description: "A download with a larger share of black-card pages is degraded.",
    }),
    fewPages: t.exposeInt("fewPages", { description: "A file with fewer pages is flagged FEW_PAGES." }),
    oversizedBookPages: t.exposeInt("oversizedBookPages", {
      description: "A book with more pages is oversized (UNUSUAL_SIZE, suspect).",
    }),
    sourcePriorityMin: t.exposeInt("sourcePriorityMin", { description: "Lowest source mapping priority." }),
    sourcePriorityMax: t.exposeInt("sourcePriorityMax", { description: "Highest source mapping priority." }),
  }),
});

builder.queryField("rules", (t) => t.field({ type: RulesRef, resolve: () => PRODUCT_RULES }));
