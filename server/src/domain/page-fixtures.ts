/**
 * Test builders for the series-form, plan, units and grouping rules. They build CoverageIndex values
 * by hand (the real rules live in coverage.ts); `scenarioIndex` derives a consistent index from a
 * short description with deliberately simple rules, enough for page-level tests and benchmarks.
 */
import { compareLabels, label, type Label } from "./labels.ts";
import { labels, seriesFacts as baseSeriesFacts } from "./test-fixtures.ts";
import type {
  BookState,
  ChapterState,
  CoverageIndex,
  MapState,
  OperationalMap,
  SeriesFacts,
  SeriesSnapshot,
  Unit,
  UnitsView,
} from "./types.ts";

export const L = (x: string | number): Label => label(x);

/** Series 7 "Series": finished, three books (the other defaults as in test-fixtures.ts). */
export function seriesFacts(over: Partial<SeriesFacts> = {}): SeriesFacts {
  return baseSeriesFacts({ id: 7, title: "Series", knownBookCount: 3, ...over });
}

export function snapshotOf(over: Partial<SeriesSnapshot> = {}): SeriesSnapshot {
  return {
    series: seriesFacts(),
    volumes: [],
    chapters: [],
    mapSources: [],
    files: [],
    releases: [],
    verifications: [],
    ...over,
  };
}

/** An operational map from `{ book: chapters }`; an empty list is an explicitly unknown book. */
export function mapOf(state: MapState, entries: Record<string, string[]> = {}, revision = 1): OperationalMap {
  const books = new Map<Label, Label[]>();
  const unknownBooks = new Set<Label>();
  const chapterToBook = new Map<Label, Label>();
  for (const [book, chapters] of Object.entries(entries)) {
    if (chapters.length === 0) unknownBooks.add(L(book));
    else books.set(L(book), chapters.map(L));
    for (const c of chapters) chapterToBook.set(L(c), L(book));
  }
  return { state, books, unknownBooks, chapterToBook, conflicts: new Map(), ambiguousBooks: new Set(), revision };
}

export function bookState(number: string | number, over: Partial<BookState> = {}): BookState {
  return {
    number: L(number),
    slotId: 100 + Number(number),
    monitored: true,
    owned: false,
    fileIds: [],
    pageCount: null,
    provenAssembly: false,
    coversChapters: false,
    suspect: null,
    verified: false,
    chapters: null,
    chaptersOnDisk: 0,
    chaptersMapped: 0,
    estimatedChapters: [],
    ambiguous: false,
    coverage: null,
    extra: false,
    replace: false,
    holdsChapters: false,
    wanted: true,
    duplicateFileIds: [],
    problems: [],
    ...over,
  };
}

export function chapterState(number: string | number, over: Partial<ChapterState> = {}): ChapterState {
  return {
    number: L(number),
    slotId: 1,
    monitored: true,
    extra: false,
    parts: 1,
    onDisk: false,
    partsOnDisk: [],
    fileIds: [],
    book: null,
    estimatedBook: null,
    ambiguous: false,
    coverage: null,
    held: false,
    wanted: true,
    duplicateFileIds: [],
    ...over,
  };
}

export function coverageIndex(over: Partial<CoverageIndex> = {}): CoverageIndex {
  return { map: mapOf("none"), books: [], chapters: [], strayFileIds: [], ...over };
}

export function unit(kind: Unit["kind"], number: string | number, over: Partial<Unit> = {}): Unit {
  return {
    kind,
    number: L(number),
    book: null,
    owned: false,
    monitored: true,
    coverage: null,
    plan: kind === "book" ? "missing" : null,
    estimatedBook: null,
    pageCount: null,
    fileIds: [],
    duplicateFileIds: [],
    problems: [],
    extra: false,
    ...over,
  };
}

export function unitsView(units: Unit[], over: Partial<Omit<UnitsView, "units">> = {}): UnitsView {
  return { seriesId: 7, form: "books", map: "exact", status: null, planWording: "books_first", units, ...over };
}

export interface ScenarioBook {
  number: string | number;
  /** Exact chapters of its map entry; [] = explicitly unknown; undefined = no entry. */
  chapters?: (string | number)[];
  owned?: boolean;
  pageCount?: number;
  monitored?: boolean;
  /** false = no volume slot (a stray book file). */
  slot?: boolean;
  /** Owned but suspect: it covers nothing (coversChapters false). */
  suspect?: boolean;
}

export interface ScenarioSpec {
  map: MapState;
  books: ScenarioBook[];
  /** Chapter slots (labels); chapters of map entries are added automatically. */
  chapters?: (string | number)[];
  onDisk?: (string | number)[];
  extras?: (string | number)[];
  unmonitored?: (string | number)[];
  /** Estimates to attach (chapter → book); nothing may read them for a decision. */
  estimates?: Record<string, string>;
}

/**
 * A consistent index with simple rules: exact map → chapters get their book, owned covering books cover
 * (and duplicate) their chapters, unowned books with every main chapter on disk are covered by chapters;
 * no exact map → no book, and owned books make missing chapters covered_unmapped.
 */
export function scenarioIndex(spec: ScenarioSpec): CoverageIndex {
  const entries: Record<string, string[]> = {};
  // A "none" map has no operational entries at all.
  if (spec.map !== "none")
    for (const b of spec.books) if (b.chapters) entries[String(b.number)] = b.chapters.map(String);
  const map = mapOf(spec.map, entries);
  const exact = spec.map === "exact";
  const onDisk = new Set((spec.onDisk ?? []).map((x) => L(x)));
  const extras = new Set((spec.extras ?? []).map((x) => L(x)));
  const unmonitored = new Set((spec.unmonitored ?? []).map((x) => L(x)));
  // Chapter slots exist whatever the map says: the books' chapters are slots too.
  const slots = [...(spec.chapters ?? []), ...spec.books.flatMap((b) => b.chapters ?? [])].map((x) => L(x));
  const all = new Set<Label>([...slots, ...onDisk, ...extras]);
  const byLabel = new Map(spec.books.map((b) => [L(b.number), b]));
  const covering = (book: Label | null): boolean => {
    const b = book === null ? undefined : byLabel.get(book);
    return !!b?.owned && !b.suspect;
  };
  const anyOwned = spec.books.some((b) => b.owned && !b.suspect);
  let fileId = 1;
  const chapters = [...all].sort(compareLabels).map((n): ChapterState => {
    const disk = onDisk.has(n);
    const book = exact ? (map.chapterToBook.get(n) ?? null) : null;
    const fileIds = disk ? [fileId++] : [];
    const coveredByBook = exact && covering(book);
    const coverage = coveredByBook ? "covered_by_volume" : !exact && !disk && anyOwned ? "covered_unmapped" : null;
    const estimatedBook = spec.estimates?.[n] ?? null;
    return chapterState(n, {
      book,
      onDisk: disk,
      partsOnDisk: disk ? [1] : [],
      fileIds,
      extra: extras.has(n),
      monitored: !unmonitored.has(n),
      coverage,
      estimatedBook: estimatedBook === null ? null : L(estimatedBook),
      wanted: !unmonitored.has(n) && !disk && coverage === null,
      duplicateFileIds: disk && coveredByBook ? fileIds : [],
    });
  });
  const chapterOf = new Map(chapters.map((c) => [c.number, c]));
  const books = spec.books.map((b, i): BookState => {
    const n = L(b.number);
    const mapped = spec.map !== "none" && b.chapters && b.chapters.length > 0 ? b.chapters.map((x) => L(x)) : null;
    const main = (mapped ?? []).filter((c) => !extras.has(c));
    const mainOnDisk = main.filter((c) => onDisk.has(c)).length;
    const covered = exact && !b.owned && main.length > 0 && mainOnDisk === main.length;
    const coversChapters = exact && !!b.owned && !b.suspect && mapped !== null;
    return bookState(n, {
      slotId: b.slot === false ? null : 100 + i,
      monitored: b.monitored ?? true,
      owned: !!b.owned,
      fileIds: b.owned ? [1000 + i] : [],
      pageCount: b.owned ? (b.pageCount ?? 180) : null,
      coversChapters,
      suspect: b.owned && b.suspect ? "hand import" : null,
      chapters: mapped,
      chaptersOnDisk: mainOnDisk,
      chaptersMapped: main.length,
      estimatedChapters: [],
      coverage: covered ? "covered_by_chapters" : null,
      wanted: (b.monitored ?? true) && !b.owned && !covered,
      duplicateFileIds: coversChapters ? (mapped ?? []).flatMap((c) => chapterOf.get(c)?.duplicateFileIds ?? []) : [],
      problems: b.suspect ? ["suspect: hand import"] : [],
    });
  });
  return { map, books, chapters, strayFileIds: [] };
}

/** A big exact-map series: `books` books sharing `chapters` chapters, every other book owned. */
export function bigScenario(chapters: number, books: number): ScenarioSpec {
  const per = Math.ceil(chapters / books);
  const spec: ScenarioSpec = { map: "exact", books: [], onDisk: [] };
  for (let b = 1; b <= books; b++) {
    const first = (b - 1) * per + 1;
    const last = Math.min(chapters, b * per);
    const chs = first <= last ? labels(`${first}-${last}`) : [];
    spec.books.push({ number: b, chapters: chs, owned: b % 2 === 0 });
    if (b % 3 !== 0) spec.onDisk!.push(...chs.filter((_, i) => i % 4 !== 3));
  }
  return spec;
}
