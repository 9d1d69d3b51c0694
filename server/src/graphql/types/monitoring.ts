import type { Unit } from "../../domain/types.ts";
import { builder } from "../builder.ts";
import { UnitKindEnum } from "./enums.ts";
import { UnitRef } from "./units.ts";

builder.mutationField("setMonitored", (t) =>
  t.field({
    type: UnitRef,
    description:
      "Monitors or stops monitoring one book or chapter (creates its slot when the series lists it without one); answers the unit as the units view now shows it. Error code unit_not_found for a number the series does not know.",
    args: {
      seriesId: t.arg.int({ required: true }),
      kind: t.arg({ type: UnitKindEnum, required: true }),
      number: t.arg.string({ required: true }),
      monitored: t.arg.boolean({ required: true }),
    },
    resolve: (_r, { seriesId, kind, number, monitored }, { services }): Promise<Unit> =>
      services.monitoring.setMonitored(seriesId, { kind, number, monitored }),
  }),
);
