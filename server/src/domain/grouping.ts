/**
 * The series-page grouping model (docs/rules.md, "Series page grouping"): what the web client renders, decided
 * here so the rules stay in the pure core. Input is the units view only; one pass builds the rows,
 * one pass groups them, one pass filters: linear in the number of units.
 *
 * - Exact map: one group per book in reading order, its chapters nested (by the unit's `book`, which
 *   comes from the exact map only; `estimatedBook` never places a row). Owned book: collapsed, page
 *   count, a "duplicates inside" note with the chapter files its retire action would move. Unowned
 *   book: expanded, with how many of its mapped chapters are on disk.
 * - No exact map: two flat sections, Books and Chapters, one sentence saying book content is unknown,
 *   and the map editor offered. Section order follows the form (the form's unit first).
 * - Trailing group: chapters that belong to no book. With an exact map that is every chapter without
 *   a book; without one it is the optional extras (ordinary chapters sit in the Chapters section).
 *   It stays last in both orders: it is outside the reading order, only its rows are reversed.
 * - Filters keep a group when its book or any child matches, and keep only matching children.
 *   Missing is a monitored hole (neither owned nor covered), as the library card counts it.
 *   `problemsOnly` narrows further to rows that are not fine. Reversing flips groups and children.
 */
import type { Label } from "./labels.ts";
import { isRedundantBook, planWording } from "./plans.ts";
import { isUnnumberedLabel } from "./source-numbering.ts";
import type { Coverage, MapState, Plan, PlanWording, SeriesCompletion, SeriesForm, Unit, UnitsView } from "./types.ts";

export type UnitFilter = "all" | "missing" | "downloaded" | "monitored";

export interface GroupingOptions {
  filter: UnitFilter;
  reversed: boolean;
  problemsOnly: boolean;
}

export type ActionId =
  | "read"
  | "search"
  | "assemble_book"
  | "search_book_file"
  | "interactive_search"
  | "retire_duplicates"
  | "edit_map"
  | "monitor"
  | "unmonitor";

export interface RowAction {
  id: ActionId;
  label: string;
}

export interface PageRow {
  key: string;
  kind: "book" | "chapter";
  number: Label;
  title: string;
  owned: boolean;
  ownedText: "Owned" | "Not owned";
  monitored: boolean;
  /** Owned books only. */
  pageCount: number | null;
  plan: Plan | null;
  /** The plan in the user's wording (books only). */
  planText: string | null;
  coverage: Coverage | null;
  fileIds: number[];
  problems: string[];
  /** Not fine: shown by "Problems only". */
  problem: boolean;
  /** Plain text for a chapter without a book that has an estimate; never a badge, never a group. */
  estimateHint: string | null;
  primary: RowAction | null;
  menu: RowAction[];
}

export interface DuplicatesInside {
  count: number;
  fileIds: number[];
  note: string;
}

export interface BookGroup {
  key: string;
  book: PageRow;
  collapsed: boolean;
  /** Unowned book: which of its chapters cover it ("7 of 9 chapters on disk"). */
  coverText: string | null;
  /** Owned book: chapter files inside it (exact map only). */
  duplicates: DuplicatesInside | null;
  /** e.g. a redundant book in an "all chapters" series. */
  note: string | null;
  children: PageRow[];
}

export interface FlatSection {
  key: "books" | "chapters";
  title: "Books" | "Chapters";
  rows: PageRow[];
}

export interface LooseGroup {
  key: "no-book";
  title: string;
  children: PageRow[];
}

export interface SeriesPageModel {
  seriesId: number;
  form: SeriesForm;
  map: MapState;
  status: SeriesCompletion;
  planWording: PlanWording;
  options: GroupingOptions;
  layout: "grouped" | "flat";
  /** Exact map: book groups in reading order (empty in the flat layout). */
  groups: BookGroup[];
  /** No exact map: the Books and Chapters sections (empty in the grouped layout). */
  sections: FlatSection[];
  /** Trailing group of chapters that belong to no book; null when empty after filtering. */
  loose: LooseGroup | null;
  /** The one sentence shown without an exact map. */
  notice: string | null;
  offerMapEditor: boolean;
}

export const UNMAPPED_NOTICE = "The content of each book is unknown: chapters are kept and no book counts as covered.";
export const REDUNDANT_NOTE = "Redundant: the whole series completes from chapters.";
export const LOOSE_TITLE = "Chapters without a book";

const act = (id: ActionId, label: string): RowAction => ({ id, label });

/** Not on disk and covered by nothing: a hole. */
const isMissing = (u: Pick<Unit, "owned" | "coverage">): boolean => !u.owned && u.coverage === null;

/**
 * Not fine: a stated problem, or a monitored hole. A book whose content is on disk (covered) is fine
 * even when it cannot be assembled yet; an unmonitored hole is the operator's choice (an ignored book
 * is fine).
 */
function isProblem(u: Unit): boolean {
  return u.problems.length > 0 || (u.monitored && isMissing(u));
}

function matchesFilter(u: Pick<Unit, "owned" | "coverage" | "monitored">, filter: UnitFilter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "missing":
      // A monitored hole, as the library card counts it (overview.ts): an unmonitored one is the
      // operator's choice, not something missing.
      return u.monitored && isMissing(u);
    case "downloaded":
      return u.owned;
    case "monitored":
      return u.monitored;
  }
}

function primaryAction(u: Unit, exact: boolean): RowAction | null {
  if (u.owned) return u.fileIds.length > 0 ? act("read", "Read") : null;
  // Assembly needs exact boundaries; the plan only says "assemble" under an exact map anyway.
  if (u.kind === "book" && u.plan === "assemble when its chapters are complete" && exact)
    return act("assemble_book", "Assemble book");
  if (isMissing(u)) return act("search", "Search");
  // Covered by chapters but not assemblable: only exact boundaries can turn it into a book.
  if (u.kind === "book" && u.coverage === "covered_by_chapters") return act("edit_map", "Set boundaries");
  return null;
}

function menuActions(u: Unit, duplicates: DuplicatesInside | null): RowAction[] {
  const menu = [
    u.monitored ? act("unmonitor", "Stop monitoring") : act("monitor", "Monitor"),
    act("interactive_search", "Interactive search"),
  ];
  if (u.kind === "book" && !u.owned && u.plan === "assemble when its chapters are complete")
    menu.push(act("search_book_file", "Search the book file"));
  if (duplicates)
    menu.push(
      act(
        "retire_duplicates",
        `Retire ${duplicates.count} duplicate chapter file${duplicates.count === 1 ? "" : "s"}…`,
      ),
    );
  return menu;
}

/**
 * "Book 3", "Chapter 12". An unnumbered release has only a technical label (domain/source-numbering.ts):
 * it is shown by the name its source lists, or as an unnumbered extra.
 */
export function rowTitle(u: Pick<Unit, "kind" | "number" | "title">): string {
  if (u.kind === "book") return `Book ${u.number}`;
  if (isUnnumberedLabel(u.number)) return u.title ? `Extra: ${u.title}` : "Unnumbered extra";
  return `Chapter ${u.number}`;
}

function makeRow(u: Unit, view: UnitsView, duplicates: DuplicatesInside | null = null): PageRow {
  const exact = view.map === "exact";
  return {
    key: `${u.kind}:${u.number}`,
    kind: u.kind,
    number: u.number,
    title: rowTitle(u),
    owned: u.owned,
    ownedText: u.owned ? "Owned" : "Not owned",
    monitored: u.monitored,
    pageCount: u.kind === "book" && u.owned ? u.pageCount : null,
    plan: u.kind === "book" ? u.plan : null,
    planText: u.kind === "book" && u.plan !== null ? planWording(u.plan, view.planWording) : null,
    coverage: u.coverage,
    fileIds: u.fileIds,
    problems: u.problems,
    problem: isProblem(u),
    estimateHint:
      u.kind === "chapter" && u.book === null && u.estimatedBook !== null
        ? `estimated in book ${u.estimatedBook}, not mapped`
        : null,
    primary: primaryAction(u, exact),
    menu: menuActions(u, duplicates),
  };
}

interface Draft {
  book: Unit;
  chapters: Unit[];
}

function bookGroup(d: Draft, view: UnitsView): BookGroup {
  const main = d.chapters.filter((c) => !c.extra);
  const onDisk = main.filter((c) => c.owned).length;
  let duplicates: DuplicatesInside | null = null;
  if (d.book.owned) {
    // Chapter files the owned book makes redundant, as the coverage index found them (exact map only).
    const ids = d.book.duplicateFileIds;
    if (ids.length > 0)
      duplicates = {
        count: ids.length,
        fileIds: ids,
        note: `duplicates inside: ${ids.length} chapter file${ids.length === 1 ? "" : "s"}`,
      };
  }
  const coverText = d.book.owned
    ? null
    : main.length === 0
      ? "chapters not known"
      : `${onDisk} of ${main.length} chapter${main.length === 1 ? "" : "s"} on disk`;
  return {
    key: `book:${d.book.number}`,
    book: makeRow(d.book, view, duplicates),
    collapsed: d.book.owned,
    coverText,
    duplicates,
    note: isRedundantBook(d.book, view.status) ? REDUNDANT_NOTE : null,
    children: d.chapters.map((c) => makeRow(c, view)),
  };
}

export function groupSeriesPage(view: UnitsView, options: GroupingOptions): SeriesPageModel {
  const exact = view.map === "exact";
  const keepRow = (row: PageRow): boolean =>
    matchesFilter(row, options.filter) && (!options.problemsOnly || row.problem);

  const groups: BookGroup[] = [];
  const sections: FlatSection[] = [];
  const looseUnits: Unit[] = [];
  if (exact) {
    const drafts = new Map<Label, Draft>();
    const order: Draft[] = [];
    for (const u of view.units) {
      if (u.kind !== "book") continue;
      const d = { book: u, chapters: [] };
      drafts.set(u.number, d);
      order.push(d);
    }
    for (const u of view.units) {
      if (u.kind !== "chapter") continue;
      const d = u.book === null ? undefined : drafts.get(u.book);
      if (d) d.chapters.push(u);
      else looseUnits.push(u);
    }
    for (const d of order) {
      const g = bookGroup(d, view);
      const children = g.children.filter(keepRow);
      if (keepRow(g.book) || children.length > 0) groups.push({ ...g, children });
    }
  } else {
    const books: PageRow[] = [];
    const chapters: PageRow[] = [];
    for (const u of view.units) {
      if (u.kind === "book") books.push(makeRow(u, view));
      else if (u.extra && u.book === null) looseUnits.push(u);
      else chapters.push(makeRow(u, view));
    }
    const b: FlatSection = { key: "books", title: "Books", rows: books.filter(keepRow) };
    const c: FlatSection = { key: "chapters", title: "Chapters", rows: chapters.filter(keepRow) };
    sections.push(...(view.form === "books" ? [b, c] : [c, b]));
  }
  const looseRows = looseUnits.map((u) => makeRow(u, view)).filter(keepRow);
  const model: SeriesPageModel = {
    seriesId: view.seriesId,
    form: view.form,
    map: view.map,
    status: view.status,
    planWording: view.planWording,
    options: { ...options, reversed: false },
    layout: exact ? "grouped" : "flat",
    groups,
    sections,
    loose: looseRows.length > 0 ? { key: "no-book", title: LOOSE_TITLE, children: looseRows } : null,
    notice: exact ? null : UNMAPPED_NOTICE,
    offerMapEditor: !exact,
  };
  return options.reversed ? reverseModel(model) : model;
}

/** The same model in the opposite reading order (groups, their children, section rows, loose rows). */
export function reverseModel(model: SeriesPageModel): SeriesPageModel {
  return {
    ...model,
    options: { ...model.options, reversed: !model.options.reversed },
    groups: model.groups.map((g) => ({ ...g, children: [...g.children].reverse() })).reverse(),
    sections: model.sections.map((s) => ({ ...s, rows: [...s.rows].reverse() })),
    loose: model.loose ? { ...model.loose, children: [...model.loose.children].reverse() } : null,
  };
}

/** Every row of the model in display order (for tests and for clients that need a flat list). */
export function modelRows(model: SeriesPageModel): PageRow[] {
  const out: PageRow[] = [];
  for (const g of model.groups) out.push(g.book, ...g.children);
  for (const s of model.sections) out.push(...s.rows);
  if (model.loose) out.push(...model.loose.children);
  return out;
}
