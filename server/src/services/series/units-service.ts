import { AppError } from "../../errors.ts";
import { buildCoverageIndex } from "../../domain/coverage.ts";
import { buildUnitsView } from "../../domain/units.ts";
import { seriesForm } from "../../domain/series-form.ts";
import type { UnitsView } from "../../domain/types.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import type { AppContext } from "../context.ts";
import type { ViewCache } from "./view-cache.ts";

/**
 * The units of a series (GET /api/manga/{id}/units and the GraphQL `units` field), computed once
 * per series revision (view-cache.ts): a request reads the revision (one statement); when the
 * series changed since, two fixed lookups and five bulk selects load it, the index is built once,
 * and no archive is opened.
 */
export function unitsService(ctx: AppContext, views: ViewCache) {
  async function compute(seriesId: number): Promise<UnitsView> {
    const snapshot = await loadSnapshot(ctx.db, seriesId);
    if (!snapshot) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    return buildUnitsView(snapshot, buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series) }));
  }
  return {
    units: (seriesId: number): Promise<UnitsView> => views.get(seriesId, "units", () => compute(seriesId)),
  };
}

export type UnitsService = ReturnType<typeof unitsService>;
