/**
 * Pure helpers of the file audit: words for the anomaly flags, file names and sizes, and the
 * filters as URL parameters (so a reload, a shared link or Back shows the same page). The flags
 * themselves are decided by the server (`server/src/domain/audit.ts`); this only words them.
 */
import type { ResultOf, Schema } from "$lib/gql";
import type { UnitKind } from "../types";
import type { FILE_FIELDS, RULES_FIELDS } from "./queries";

export type AuditFlag = Schema<"AuditFlag">;

/** In the order the filter lists them: worst first. */
export const AUDIT_FLAGS: readonly AuditFlag[] = [
  "UNREADABLE",
  "DEGRADED",
  "BLACK_CARDS",
  "BLACK_LAST_PAGE",
  "STRIP_SLICES",
  "DUPLICATE",
  "NUMBERING_GAP",
  "FEW_PAGES",
  "UNUSUAL_SIZE",
  "SEVERAL_SOURCES",
];

export type AuditSource = NonNullable<AuditFile["source"]>;

export type AuditFile = ResultOf<typeof FILE_FIELDS>;

export type Tone = "bad" | "warn" | "info";

interface FlagWords {
  label: string;
  description: string;
  tone: Tone;
}

/** The figures of the flags' rules, as the API gives them (GraphQL `rules`, REST GET /api/rules). */
export type AuditRules = ResultOf<typeof RULES_FIELDS>;

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;

/** Flag words; the figures come from the API's rules (left out while they are not known). */
const flagWordsTable = (rules: AuditRules | null): Record<AuditFlag, FlagWords> => ({
  UNREADABLE: { label: "Unreadable", description: "Missing from disk, or a rescan could not read it.", tone: "bad" },
  DEGRADED: {
    label: "Degraded",
    description: "The download that brought it was judged degraded: it needs a replacement.",
    tone: "bad",
  },
  BLACK_CARDS: {
    label: "Black cards",
    description: rules
      ? `More than ${percent(rules.maxBlackShare)} of its pages are black cards.`
      : "More of its pages are black cards than the content check allows.",
    tone: "bad",
  },
  BLACK_LAST_PAGE: {
    label: "Black last page",
    description: "Its last page is black: an end page lost to a bad scan or a cut-short upload.",
    tone: "warn",
  },
  STRIP_SLICES: {
    label: "Strip slices",
    description: "Its pages are slices of a long strip, in a series that reads in pages.",
    tone: "bad",
  },
  DUPLICATE: {
    label: "Duplicate",
    description: "A chapter file inside a book you own (exact map): safe to retire.",
    tone: "info",
  },
  NUMBERING_GAP: {
    label: "Gap before it",
    description: "A number is missing before this file in its source and language.",
    tone: "warn",
  },
  FEW_PAGES: {
    label: "Few pages",
    description: rules ? `Fewer than ${rules.fewPages} pages.` : "Very few pages for a book or chapter.",
    tone: "warn",
  },
  UNUSUAL_SIZE: {
    label: "Unusual size",
    description:
      "Under half or over twice the usual page count of the series' files of its kind" +
      (rules ? ` (or a book above ${rules.oversizedBookPages} pages).` : " (or a very large book)."),
    tone: "warn",
  },
  SEVERAL_SOURCES: {
    label: "Several sources",
    description: "Another source has a file with the same number.",
    tone: "info",
  },
});

function fallbackWords(flag: string): FlagWords {
  const words = flag.toLowerCase().replace(/_/g, " ");
  return { label: words.charAt(0).toUpperCase() + words.slice(1), description: "", tone: "warn" };
}

/** Words for a flag; a flag from a newer server is shown as it came, never hidden. */
export function flagWords(flag: AuditFlag, rules: AuditRules | null = null): FlagWords {
  return flagWordsTable(rules)[flag] ?? fallbackWords(flag);
}

/** The badge text; black cards carry their share when the verdict gave one ("Black cards · 23 %"). */
export function flagBadge(flag: AuditFlag, blackShare: number | null = null): string {
  const { label } = flagWords(flag);
  if (flag === "BLACK_CARDS" && blackShare !== null && Number.isFinite(blackShare))
    return `${label} · ${Math.round(blackShare * 100)} %`;
  return label;
}

/** "Book 3", "Chapter 10.5", "Chapters 10–12", "Chapter 36, part 1", "Unnumbered chapter". */
export function fileLabel(f: Pick<AuditFile, "kind" | "number" | "numberEnd" | "part">): string {
  const book = f.kind === "BOOK";
  if (f.number === null) return book ? "Unnumbered book" : "Unnumbered file";
  if (book) return `Book ${f.number}`;
  const name =
    f.numberEnd !== null && f.numberEnd !== f.number ? `Chapters ${f.number}–${f.numberEnd}` : `Chapter ${f.number}`;
  return f.part !== null ? `${name}, part ${f.part}` : name;
}

/** The last segment of a library path. */
export function fileName(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? path : path.slice(i + 1);
}

/** "329 KB", "1.2 MB", "3.4 GB" (decimal units, as file managers show them). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1000) return bytes === 1 ? "1 byte" : `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const digits = value < 9.95 ? 1 : 0;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/** First 12 hex digits, enough to tell files apart at a glance. */
export function shortHash(hex: string): string {
  const plain = hex.startsWith("sha256:") ? hex.slice(7) : hex;
  return plain.length > 12 ? `${plain.slice(0, 12)}…` : plain;
}

/** Where a file came from, in words. */
export function sourceLabel(source: AuditSource | null): string {
  if (source === null) return "Local (scanned)";
  return source.sourceId ? `${source.provider} · ${source.sourceId}` : `${source.provider} (no mapping)`;
}

/* ------------------------------------ Filters and the URL ------------------------------------ */

export const PAGE_SIZE = 24;

export const SORTS: readonly { value: string; label: string }[] = [
  { value: "number", label: "Reading order" },
  { value: "-number", label: "Reading order, reversed" },
  { value: "-flags", label: "Most flags first" },
  { value: "path", label: "Path" },
  { value: "-size", label: "Largest first" },
  { value: "size", label: "Smallest first" },
  { value: "pages", label: "Fewest pages first" },
  { value: "-pages", label: "Most pages first" },
  { value: "source", label: "Source" },
  { value: "language", label: "Language" },
  { value: "-id", label: "Newest first" },
];

export const DEFAULT_SORT = "number";

export interface AuditParams {
  page: number;
  sort: string;
  problemsOnly: boolean;
  flags: AuditFlag[];
  kind: UnitKind | null;
  language: string;
  provider: string;
  sourceId: string;
}

export const NO_FILTERS: Omit<AuditParams, "page" | "sort"> = {
  problemsOnly: false,
  flags: [],
  kind: null,
  language: "",
  provider: "",
  sourceId: "",
};

/** Reads the page and filters from the address; anything unknown falls back to its default. */
export function parseAuditParams(search: URLSearchParams): AuditParams {
  const pageText = search.get("page") ?? "";
  const page = /^[1-9]\d{0,5}$/.test(pageText) ? Number(pageText) : 1;
  const sortText = search.get("sort") ?? "";
  const sort = SORTS.some((s) => s.value === sortText) ? sortText : DEFAULT_SORT;
  const wanted = new Set(
    search
      .getAll("flags")
      .flatMap((v) => v.split(","))
      .map((v) => v.trim().toUpperCase()),
  );
  const flags = AUDIT_FLAGS.filter((f) => wanted.has(f));
  const kindText = search.get("kind");
  const kind: UnitKind | null = kindText === "book" ? "BOOK" : kindText === "chapter" ? "CHAPTER" : null;
  const problems = search.get("problems");
  return {
    page,
    sort,
    problemsOnly: problems === "1" || problems === "true",
    flags,
    kind,
    language: (search.get("language") ?? "").trim(),
    provider: (search.get("provider") ?? "").trim(),
    sourceId: (search.get("source") ?? "").trim(),
  };
}

/** The address form of the parameters: defaults are left out, so the plain page has a plain URL. */
export function auditSearch(p: AuditParams): URLSearchParams {
  const out = new URLSearchParams();
  if (p.problemsOnly) out.set("problems", "1");
  if (p.flags.length)
    out.set(
      "flags",
      AUDIT_FLAGS.filter((f) => p.flags.includes(f))
        .map((f) => f.toLowerCase())
        .join(","),
    );
  if (p.kind) out.set("kind", p.kind === "BOOK" ? "book" : "chapter");
  if (p.language.trim()) out.set("language", p.language.trim());
  if (p.provider.trim()) out.set("provider", p.provider.trim());
  if (p.sourceId.trim()) out.set("source", p.sourceId.trim());
  if (p.sort !== DEFAULT_SORT) out.set("sort", p.sort);
  if (p.page > 1) out.set("page", String(p.page));
  return out;
}

export type AuditVariables = { seriesId: number; page: number; sort: string; filter: Schema<"AuditFilter"> };

/** The `audit` query's variables; empty filters are left out rather than sent as "". */
export function auditVariables(seriesId: number, p: AuditParams): AuditVariables {
  const filter: AuditVariables["filter"] = {};
  if (p.problemsOnly) filter.problemsOnly = true;
  if (p.flags.length) filter.flags = [...p.flags];
  if (p.kind) filter.kind = p.kind;
  if (p.language.trim()) filter.language = p.language.trim();
  if (p.provider.trim()) filter.provider = p.provider.trim();
  if (p.sourceId.trim()) filter.sourceId = p.sourceId.trim();
  return { seriesId, page: p.page, sort: p.sort, filter };
}

/** True when any filter narrows the list (the sort and page do not). */
export function hasFilters(p: AuditParams): boolean {
  return (
    p.problemsOnly ||
    p.flags.length > 0 ||
    p.kind !== null ||
    !!p.language.trim() ||
    !!p.provider.trim() ||
    !!p.sourceId.trim()
  );
}

/** Changing what is shown starts again on page 1; only the pager keeps a page. */
export function withFilters(p: AuditParams, change: Partial<Omit<AuditParams, "page">>): AuditParams {
  return { ...p, ...change, page: 1 };
}

export function pageCount(total: number, pageSize = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / Math.max(1, pageSize)));
}

/** "25–26 of 26" for the pager's status line. */
export function rangeLabel(page: number, total: number, pageSize = PAGE_SIZE): string {
  if (total <= 0) return "0 files";
  const first = (page - 1) * pageSize + 1;
  if (first > total) return `${total} ${total === 1 ? "file" : "files"}`;
  const last = Math.min(total, page * pageSize);
  return `${first}–${last} of ${total}`;
}

/**
 * Toggling every file of the page: when all are already selected they are unselected, otherwise
 * they are all added. Selected files of other pages stay as they were.
 */
export function toggleAll(selected: ReadonlySet<number>, pageIds: readonly number[]): Set<number> {
  const next = new Set(selected);
  const all = pageIds.length > 0 && pageIds.every((id) => next.has(id));
  for (const id of pageIds) {
    if (all) next.delete(id);
    else next.add(id);
  }
  return next;
}
