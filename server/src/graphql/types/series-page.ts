import type {
  BookGroup,
  DuplicatesInside,
  FlatSection,
  LooseGroup,
  PageRow,
  RowAction,
  SeriesPageModel,
} from "../../domain/grouping.ts";
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

/** The series-page grouping model of domain/grouping.ts, field for field; the resolver only translates. */

export const UnitFilterEnum = builder.enumType("UnitFilter", {
  values: {
    ALL: { value: "all" },
    MISSING: { value: "missing" },
    DOWNLOADED: { value: "downloaded" },
    MONITORED: { value: "monitored" },
  } as const,
});
const PageLayoutEnum = builder.enumType("PageLayout", {
  description: "GROUPED: books with their chapters nested (exact map); FLAT: the Books and Chapters sections.",
  values: { GROUPED: { value: "grouped" }, FLAT: { value: "flat" } } as const,
});
const RowActionIdEnum = builder.enumType("RowActionId", {
  values: {
    READ: { value: "read" },
    SEARCH: { value: "search" },
    ASSEMBLE_BOOK: { value: "assemble_book" },
    SEARCH_BOOK_FILE: { value: "search_book_file" },
    INTERACTIVE_SEARCH: { value: "interactive_search" },
    RETIRE_DUPLICATES: { value: "retire_duplicates" },
    EDIT_MAP: { value: "edit_map" },
    MONITOR: { value: "monitor" },
    UNMONITOR: { value: "unmonitor" },
  } as const,
});

const RowActionRef = builder.objectRef<RowAction>("RowAction").implement({
  fields: (t) => ({
    id: t.field({ type: RowActionIdEnum, resolve: (a) => a.id }),
    label: t.exposeString("label"),
  }),
});

const PageRowRef = builder.objectRef<PageRow>("PageRow").implement({
  description: "One book or chapter row of the series page.",
  fields: (t) => ({
    key: t.exposeString("key", { description: "Stable key: book:<n> or chapter:<n>." }),
    kind: t.field({ type: UnitKindEnum, resolve: (r) => r.kind }),
    number: t.exposeString("number", { description: "Exact decimal label." }),
    title: t.exposeString("title"),
    owned: t.exposeBoolean("owned"),
    ownedText: t.exposeString("ownedText", { description: "Owned | Not owned" }),
    monitored: t.exposeBoolean("monitored"),
    pageCount: t.int({ nullable: true, description: "Owned books only.", resolve: (r) => r.pageCount }),
    plan: t.field({ type: PlanEnum, nullable: true, resolve: (r) => r.plan }),
    planText: t.string({
      nullable: true,
      description: "The plan in the series' plan wording (books only).",
      resolve: (r) => r.planText,
    }),
    coverage: t.field({ type: CoverageEnum, nullable: true, resolve: (r) => r.coverage }),
    fileIds: t.exposeIntList("fileIds"),
    problems: t.exposeStringList("problems"),
    problem: t.exposeBoolean("problem", { description: "Not fine: what Problems only keeps." }),
    estimateHint: t.string({
      nullable: true,
      description: "Plain text for a chapter without a book that has an estimate; never a badge, never a group.",
      resolve: (r) => r.estimateHint,
    }),
    primary: t.field({ type: RowActionRef, nullable: true, resolve: (r) => r.primary }),
    menu: t.field({ type: [RowActionRef], resolve: (r) => r.menu }),
  }),
});

const DuplicatesInsideRef = builder.objectRef<DuplicatesInside>("DuplicatesInside").implement({
  description: "Chapter files inside an owned book (exact map only): what its retire action would move.",
  fields: (t) => ({
    count: t.exposeInt("count"),
    fileIds: t.exposeIntList("fileIds"),
    note: t.exposeString("note"),
  }),
});

const BookGroupRef = builder.objectRef<BookGroup>("BookGroup").implement({
  fields: (t) => ({
    key: t.exposeString("key"),
    book: t.field({ type: PageRowRef, resolve: (g) => g.book }),
    collapsed: t.exposeBoolean("collapsed", { description: "Owned books start collapsed." }),
    coverText: t.string({
      nullable: true,
      description: 'Unowned book: e.g. "7 of 9 chapters on disk".',
      resolve: (g) => g.coverText,
    }),
    duplicates: t.field({ type: DuplicatesInsideRef, nullable: true, resolve: (g) => g.duplicates }),
    note: t.string({ nullable: true, resolve: (g) => g.note }),
    children: t.field({ type: [PageRowRef], resolve: (g) => g.children }),
  }),
});

const FlatSectionRef = builder.objectRef<FlatSection>("FlatSection").implement({
  fields: (t) => ({
    key: t.exposeString("key", { description: "books | chapters" }),
    title: t.exposeString("title"),
    rows: t.field({ type: [PageRowRef], resolve: (s) => s.rows }),
  }),
});

const LooseGroupRef = builder.objectRef<LooseGroup>("LooseGroup").implement({
  description: "The trailing group of chapters that belong to no book.",
  fields: (t) => ({
    key: t.exposeString("key"),
    title: t.exposeString("title"),
    children: t.field({ type: [PageRowRef], resolve: (l) => l.children }),
  }),
});

const SeriesPageRef = builder.objectRef<SeriesPageModel>("SeriesPage").implement({
  description: "The series page by the grouping rules (domain/grouping.ts); the client renders it as given.",
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    form: t.field({ type: SeriesFormEnum, resolve: (m) => m.form }),
    map: t.field({ type: MapStateEnum, resolve: (m) => m.map }),
    status: t.field({ type: SeriesCompletionEnum, nullable: true, resolve: (m) => m.status }),
    planWording: t.field({ type: PlanWordingEnum, resolve: (m) => m.planWording }),
    layout: t.field({ type: PageLayoutEnum, resolve: (m) => m.layout }),
    groups: t.field({
      type: [BookGroupRef],
      description: "GROUPED layout: book groups in the chosen order.",
      resolve: (m) => m.groups,
    }),
    sections: t.field({
      type: [FlatSectionRef],
      description: "FLAT layout: the Books and Chapters sections.",
      resolve: (m) => m.sections,
    }),
    loose: t.field({
      type: LooseGroupRef,
      nullable: true,
      description: "Null when empty after filtering.",
      resolve: (m) => m.loose,
    }),
    notice: t.string({
      nullable: true,
      description: "The one sentence shown without an exact map.",
      resolve: (m) => m.notice,
    }),
    offerMapEditor: t.exposeBoolean("offerMapEditor"),
  }),
});

builder.queryField("seriesPage", (t) =>
  t.field({
    type: SeriesPageRef,
    args: {
      seriesId: t.arg.int({ required: true }),
      filter: t.arg({ type: UnitFilterEnum, defaultValue: "all" }),
      reversed: t.arg.boolean({ defaultValue: false }),
      problemsOnly: t.arg.boolean({ defaultValue: false }),
    },
    resolve: (_r, { seriesId, filter, reversed, problemsOnly }, { services }) =>
      services.seriesPage.page(seriesId, {
        filter: filter ?? "all",
        reversed: reversed ?? false,
        problemsOnly: problemsOnly ?? false,
      }),
  }),
);
