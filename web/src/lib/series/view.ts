/**
 * Pure helpers of the series page. The server's `seriesPage` model decides grouping, filters,
 * order and problems; these only turn it into what is on screen: the toolbar state in the URL,
 * which actions the page can carry out, and the rows rendered so far (incremental rendering keeps
 * a 2,000-chapter series fast).
 */
import type { BookGroup, FlatSection, LooseGroup, PageRow, RowAction, SeriesPage, UnitFilter } from "$lib/types";

/* ------------------------------------ Toolbar state ------------------------------------ */

export interface ViewOptions {
  filter: UnitFilter;
  reversed: boolean;
  problemsOnly: boolean;
}

export const DEFAULT_VIEW: ViewOptions = { filter: "ALL", reversed: false, problemsOnly: false };

export const FILTERS: { value: UnitFilter; label: string }[] = [
  { value: "ALL", label: "All" },
  { value: "MISSING", label: "Missing" },
  { value: "DOWNLOADED", label: "Downloaded" },
  { value: "MONITORED", label: "Monitored" },
];

const FILTER_PARAM: Record<UnitFilter, string> = {
  ALL: "all",
  MISSING: "missing",
  DOWNLOADED: "downloaded",
  MONITORED: "monitored",
};

/** `?filter=missing&order=desc&problems=1`; anything unknown falls back to the default. */
export function parseViewOptions(params: URLSearchParams): ViewOptions {
  const raw = (params.get("filter") ?? "").toLowerCase();
  const filter = (Object.keys(FILTER_PARAM) as UnitFilter[]).find((f) => FILTER_PARAM[f] === raw) ?? "ALL";
  return { filter, reversed: params.get("order") === "desc", problemsOnly: params.get("problems") === "1" };
}

/** The URL's query for these options: defaults are left out, other parameters are kept. */
export function viewOptionsSearch(current: URLSearchParams, options: ViewOptions): string {
  const params = new URLSearchParams(current);
  params.delete("filter");
  params.delete("order");
  params.delete("problems");
  if (options.filter !== "ALL") params.set("filter", FILTER_PARAM[options.filter]);
  if (options.reversed) params.set("order", "desc");
  if (options.problemsOnly) params.set("problems", "1");
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function isDefaultView(o: ViewOptions): boolean {
  return o.filter === "ALL" && !o.problemsOnly;
}

/** Says which filter hides everything (the order never hides anything). */
export function emptyViewText(o: ViewOptions): string {
  const label = FILTERS.find((f) => f.value === o.filter)?.label ?? o.filter;
  if (o.filter !== "ALL" && o.problemsOnly) return `No book or chapter matches the ${label} filter with Problems only.`;
  if (o.filter !== "ALL") return `No book or chapter matches the ${label} filter.`;
  if (o.problemsOnly) return "Problems only hides everything: no book or chapter has a problem.";
  return "Nothing is on disk or expected for this series yet.";
}

/* --------------------------------------- Actions --------------------------------------- */

/** True when some book row offers assembly (so "Assemble all books…" has something to do). */
export function offersAssembly(page: SeriesPage): boolean {
  const offers = (r: PageRow) => r.primary?.id === "ASSEMBLE_BOOK" || r.menu.some((a) => a.id === "ASSEMBLE_BOOK");
  return page.groups.some((g) => offers(g.book)) || page.sections.some((s) => s.rows.some(offers));
}

/* ---------------------------------- Incremental rendering ---------------------------------- */

/** Rows rendered at first, and added each time the end of the list scrolls into view. */
export const FIRST_ROWS = 120;
export const MORE_ROWS = 240;

export type Block =
  | { type: "group"; key: string; group: BookGroup; open: boolean; children: PageRow[] }
  | { type: "section"; key: string; section: FlatSection; rows: PageRow[] }
  | { type: "loose"; key: string; loose: LooseGroup; rows: PageRow[] };

export interface Window {
  blocks: Block[];
  /** Rows rendered. */
  shown: number;
  /** Rows there are to render with the current open groups. */
  total: number;
}

/**
 * Open groups: the user's choice, else the server's (owned books start collapsed). While a filter
 * or Problems only narrows the page, groups start open: the matching children are what was asked for.
 */
export function isOpen(group: BookGroup, choices: ReadonlyMap<string, boolean>, narrowed = false): boolean {
  return choices.get(group.key) ?? (narrowed || !group.collapsed);
}

/**
 * The page's groups, sections and trailing group with at most `limit` rows, in the server's
 * order. A closed group shows its book row only; empty sections are left out.
 */
export function windowPage(
  page: SeriesPage,
  choices: ReadonlyMap<string, boolean>,
  limit: number,
  narrowed = false,
): Window {
  const blocks: Block[] = [];
  let shown = 0;
  let total = 0;
  const take = (rows: readonly PageRow[]): PageRow[] => {
    total += rows.length;
    const room = Math.max(0, limit - shown);
    const kept = rows.length <= room ? [...rows] : rows.slice(0, room);
    shown += kept.length;
    return kept;
  };

  for (const group of page.groups) {
    const open = isOpen(group, choices, narrowed);
    const fits = shown < limit;
    total += 1;
    if (fits) shown += 1;
    const children = open ? take(group.children) : [];
    if (fits) blocks.push({ type: "group", key: group.key, group, open, children });
  }
  for (const section of page.sections) {
    if (section.rows.length === 0) continue;
    const fits = shown < limit;
    const rows = take(section.rows);
    if (fits) blocks.push({ type: "section", key: section.key, section, rows });
  }
  if (page.loose && page.loose.children.length > 0) {
    const fits = shown < limit;
    const rows = take(page.loose.children);
    if (fits) blocks.push({ type: "loose", key: page.loose.key, loose: page.loose, rows });
  }
  return { blocks, shown, total };
}

/** True when the model has no row at all (after the server's filters). */
export function isEmptyPage(page: SeriesPage): boolean {
  return (
    page.groups.length === 0 &&
    page.sections.every((s) => s.rows.length === 0) &&
    (page.loose?.children.length ?? 0) === 0
  );
}

/* --------------------------------------- Menus --------------------------------------- */

export interface MenuItem {
  label: string;
  href?: string;
  onselect?: () => void;
}

/**
 * Where an action goes when it is a link (READ opens the reader on the row's first file,
 * EDIT_MAP the map editor); null for actions carried out on the page.
 */
export function actionHref(action: RowAction, row: Pick<PageRow, "fileIds">, seriesId: number): string | null {
  if (action.id === "READ") return row.fileIds[0] === undefined ? null : `/read/${row.fileIds[0]}`;
  if (action.id === "EDIT_MAP") return `/series/${seriesId}/map`;
  return null;
}
