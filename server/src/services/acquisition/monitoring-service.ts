/**
 * Monitoring one book or chapter from the series page's row menu (PUT /api/manga/{id}/monitoring,
 * GraphQL setMonitored). Monitoring lives on the slot (volume_slot / chapter_slot `monitored`).
 *
 * A unit the units view lists without a slot (a book file or map entry whose volume has no slot, a
 * chapter file without a chapter slot) gets its slot, created with the requested flag: the operator
 * has just said the unit exists. A slot created for a stray chapter file is an ordinary chapter. A
 * number the series does not know at all is refused with 404 `unit_not_found` rather than invented.
 * Answers the unit as the units view now shows it; publishes `series_changed`.
 */
import { AppError } from "../../errors.ts";
import { compareLabels } from "../../domain/labels.ts";
import type { Unit } from "../../domain/types.ts";
import type { AppContext } from "../context.ts";
import { asLabel } from "../input.ts";
import type { UnitsService } from "../series/units-service.ts";

/** Monitoring one book or chapter: its number an exact decimal label ("7", "10.5"). */
export interface MonitorInput {
  kind: Unit["kind"];
  number: string;
  monitored: boolean;
}

export function monitoringService(ctx: AppContext, units: UnitsService) {
  const find = (list: Unit[], kind: Unit["kind"], number: string) =>
    list.find((u) => u.kind === kind && compareLabels(u.number, number) === 0);

  return {
    async setMonitored(seriesId: number, input: MonitorInput): Promise<Unit> {
      const { kind, monitored } = input;
      const number = asLabel(input.number, "number");

      const before = await units.units(seriesId);
      if (!find(before.units, kind, number)) {
        throw new AppError("unit_not_found", `series ${seriesId} has no ${kind} ${number}`, { kind, number });
      }
      await ctx.repos.slots.setMonitored(kind, seriesId, number, monitored);
      ctx.events.publish("series_changed", seriesId);

      const unit = find((await units.units(seriesId)).units, kind, number);
      if (!unit) throw new AppError("unit_not_found", `series ${seriesId} has no ${kind} ${number}`, { kind, number });
      return unit;
    },
  };
}

export type MonitoringService = ReturnType<typeof monitoringService>;
