import type { Unit, UnitsView } from "../../domain/types.ts";
import { builder } from "../builder.ts";
import {
  CoverageEnum,
  MapStateEnum,
  PlanEnum,
  PlanWordingEnum,
  SeriesCompletionEnum,
  SeriesFormEnum,
  UnitKindEnum,
} from "./enums.ts";

export const UnitRef = builder.objectRef<Unit>("Unit").implement({
  description: "A book or chapter of a series in reading order (GET /api/manga/{id}/units).",
  fields: (t) => ({
    kind: t.field({ type: UnitKindEnum, resolve: (u) => u.kind }),
    number: t.exposeString("number", { description: "Exact decimal label." }),
    book: t.string({ nullable: true, description: "Book from the exact map only.", resolve: (u) => u.book }),
    owned: t.exposeBoolean("owned"),
    monitored: t.exposeBoolean("monitored"),
    coverage: t.field({ type: CoverageEnum, nullable: true, resolve: (u) => u.coverage }),
    plan: t.field({ type: PlanEnum, nullable: true, resolve: (u) => u.plan }),
    estimatedBook: t.string({
      nullable: true,
      description: "An estimate for display only; nothing decides from it.",
      resolve: (u) => u.estimatedBook,
    }),
    pageCount: t.int({ nullable: true, resolve: (u) => u.pageCount }),
    fileIds: t.intList({ resolve: (u) => u.fileIds }),
    duplicateFileIds: t.intList({
      description: "Chapter files made redundant through the exact map (what a retire action would move).",
      resolve: (u) => u.duplicateFileIds,
    }),
    problems: t.stringList({ resolve: (u) => u.problems }),
    extra: t.exposeBoolean("extra"),
  }),
});

export const UnitsViewRef = builder.objectRef<UnitsView>("UnitsView").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    form: t.field({ type: SeriesFormEnum, resolve: (v) => v.form }),
    map: t.field({ type: MapStateEnum, resolve: (v) => v.map }),
    status: t.field({ type: SeriesCompletionEnum, nullable: true, resolve: (v) => v.status }),
    planWording: t.field({ type: PlanWordingEnum, resolve: (v) => v.planWording }),
    units: t.field({ type: [UnitRef], resolve: (v) => v.units }),
  }),
});

builder.queryField("units", (t) =>
  t.field({
    type: UnitsViewRef,
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_root, { seriesId }, { services }) => services.units.units(seriesId),
  }),
);
