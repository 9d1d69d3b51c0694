/**
 * The coverage index of one series (docs/rules.md, "Coverage" and "Ownership moves"): built
 * once per request from a snapshot, read by the form, plan and grouping rules, the units view, the
 * map dry run and the Wanted pass (one definition of "wanted" for all of them).
 *
 * Books listed: the volume slots of the managed edition (edition_book_count, else the known book
 * count: slots are only ever added, so a smaller edition count set later must not leave the old
 * slots listed), every owned book and every book the operational map names. A book numbered beyond
 * the managed edition is listed only when a file or a map entry names it, and then as `extra`:
 * never wanted, never counted by the series completion.
 *
 * Chapter slot:
 * - `onDisk`: every part present in active chapter files (coverage-files.ts).
 * - `covered_by_volume`: "the exact map says an owned book holds the chapter": the map state is
 *   `exact`, it assigns the chapter to exactly one book, and that book `coversChapters` (owned, a
 *   covering copy per verification.ts `judgeBookFile`: a sound copy or a proven assembly; a suspect
 *   copy — hand import, machine translation, oversized pack — only while a proof applies). Set
 *   whether or not the chapter is on disk. Without an exact map no book counts as covered.
 * - `covered_unmapped`: the map state is "none" and an owned sound book exists (not suspect, not
 *   oversized; no proof can apply without a map entry). Neither wanted nor fetched again.
 * - `held` (no coverage, not fetched again): the operational map assigns the chapter to an owned
 *   book that `holdsChapters` (covers, but the map is only partial; or a hand import of the
 *   edition's size, which is never replaced for being one), or there is no map and such a hand
 *   import is owned. A machine translation holds nothing (native chapters stay wanted) and an
 *   oversized pack is replaced instead.
 * - duplicates (exact map only): a chapter file is a duplicate when every chapter it holds is
 *   covered_by_volume by a book that may retire chapters (a sound copy or a proven assembly, never
 *   a suspect one even when verified: docs/rules.md, "Suspect and verified books"); it is listed on those chapters
 *   and on those books.
 * - `wanted` (`chapterWanted`): series and slot monitored, no coverage, not held, not on disk; and
 *   in a books-form series only through an explicit assignment to a book that is itself wanted
 *   (docs/rules.md, "Coverage": the counting unit stays books; an operator/reading assignment lets a missing book fall
 *   back to its chapters). A chapter without a slot is never wanted (nothing monitors it).
 * Book slot:
 * - `covered_by_chapters`: its exact entry is known and unambiguous and every main (non-extra)
 *   chapter of it is on disk; or it has no entry at all and the chapters between its mapped
 *   neighbours are all on disk: the nearest mapped books before and after it (unambiguous) fix an
 *   open interval, every whole number in it and every main chapter in it that no other book claims
 *   is on disk, and at least one is. Only saved boundaries count, never estimates. Computed for
 *   owned books too (an owned book complete from chapters is redundant: docs/rules.md, "Plans").
 * - `wanted` (`bookWanted`): series and slot monitored, not extra, not covered_by_chapters, and not
 *   owned — or owned as an unverified oversized pack (a replacement: the size says another edition
 *   or a wrong split).
 *
 * A partial map's saved boundaries do not cover (no covered_by_volume, no duplicates, no assembly
 * offered) but the chapters an owned book holds through them are held, so nothing is fetched twice.
 */
import { compareLabels, sortLabels, unionLabels, wholeLabel, type Label } from "./labels.ts";
import { estimateBooks, estimatedChaptersByBook } from "./estimates.ts";
import { chapterOnDisk, fileHoldings, type Holdings } from "./coverage-files.ts";
import {
  bookInfo,
  coverByChapters,
  holdingBookFile,
  mapProblems,
  NeighbourGaps,
  proofsByFile,
  soundBookFile,
  type BookInfo,
} from "./coverage-books.ts";
import { editionBookPages, proofsByVolume } from "./verification.ts";
import { toLabel } from "./map-labels.ts";
import { operationalMap } from "./map-trust.ts";
import { effectiveBookCount, seriesForm } from "./series-form.ts";
import type {
  BookState,
  ChapterSlotFacts,
  ChapterState,
  CoverageIndex,
  MapEntryFacts,
  MapSourceFacts,
  MapState,
  SeriesForm,
  SeriesSnapshot,
} from "./types.ts";

export { BOOK_PROBLEMS } from "./coverage-books.ts";

export interface CoverageOptions {
  /** The series' counting unit (series-form.ts); defaults to `seriesForm(series)`. */
  form?: SeriesForm;
  /** Compute display estimates (default true). Nothing else depends on them. */
  estimates?: boolean;
}

/**
 * Build the index in one pass per kind of fact (see the module comment for every rule).
 * Cost: O((chapters + files + entries) · log n); no scan of chapters × files.
 */
export function buildCoverageIndex(snapshot: SeriesSnapshot, options: CoverageOptions = {}): CoverageIndex {
  const { series } = snapshot;
  const form = options.form ?? seriesForm(series);

  // The chapter slots in label order (the first slot of a label counts), with what is on disk of
  // each: lists side by side, walked in step with the chapters below instead of looked up per label.
  const { slotLabels, slotList } = chapterSlotsInOrder(snapshot.chapters);
  const holdings = fileHoldings(snapshot.files, slotLabels);
  const slotDisk = slotLabels.map((l, i) => chapterOnDisk(holdings, l, slotList[i]!.parts));
  const ownedMain = slotLabels.filter((_, i) => !slotList[i]!.extra && slotDisk[i]!.onDisk);
  const map = operationalMap(snapshot.mapSources, ownedMain, { openTail: series.status !== "finished" });

  // Books: the edition's slots, owned books, and every book the operational map names.
  const count = effectiveBookCount(series);
  const beyondEdition = (l: Label) => count !== null && compareLabels(l, wholeLabel(count)) > 0;
  const volumeSlots = new Map<Label, { id: number; monitored: boolean }>();
  for (const v of snapshot.volumes) {
    const l = toLabel(v.number);
    if (l !== null && !volumeSlots.has(l)) volumeSlots.set(l, v);
  }
  const named = new Set([...holdings.booksByVolume.keys(), ...map.books.keys(), ...map.unknownBooks]);
  const bookLabels = sortLabels([...new Set([...[...volumeSlots.keys()].filter((l) => !beyondEdition(l)), ...named])]);
  const ctx = {
    editionPages: editionBookPages(snapshot.files),
    proofs: proofsByFile(snapshot),
    verifications: proofsByVolume(snapshot.verifications),
  };
  const books = new Map<Label, BookInfo>();
  for (const v of bookLabels)
    books.set(v, bookInfo(v, holdings.booksByVolume.get(v) ?? [], volumeSlots.get(v), map, ctx, beyondEdition(v)));
  const ownedBookFiles = [...holdings.booksByVolume.values()].flat();
  const anyBookCouldCover = ownedBookFiles.some((f) => soundBookFile(f, ctx.editionPages));
  const anyBookHolds = ownedBookFiles.some((f) => holdingBookFile(f, ctx.editionPages));

  // Chapters: slots and every chapter the operational map claims.
  const chapterLabels = unionLabels(slotLabels, [...map.chapterToBook.keys()], [...map.conflicts.keys()]);
  const chapters = new Map<Label, ChapterState>();
  // Side by side with chapterLabels: each chapter's slot and book (read again by the wanted rule).
  const chapterSlots: (ChapterSlotFacts | undefined)[] = [];
  const chapterBooks: (BookInfo | undefined)[] = [];
  let nextSlot = 0;
  for (const l of chapterLabels) {
    const own = slotLabels[nextSlot] === l ? nextSlot++ : -1;
    const slot = own < 0 ? undefined : slotList[own];
    const book = map.chapterToBook.get(l) ?? null;
    const info = book === null ? undefined : books.get(book);
    chapterSlots.push(slot);
    chapterBooks.push(info);
    const coverage =
      map.state === "exact" && info?.state.coversChapters
        ? "covered_by_volume"
        : map.state === "none" && anyBookCouldCover
          ? "covered_unmapped"
          : null;
    const held =
      coverage === null && (info !== undefined ? info.state.holdsChapters : map.state === "none" && anyBookHolds);
    const { onDisk, partsOnDisk } = own < 0 ? chapterOnDisk(holdings, l, 1) : slotDisk[own]!;
    chapters.set(l, {
      number: l,
      slotId: slot?.id ?? null,
      monitored: slot?.monitored ?? false,
      extra: slot?.extra ?? false,
      title: slot?.title ?? null,
      parts: slot?.parts ?? 1,
      onDisk,
      partsOnDisk,
      fileIds: holdings.filesByChapter.get(l) ?? [],
      book,
      estimatedBook: null,
      ambiguous: map.conflicts.size > 0 && map.conflicts.has(l),
      coverage,
      held,
      wanted: false,
      duplicateFileIds: [],
    });
  }

  // Retirement needs the whole map to be exact: with owned chapters outside every book (partial)
  // the boundaries may be incomplete, so nothing is called a duplicate until they are fixed.
  if (map.state === "exact") markDuplicates(holdings, chapters, books);
  const strayFileIds = [...holdings.unplaced];
  for (const [fileId, held] of holdings.chaptersByFile)
    if (!held.some((c) => chapters.has(c))) strayFileIds.push(fileId);

  const gaps = new NeighbourGaps(map, chapterLabels, chapters);
  for (const info of books.values()) coverByChapters(info.state, map, chapters, gaps);
  for (const info of books.values()) {
    const b = info.state;
    b.wanted = bookWanted(series.monitored, b);
    b.problems.push(...mapProblems(b, map, chapters));
  }
  const chapterList = [...chapters.values()];
  for (let i = 0; i < chapterList.length; i++) {
    const c = chapterList[i]!;
    c.wanted = chapterWanted(series.monitored, chapterSlots[i], c, form, chapterBooks[i]?.state);
  }

  if (options.estimates !== false) {
    const estimates = estimateBooks(snapshot.chapters, bookLabels, map);
    for (const [c, b] of estimates) {
      const state = chapters.get(c);
      if (state && state.book === null) state.estimatedBook = b;
    }
    for (const [b, list] of estimatedChaptersByBook(estimates)) {
      const info = books.get(b);
      if (info) info.state.estimatedChapters = list;
    }
  }

  return {
    map,
    books: [...books.values()].map((i) => i.state),
    chapters: chapterList,
    strayFileIds: strayFileIds.sort((a, b) => a - b),
  };
}

/** Chapter slots by label in label order, the first slot of a label kept; unlabelled slots dropped. */
function chapterSlotsInOrder(chapters: readonly ChapterSlotFacts[]): {
  slotLabels: Label[];
  slotList: ChapterSlotFacts[];
} {
  // Slots are read in id order, which is label order in the usual series: then one pass.
  const slotLabels: Label[] = [];
  const slotList: ChapterSlotFacts[] = [];
  for (const s of chapters) {
    const l = toLabel(s.number);
    if (l === null) continue;
    const last = slotLabels[slotLabels.length - 1];
    if (last !== undefined && compareLabels(last, l) >= 0) return chapterSlotsSorted(chapters);
    slotLabels.push(l);
    slotList.push(s);
  }
  return { slotLabels, slotList };
}

function chapterSlotsSorted(chapters: readonly ChapterSlotFacts[]): {
  slotLabels: Label[];
  slotList: ChapterSlotFacts[];
} {
  const slots = new Map<Label, ChapterSlotFacts>();
  for (const s of chapters) {
    const l = toLabel(s.number);
    if (l !== null && !slots.has(l)) slots.set(l, s);
  }
  const slotLabels = sortLabels([...slots.keys()]);
  return { slotLabels, slotList: slotLabels.map((l) => slots.get(l)!) };
}

/**
 * The one definition of a wanted book slot (see the module comment): the Wanted pass, the map dry
 * run and the units view all read the index, never their own condition.
 */
export function bookWanted(seriesMonitored: boolean, b: BookState): boolean {
  return seriesMonitored && b.monitored && !b.extra && b.coverage === null && (!b.owned || b.replace);
}

/** The one definition of a wanted chapter slot (see the module comment). */
export function chapterWanted(
  seriesMonitored: boolean,
  slot: ChapterSlotFacts | undefined,
  c: Pick<ChapterState, "coverage" | "held" | "onDisk">,
  form: SeriesForm,
  book: BookState | undefined,
): boolean {
  if (!seriesMonitored || slot === undefined || !slot.monitored) return false;
  if (c.coverage !== null || c.held || c.onDisk) return false;
  // Books form: only an explicit assignment to a book that is itself wanted (docs/rules.md, "Coverage").
  return form === "chapters" || (book !== undefined && book.wanted);
}

/** Chapter files whose every chapter is inside a retiring owned book (exact map only). */
function markDuplicates(holdings: Holdings, chapters: Map<Label, ChapterState>, books: Map<Label, BookInfo>): void {
  for (const [fileId, held] of holdings.chaptersByFile) {
    // The books holding the file's chapters: one or two, a list rather than a set per file.
    const owners: Label[] = [];
    let inside = true;
    for (const c of held) {
      const state = chapters.get(c);
      const info = state?.book ? books.get(state.book) : undefined;
      if (!state || state.coverage !== "covered_by_volume" || !info?.retires) {
        inside = false;
        break;
      }
      if (!owners.includes(info.state.number)) owners.push(info.state.number);
    }
    if (!inside) continue;
    for (const c of held) chapters.get(c)?.duplicateFileIds.push(fileId);
    for (const b of owners) books.get(b)?.state.duplicateFileIds.push(fileId);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Dry run of an operator map change (PUT/DELETE …/chapter-map?dry_run=true).                 */
/* ------------------------------------------------------------------------------------------ */

export interface ChapterCoverageSide {
  coverage: ChapterState["coverage"];
  book: Label | null;
  wanted: boolean;
}

export interface ChapterCoverageChange {
  number: Label;
  before: ChapterCoverageSide;
  after: ChapterCoverageSide;
  /** Chapter files of this chapter that would become duplicates / stop being duplicates. */
  becomeDuplicates: number[];
  stopDuplicates: number[];
}

export interface BookCoverageSide {
  coverage: BookState["coverage"];
  coversChapters: boolean;
  chapters: Label[] | null;
  wanted: boolean;
}

export interface BookCoverageChange {
  number: Label;
  before: BookCoverageSide;
  after: BookCoverageSide;
  becomeDuplicates: number[];
  stopDuplicates: number[];
}

export interface MapChangePreview {
  /** Operator map revision the preview was computed against (the confirmation binds to it). */
  revision: number;
  mapBefore: MapState;
  mapAfter: MapState;
  /** Only the chapters and books whose coverage, book, wanted flag or duplicates change. */
  chapters: ChapterCoverageChange[];
  books: BookCoverageChange[];
  /** All chapter files that would become / stop being duplicates. */
  becomeDuplicateFileIds: number[];
  stopDuplicateFileIds: number[];
}

function difference(a: readonly number[], b: readonly number[]): number[] {
  const drop = new Set(b);
  return [...new Set(a)].filter((x) => !drop.has(x)).sort((x, y) => x - y);
}

function sameList<T>(a: readonly T[] | null, b: readonly T[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * What replacing the operator map with `newOperatorEntries` would change (null or [] = the operator
 * map removed). Readings, suggestions and files stay as they are; nothing is written. The entries
 * are expected to have passed validateOperatorEntries.
 */
export function previewMapChange(
  snapshot: SeriesSnapshot,
  newOperatorEntries: readonly MapEntryFacts[] | null,
  options: CoverageOptions = {},
): MapChangePreview {
  const before = buildCoverageIndex(snapshot, { ...options, estimates: false });
  const current = snapshot.mapSources.find((s) => s.kind === "operator");
  const others = snapshot.mapSources.filter((s) => s.kind !== "operator");
  const replaced: MapSourceFacts[] =
    newOperatorEntries === null || newOperatorEntries.length === 0
      ? others
      : [
          ...others,
          {
            id: current?.id ?? 0,
            kind: "operator",
            name: current?.name ?? "operator",
            revision: before.map.revision + 1,
            entries: newOperatorEntries.map((e) => ({ volume: e.volume, chapters: [...e.chapters] })),
          },
        ];
  const after = buildCoverageIndex({ ...snapshot, mapSources: replaced }, { ...options, estimates: false });

  const chapterSide = (c: ChapterState | undefined): ChapterCoverageSide => ({
    coverage: c?.coverage ?? null,
    book: c?.book ?? null,
    wanted: c?.wanted ?? false,
  });
  const beforeChapters = new Map(before.chapters.map((c) => [c.number, c]));
  const afterChapters = new Map(after.chapters.map((c) => [c.number, c]));
  const chapters: ChapterCoverageChange[] = [];
  for (const n of sortLabels([...new Set([...beforeChapters.keys(), ...afterChapters.keys()])])) {
    const b = beforeChapters.get(n);
    const a = afterChapters.get(n);
    const change: ChapterCoverageChange = {
      number: n,
      before: chapterSide(b),
      after: chapterSide(a),
      becomeDuplicates: difference(a?.duplicateFileIds ?? [], b?.duplicateFileIds ?? []),
      stopDuplicates: difference(b?.duplicateFileIds ?? [], a?.duplicateFileIds ?? []),
    };
    const same =
      change.before.coverage === change.after.coverage &&
      change.before.book === change.after.book &&
      change.before.wanted === change.after.wanted;
    if (!same || change.becomeDuplicates.length > 0 || change.stopDuplicates.length > 0) chapters.push(change);
  }

  const bookSide = (b: BookState | undefined): BookCoverageSide => ({
    coverage: b?.coverage ?? null,
    coversChapters: b?.coversChapters ?? false,
    chapters: b?.chapters ?? null,
    wanted: b?.wanted ?? false,
  });
  const beforeBooks = new Map(before.books.map((b) => [b.number, b]));
  const afterBooks = new Map(after.books.map((b) => [b.number, b]));
  const books: BookCoverageChange[] = [];
  for (const n of sortLabels([...new Set([...beforeBooks.keys(), ...afterBooks.keys()])])) {
    const b = beforeBooks.get(n);
    const a = afterBooks.get(n);
    const change: BookCoverageChange = {
      number: n,
      before: bookSide(b),
      after: bookSide(a),
      becomeDuplicates: difference(a?.duplicateFileIds ?? [], b?.duplicateFileIds ?? []),
      stopDuplicates: difference(b?.duplicateFileIds ?? [], a?.duplicateFileIds ?? []),
    };
    const x = change.before;
    const y = change.after;
    const same =
      x.coverage === y.coverage &&
      x.coversChapters === y.coversChapters &&
      x.wanted === y.wanted &&
      sameList(x.chapters, y.chapters);
    if (!same || change.becomeDuplicates.length > 0 || change.stopDuplicates.length > 0) books.push(change);
  }

  const allDuplicates = (index: CoverageIndex) => index.chapters.flatMap((c) => c.duplicateFileIds);
  return {
    revision: before.map.revision,
    mapBefore: before.map.state,
    mapAfter: after.map.state,
    chapters,
    books,
    becomeDuplicateFileIds: difference(allDuplicates(after), allDuplicates(before)),
    stopDuplicateFileIds: difference(allDuplicates(before), allDuplicates(after)),
  };
}
