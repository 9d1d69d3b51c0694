import { AppError } from "../../errors.ts";
import { MAX_ORDERED_LABELS, orderLabels, type LabelOrder } from "../../domain/labels.ts";
import type { ServiceRules } from "../../domain/rules.ts";
import { builder } from "../builder.ts";

const RulesRef = builder.objectRef<ServiceRules>("Rules").implement({
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
    calendarMinReleases: t.exposeInt("calendarMinReleases", {
      description: "The calendar predicts a series' next chapter from at least this many dated releases.",
    }),
    calendarMinIntervalDays: t.exposeInt("calendarMinIntervalDays", {
      description: "Shortest interval between releases (days) that counts toward the cadence.",
    }),
    calendarMaxIntervalDays: t.exposeInt("calendarMaxIntervalDays", {
      description: "Longest interval between releases (days) that counts toward the cadence.",
    }),
    calendarOverdueIntervals: t.exposeInt("calendarOverdueIntervals", {
      description: "After this many cadence intervals with nothing new, the series is overdue.",
    }),
    recycleRetentionDays: t.exposeInt("recycleRetentionDays", {
      description: "Days a retired file stays restorable in the recycle bin (RECYCLE_RETENTION_DAYS).",
    }),
  }),
});

builder.queryField("rules", (t) => t.field({ type: RulesRef, resolve: (_root, _args, ctx) => ctx.services.rules() }));

const LabelOrderRef = builder.objectRef<LabelOrder>("LabelOrder").implement({
  description:
    "Chapter or book numbers in the service's order (REST: POST /api/labels/order). Clients sort and step " +
    "numbers with this answer instead of comparing them themselves.",
  fields: (t) => ({
    labels: t.stringList({
      description: 'The canonical labels ("007" → "7", "10.50" → "10.5"), each once, in label order.',
      resolve: (o) => o.labels,
    }),
    rejected: t.exposeStringList("rejected", { description: "The texts that are not exact numbers, as given." }),
    nextWhole: t.exposeString("nextWhole", {
      description: 'The whole number after the highest label ("6.5" → "7"); "1" when there is none.',
    }),
  }),
});

builder.queryField("labelOrder", (t) =>
  t.field({
    type: LabelOrderRef,
    description: 'Orders chapter or book numbers exactly as the service does (docs/rules.md, "Labels").',
    args: { labels: t.arg.stringList({ required: true }) },
    resolve: (_root, { labels }) => {
      if (labels.length > MAX_ORDERED_LABELS)
        throw new AppError("invalid_field", `at most ${MAX_ORDERED_LABELS} labels can be ordered at once`);
      return orderLabels(labels);
    },
  }),
);
