import { AppError } from "../../errors.ts";
import type { SeriesOverviewView } from "../../services/series/series-page-service.ts";
import type { GraphQLContext } from "../builder.ts";
import { builder } from "../builder.ts";
import { SeriesCompletionEnum } from "./enums.ts";

const SeriesOverviewRef = builder.objectRef<SeriesOverviewView>("SeriesOverview").implement({
  description:
    "A series at a glance (domain/overview.ts): monitored units neither owned nor covered are missing; extras never count; the cover is the first owned book, else the first owned chapter.",
  fields: (t) => ({
    coverFileId: t.int({ nullable: true, resolve: (o) => o.coverFileId }),
    coverUrl: t.string({
      nullable: true,
      description:
        "/api/files/{id}/thumbnail?page=first of the cover file; while no file has one, /api/manga/{id}/cover (a linked catalogue's cover).",
      resolve: (o) => o.coverUrl,
    }),
    completion: t.field({ type: SeriesCompletionEnum, nullable: true, resolve: (o) => o.completion }),
    books: t.exposeInt("books"),
    booksOwned: t.exposeInt("booksOwned"),
    chapters: t.exposeInt("chapters", { description: "Main chapters (extras excluded)." }),
    chaptersOwned: t.exposeInt("chaptersOwned"),
    missingBooks: t.exposeInt("missingBooks"),
    missingChapters: t.exposeInt("missingChapters"),
    hasGaps: t.exposeBoolean("hasGaps", { description: "missingBooks + missingChapters > 0" }),
  }),
});

/**
 * One batch per tick and request: every `overview` field of a list resolves in the same tick, so
 * `seriesList { overview }` loads all its series with one fixed set of statements instead of one
 * snapshot per series. Nothing is cached past the batch (a long-lived WebSocket context must not
 * serve old counts).
 */
const batches = new WeakMap<GraphQLContext, { ids: Set<number>; result: Promise<Map<number, SeriesOverviewView>> }>();

function loadOverview(ctx: GraphQLContext, seriesId: number): Promise<SeriesOverviewView> {
  let batch = batches.get(ctx);
  if (!batch) {
    const ids = new Set<number>();
    const result = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      batches.delete(ctx);
      return ctx.services.seriesPage.overviews([...ids]);
    });
    batch = { ids, result };
    batches.set(ctx, batch);
  }
  batch.ids.add(seriesId);
  return batch.result.then((m) => {
    const o = m.get(seriesId);
    if (!o) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    return o;
  });
}

builder.prismaObjectField("Series", "overview", (t) =>
  t.field({
    type: SeriesOverviewRef,
    description: "Counts, gaps and cover for the library card.",
    resolve: (s, _args, ctx) => loadOverview(ctx, s.id),
  }),
);
