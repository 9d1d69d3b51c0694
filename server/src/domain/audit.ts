/**
 * The file audit (docs/rules.md, "The audit"): anomaly flags of every downloaded file of a series, and the
 * sorting, filtering and paging of the list. Pure: the service hands over rows and the coverage
 * index's duplicates; nothing here opens an archive (the list never does).
 *
 * Flags, each documented where it is decided:
 * - `unreadable`: the file's row is `missing` (it vanished, or a rescan could not read it: the scan
 *   marks a known file it cannot read as missing, which is how a scan error is recorded).
 * - `degraded`, `black_cards`, `strip_slices`: from the conformity verdict of the download that
 *   published the file (Download.fileId); a file without a download (a scanned file) has none.
 * - `black_last_page`: the file's last page is a black card (mean luminance and spread of its grey
 *   decode below the download judgement's card thresholds, page-signature.ts `isBlackPage`): an
 *   end page lost to a bad scan or an upload cut short. Read from the page signatures the
 *   background worker stores by content; until they are computed the flag is simply not there.
 * - `duplicate`: the coverage index lists the file as a duplicate of a covered slot (exact map only).
 * - `numbering_gap`: in this file's kind, source and language, a whole number is missing between
 *   the previous file's last number and this file's first (the file after the gap is flagged).
 * - `few_pages`: fewer than 8 pages, split parts excepted.
 * - `unusual_size`: pages per book (per chapter for chapter files) below half or above twice the
 *   series' median for the kind, judged with at least 3 files of the kind; a book above
 *   OVERSIZED_BOOK_PAGES always (it may be several books). Split parts are never judged.
 * - `several_sources`: another active file of the same kind holds one of this file's numbers and
 *   comes from another source (scanned files count as one source of their own, "local").
 */
import { compareLabels, expandRange, isWhole, wholePart, type Label } from "./labels.ts";
import { isBlackPage } from "./page-signature.ts";
import { OVERSIZED_BOOK_PAGES, type FileFacts, type FileKind } from "./types.ts";

export const AUDIT_PAGE_SIZE = 24;
export const FEW_PAGES = 8;
/** Page count outside [LOW × median, HIGH × median] of its kind is unusual for the edition. */
export const UNUSUAL_LOW = 0.5;
export const UNUSUAL_HIGH = 2;
/** A median of fewer files says nothing about the edition. */
export const MIN_MEDIAN_SAMPLE = 3;

/** In the order they are listed on a file. */
export const AUDIT_FLAGS = [
  "unreadable",
  "degraded",
  "black_cards",
  "black_last_page",
  "strip_slices",
  "duplicate",
  "numbering_gap",
  "few_pages",
  "unusual_size",
  "several_sources",
] as const;
export type AuditFlag = (typeof AUDIT_FLAGS)[number];

export interface AuditSource {
  provider: string;
  /** The provider's work id of the mapping; null when the release names a provider but no mapping. */
  sourceId: string | null;
  mappingId: number | null;
}

/** The conformity verdict of the download that published a file, as stored on the Download row. */
export interface AuditVerdict {
  /** Download.state (`degraded` when the judgement failed it). */
  state: string;
  needsReplacement: boolean;
  reasons: string[];
  blackShare: number | null;
}

/** A file as the audit lists it: the rule core's file facts plus what only the audit shows. */
export interface AuditFileFacts extends Omit<FileFacts, "tagSource" | "language"> {
  size: number;
  state: "active" | "missing";
  /** The file's language, else its release's, else the series' destination language. */
  language: string;
  source: AuditSource | null;
  verdict: AuditVerdict | null;
  /** Recorded mtime (ms), for the background page checks; absent where no one needs it. */
  mtimeMs?: number;
  /** Grey statistics of the last page, once the page signatures are computed (else absent or null). */
  lastPage?: { mean: number; stdev: number } | null;
}

export interface AuditEntry extends AuditFileFacts {
  /** Volume of a book file, first chapter of a chapter file; null when the file names none. */
  number: Label | null;
  /** Last chapter of a range file; null otherwise. */
  numberEnd: Label | null;
  flags: AuditFlag[];
}

/** The number a file is listed under, and the end of a range. */
export function fileNumber(f: Pick<AuditFileFacts, "kind" | "volume" | "chapter" | "chapterEnd">): {
  number: Label | null;
  numberEnd: Label | null;
} {
  if (f.kind === "book") return { number: f.volume, numberEnd: null };
  const end =
    f.chapter !== null && f.chapterEnd !== null && compareLabels(f.chapterEnd, f.chapter) > 0 ? f.chapterEnd : null;
  return { number: f.chapter, numberEnd: end };
}

/** Scanned files (no source) are one source of their own. */
export function sourceKey(s: AuditSource | null): string {
  if (s === null) return "local";
  return s.mappingId !== null ? `mapping:${s.mappingId}` : `provider:${s.provider}`;
}

/** Whether some whole number w lies strictly between a and b. */
export function wholeBetween(a: Label, b: Label): boolean {
  const lo = BigInt(wholePart(a)) + 1n;
  const hi = isWhole(b) ? BigInt(b) - 1n : BigInt(wholePart(b));
  return lo <= hi;
}

export function median(values: readonly number[]): number | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Whole chapters a chapter file holds (at least 1), to compare ranges with single chapters. */
function chaptersHeld(f: AuditFileFacts): number {
  const { number, numberEnd } = fileNumber(f);
  if (number === null || numberEnd === null) return 1;
  return Math.max(1, expandRange(number, numberEnd).filter(isWhole).length);
}

function numbersHeld(f: AuditFileFacts): Label[] {
  const { number, numberEnd } = fileNumber(f);
  if (number === null) return [];
  return numberEnd === null ? [number] : expandRange(number, numberEnd);
}

function gapFlags(files: readonly AuditFileFacts[], out: Map<number, Set<AuditFlag>>): void {
  const groups = new Map<string, { first: Label; last: Label; id: number }[]>();
  for (const f of files) {
    const { number, numberEnd } = fileNumber(f);
    if (number === null) continue;
    const key = `${f.kind}|${sourceKey(f.source)}|${f.language}`;
    const list = groups.get(key) ?? [];
    list.push({ first: number, last: numberEnd ?? number, id: f.id });
    groups.set(key, list);
  }
  for (const list of groups.values()) {
    list.sort((a, b) => compareLabels(a.first, b.first) || a.id - b.id);
    let reach: Label | null = null;
    for (const item of list) {
      if (reach !== null && compareLabels(item.first, reach) > 0 && wholeBetween(reach, item.first))
        out.get(item.id)?.add("numbering_gap");
      if (reach === null || compareLabels(item.last, reach) > 0) reach = item.last;
    }
  }
}

function sizeFlags(files: readonly AuditFileFacts[], out: Map<number, Set<AuditFlag>>): void {
  for (const kind of ["book", "chapter"] as const) {
    const judged = files.filter((f) => f.kind === kind && f.part === null);
    const perUnit = (f: AuditFileFacts) => (kind === "book" ? f.pageCount : f.pageCount / chaptersHeld(f));
    const m = judged.length >= MIN_MEDIAN_SAMPLE ? median(judged.map(perUnit)) : null;
    for (const f of judged) {
      const flags = out.get(f.id);
      if (!flags) continue;
      if (f.pageCount < FEW_PAGES) flags.add("few_pages");
      const pages = perUnit(f);
      const outsideMedian = m !== null && m > 0 && (pages < UNUSUAL_LOW * m || pages > UNUSUAL_HIGH * m);
      if (outsideMedian || (kind === "book" && f.pageCount > OVERSIZED_BOOK_PAGES)) flags.add("unusual_size");
    }
  }
}

function sourceFlags(files: readonly AuditFileFacts[], out: Map<number, Set<AuditFlag>>): void {
  const sourcesBySlot = new Map<string, Set<string>>();
  const slotsOf = new Map<number, string[]>();
  for (const f of files) {
    const slots = numbersHeld(f).map((n) => `${f.kind}|${n}`);
    slotsOf.set(f.id, slots);
    for (const s of slots) {
      const set = sourcesBySlot.get(s) ?? new Set<string>();
      set.add(sourceKey(f.source));
      sourcesBySlot.set(s, set);
    }
  }
  for (const [id, slots] of slotsOf) {
    if (slots.some((s) => (sourcesBySlot.get(s)?.size ?? 0) > 1)) out.get(id)?.add("several_sources");
  }
}

/**
 * The audit entries of a series: every listed file with its number and flags (see the module
 * comment). `duplicateFileIds`: the coverage index's duplicates (chapters' duplicateFileIds).
 */
export function auditEntries(files: readonly AuditFileFacts[], duplicateFileIds: ReadonlySet<number>): AuditEntry[] {
  const flags = new Map<number, Set<AuditFlag>>(files.map((f) => [f.id, new Set<AuditFlag>()]));
  // Slot-wide judgements (gaps, sizes, sources) only count files that are there.
  const active = files.filter((f) => f.state === "active");
  for (const f of files) {
    const set = flags.get(f.id) as Set<AuditFlag>;
    if (f.state === "missing") set.add("unreadable");
    const v = f.verdict;
    if (v && (v.state === "degraded" || v.needsReplacement || v.reasons.length > 0)) set.add("degraded");
    if (v?.reasons.includes("black_cards")) set.add("black_cards");
    if (v?.reasons.includes("strip_slices")) set.add("strip_slices");
    if (f.state === "active" && f.lastPage && isBlackPage(f.lastPage)) set.add("black_last_page");
    if (duplicateFileIds.has(f.id)) set.add("duplicate");
  }
  gapFlags(active, flags);
  sizeFlags(active, flags);
  sourceFlags(active, flags);
  return files.map((f) => {
    const set = flags.get(f.id) as Set<AuditFlag>;
    return { ...f, ...fileNumber(f), flags: AUDIT_FLAGS.filter((x) => set.has(x)) };
  });
}

/**
 * The entries with the page checks' facts as they stand now: `lastPages` holds the last-page
 * statistics by content (sha256) of the contents checked so far. Only `lastPage` and the
 * `black_last_page` flag depend on them, per file; every other flag is decided by the rows, so a
 * list kept until the series' rows change stays right with these applied on top. Entries whose
 * facts did not change are returned as they are.
 */
export function withLastPages(
  entries: readonly AuditEntry[],
  lastPages: ReadonlyMap<string, { mean: number; stdev: number } | null>,
): AuditEntry[] {
  return entries.map((e) => {
    const lastPage = e.state === "active" ? (lastPages.get(e.sha256) ?? null) : null;
    const black = lastPage !== null && isBlackPage(lastPage);
    const had = e.flags.includes("black_last_page");
    const prev = e.lastPage ?? null;
    const same =
      prev === lastPage ||
      (prev !== null && lastPage !== null && prev.mean === lastPage.mean && prev.stdev === lastPage.stdev);
    if (same && had === black) return e;
    const set = new Set(e.flags);
    if (black) set.add("black_last_page");
    else set.delete("black_last_page");
    return { ...e, lastPage, flags: AUDIT_FLAGS.filter((x) => set.has(x)) };
  });
}

/** Whether a query's answer depends on the page checks of every file (not only the listed ones). */
export function needsEveryPageCheck(sort: AuditSort, filter: AuditFilter): boolean {
  return sort.key === "flags" || filter.problemsOnly === true || (filter.flags ?? []).includes("black_last_page");
}

/* ------------------------------------------------------------------------------------------ */
/* Sorting, filtering, paging                                                                  */
/* ------------------------------------------------------------------------------------------ */

export const AUDIT_SORT_KEYS = ["number", "path", "size", "pages", "source", "language", "flags", "id"] as const;
export type AuditSortKey = (typeof AUDIT_SORT_KEYS)[number];
export interface AuditSort {
  key: AuditSortKey;
  descending: boolean;
}
export const DEFAULT_AUDIT_SORT: AuditSort = { key: "number", descending: false };

export interface AuditFilter {
  /** Files with at least one of these flags. */
  flags?: AuditFlag[];
  /** Files with at least one flag. */
  problemsOnly?: boolean;
  kind?: FileKind;
  language?: string;
  /** Provider name; with `sourceId`, one exact mapping. */
  provider?: string;
  sourceId?: string;
}

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const nullsLast = <T>(a: T | null, b: T | null, cmp: (x: T, y: T) => number) =>
  a === null ? (b === null ? 0 : 1) : b === null ? -1 : cmp(a, b);

function compareBy(key: AuditSortKey, a: AuditEntry, b: AuditEntry): number {
  switch (key) {
    case "number":
      // Reading order: books, then chapters, each by number; unnumbered files last.
      return text(a.kind, b.kind) || nullsLast(a.number, b.number, compareLabels) || (a.part ?? 0) - (b.part ?? 0);
    case "path":
      return text(a.path, b.path);
    case "size":
      return a.size - b.size;
    case "pages":
      return a.pageCount - b.pageCount;
    case "source":
      return nullsLast(
        a.source,
        b.source,
        (x, y) => text(x.provider, y.provider) || nullsLast(x.sourceId, y.sourceId, text),
      );
    case "language":
      return text(a.language, b.language);
    case "flags":
      return a.flags.length - b.flags.length;
    case "id":
      return 0;
  }
}

/** Sorted by the key (descending reverses it), ties by id ascending so pages are stable. */
export function sortAuditEntries(entries: readonly AuditEntry[], sort: AuditSort = DEFAULT_AUDIT_SORT): AuditEntry[] {
  const sign = sort.descending ? -1 : 1;
  return [...entries].sort(
    (a, b) => sign * compareBy(sort.key, a, b) || sign * (sort.key === "id" ? a.id - b.id : 0) || a.id - b.id,
  );
}

export function filterAuditEntries(entries: readonly AuditEntry[], filter: AuditFilter): readonly AuditEntry[] {
  const wanted = filter.flags && filter.flags.length > 0 ? new Set(filter.flags) : null;
  // No criterion: the list itself (a page of a long list does not copy it).
  if (
    !wanted &&
    !filter.problemsOnly &&
    filter.kind === undefined &&
    filter.language === undefined &&
    filter.provider === undefined &&
    filter.sourceId === undefined
  )
    return entries;
  return entries.filter(
    (e) =>
      (!wanted || e.flags.some((f) => wanted.has(f))) &&
      (!filter.problemsOnly || e.flags.length > 0) &&
      (filter.kind === undefined || e.kind === filter.kind) &&
      (filter.language === undefined || e.language === filter.language) &&
      (filter.provider === undefined || e.source?.provider === filter.provider) &&
      (filter.sourceId === undefined || e.source?.sourceId === filter.sourceId),
  );
}

export interface AuditPage {
  page: number;
  pageSize: number;
  total: number;
  files: AuditEntry[];
}

/** 1-based page of AUDIT_PAGE_SIZE entries; a page past the end is empty (the total says so). */
export function auditPage(entries: readonly AuditEntry[], page: number, pageSize = AUDIT_PAGE_SIZE): AuditPage {
  const start = (page - 1) * pageSize;
  return { page, pageSize, total: entries.length, files: entries.slice(start, start + pageSize) };
}

/** "size" or "-size" (descending); null when the text names no sort key. */
export function parseAuditSort(value: string): AuditSort | null {
  const descending = value.startsWith("-");
  const key = descending ? value.slice(1) : value;
  return (AUDIT_SORT_KEYS as readonly string[]).includes(key) ? { key: key as AuditSortKey, descending } : null;
}

/** Suspect books (docs/rules.md, "Suspect and verified books"): one definition, in verification.ts. */
export { bookSuspectReason, type SuspectReason } from "./verification.ts";
