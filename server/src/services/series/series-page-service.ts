/**
 * What the web client shows of a series, decided by the rule core and only loaded here:
 * - `page`: the series page (GraphQL `seriesPage`): the units view — kept until the series changes
 *   (view-cache.ts), else the same load `units(seriesId)` makes, fixed lookups and five bulk
 *   selects, no archive opened — grouped by domain/grouping.ts on each request. Grouping takes
 *   0.03 ms for 50 units and under 2 ms for 10,000; kept as well, the pages of 200 small series held
 *   more memory than their units, and the service's heap grows with what it keeps.
 * - `overviews`: the library card of many series (GraphQL `Series.overview`): one select of their
 *   revisions, then the snapshots of the series that changed since their card was made, in one batch
 *   (snapshots-repo.ts: the same eight statements for up to 400 series), each units view built once
 *   and summarised by domain/overview.ts.
 */
import { buildCoverageIndex } from "../../domain/coverage.ts";
import { groupSeriesPage, type GroupingOptions, type SeriesPageModel } from "../../domain/grouping.ts";
import { seriesOverview, type SeriesOverview } from "../../domain/overview.ts";
import { seriesForm } from "../../domain/series-form.ts";
import { buildUnitsView } from "../../domain/units.ts";
import { loadSnapshots } from "../../repositories/snapshots-repo.ts";
import { catalogueRepo } from "../../repositories/catalogue-repo.ts";
import { seriesCoverUrl } from "./series-cover.ts";
import type { AppContext } from "../context.ts";
import type { UnitsService } from "./units-service.ts";
import type { ViewCache } from "./view-cache.ts";

export interface SeriesOverviewView extends SeriesOverview {
  /** First-page thumbnail of the cover file, else the catalogue cover (cookie auth works for an <img>). */
  coverUrl: string | null;
}

export const coverUrlOf = (fileId: number): string => `/api/files/${fileId}/thumbnail?page=first`;

export function seriesPageService(ctx: AppContext, units: UnitsService, views: ViewCache) {
  async function computeOverviews(seriesIds: readonly number[]): Promise<Map<number, SeriesOverviewView>> {
    const out = new Map<number, SeriesOverviewView>();
    for (const [id, snapshot] of await loadSnapshots(ctx.db, seriesIds)) {
      const o = seriesOverview(
        buildUnitsView(snapshot, buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series) })),
      );
      out.set(id, { ...o, coverUrl: o.coverFileId === null ? null : coverUrlOf(o.coverFileId) });
    }
    // No file has a cover yet: the cover a linked catalogue gave the series (one statement, only when needed).
    const bare = [...out].filter(([, o]) => o.coverUrl === null).map(([id]) => id);
    if (bare.length > 0)
      for (const id of await catalogueRepo(ctx.db).seriesWithCovers(bare)) {
        const o = out.get(id);
        if (o) out.set(id, { ...o, coverUrl: seriesCoverUrl(id) });
      }
    return out;
  }

  return {
    async page(seriesId: number, options: GroupingOptions): Promise<SeriesPageModel> {
      return groupSeriesPage(await units.units(seriesId), options);
    },

    /** The overview of each known series among `seriesIds` (unknown ids are absent). */
    overviews(seriesIds: readonly number[]): Promise<Map<number, SeriesOverviewView>> {
      return views.getMany(seriesIds, "overview", computeOverviews);
    },
  };
}

export type SeriesPageService = ReturnType<typeof seriesPageService>;
