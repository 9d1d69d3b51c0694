import { AppError } from "../errors.ts";
import { buildCoverageIndex } from "../domain/coverage.ts";
import { buildUnitsView } from "../domain/units.ts";
import { seriesForm } from "../domain/series-form.ts";
import type { UnitsView } from "../domain/types.ts";
import { loadSnapshot } from "../repositories/snapshot-repo.ts";
import type { AppContext } from "./context.ts";

/**
 * The units of a series: two fixed lookups and five bulk selects, the index built once, no
 * archive opened (GET /api/manga/{id}/units and the GraphQL `units` field).
 */
export function unitsService(ctx: AppContext) {
  return {
    async units(seriesId: number): Promise<UnitsView> {
      const snapshot = await loadSnapshot(ctx.db, seriesId);
      if (!snapshot) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      return buildUnitsView(snapshot, buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series) }));
    },
  };
}

export type UnitsService = ReturnType<typeof unitsService>;
