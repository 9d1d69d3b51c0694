/** GraphQL of removing a series: translation to the series-removal service, nothing else. */
import type { RemovedSeriesView, SeriesRemovalView } from "../../services/series/series-removal-service.ts";
import { builder } from "../builder.ts";

const SeriesBusyRef = builder.objectRef<SeriesRemovalView["busy"]>("SeriesBusy").implement({
  description: "What is under way for a series, by kind (0 when nothing).",
  fields: (t) => ({
    downloads: t.int({ resolve: (b) => b.downloads ?? 0 }),
    torrentJobs: t.int({ resolve: (b) => b.torrentJobs ?? 0 }),
    translationJobs: t.int({ resolve: (b) => b.translationJobs ?? 0 }),
    publications: t.int({ description: "File moves into or out of the library.", resolve: (b) => b.publications ?? 0 }),
  }),
});

const SeriesRemovalRef = builder.objectRef<SeriesRemovalView>("SeriesRemoval").implement({
  description:
    "Whether the series can be removed now (docs/rules.md, Removing a series): only when the library holds no active file of it and nothing is under way.",
  fields: (t) => ({
    allowed: t.exposeBoolean("allowed"),
    refusal: t.string({
      nullable: true,
      description: "series_has_files | series_busy; null when allowed.",
      resolve: (r) => r.refusal,
    }),
    activeFiles: t.exposeInt("activeFiles"),
    busy: t.field({ type: SeriesBusyRef, resolve: (r) => r.busy }),
    folderPresent: t.exposeBoolean("folderPresent", {
      description: "Whether the series' folder is on disk (a removal never touches it either way).",
    }),
  }),
});

const RemovedSeriesRef = builder.objectRef<RemovedSeriesView>("RemovedSeries").implement({
  description: "A series removed from the library's records (nothing on disk was touched).",
  fields: (t) => ({
    id: t.exposeInt("id"),
    title: t.exposeString("title"),
    folder: t.exposeString("folder"),
    recycleEntriesKept: t.exposeInt("recycleEntriesKept", {
      description: "Recycle-bin entries of the series, still listed and restorable.",
    }),
  }),
});

builder.prismaObjectField("Series", "removal", (t) =>
  t.field({
    type: SeriesRemovalRef,
    resolve: (s, _a, { services }) => services.seriesRemoval.removal(s.id),
  }),
);

builder.mutationField("removeSeries", (t) =>
  t.field({
    type: RemovedSeriesRef,
    description:
      "Removes a series whose files are all gone from the library; nothing on disk is touched (error codes series_has_files, series_busy, scan_in_progress).",
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.seriesRemoval.remove(seriesId),
  }),
);
