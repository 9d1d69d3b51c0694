/**
 * What public catalogues (MangaDex, MangaUpdates, AniList) may do: suggest, never decide
 * (docs/rules.md, "Catalogues suggest, never decide").
 *
 * - A MangaDex aggregate (volume → chapters uploaded in one language) becomes a catalogue map
 *   suggestion. A chapter listed under two volumes is in neither (docs/rules.md, "Map trust" 3, even
 *   inside one catalogue); it is reported as a conflict. Chapters under MangaDex's `none` belong to
 *   no book. A volume or chapter key that is not an exact number makes no entry; a chapter listed
 *   under such a volume and under a numbered one is still a conflict (two claims). A chapter listed
 *   under a numbered volume and under `none` keeps its volume: `none` is the absence of a claim
 *   (another group's upload without a volume tag), not a second one.
 * - Counts and statuses of the linked catalogues are graded across catalogues: `agreed` (two or
 *   more state the same value), `lone` (one states it), `conflict` (they differ). They never change
 *   the series by themselves; `countOffers` words what the operator may accept in one click.
 * - Metadata (description, alternative titles, authors, genres) is merged in a fixed priority:
 *   MangaDex, AniList, MangaUpdates.
 */
import { compareLabels, parseLabel, sortLabels, type Label } from "./labels.ts";
import type { MapEntryFacts, SeriesStatus } from "./types.ts";

export const CATALOGUES = ["mangadex", "mangaupdates", "anilist"] as const;
export type CatalogueName = (typeof CATALOGUES)[number];

/** Display names, and the order metadata is taken in (first wins for single values). */
export const CATALOGUE_TITLES: Record<CatalogueName, string> = {
  mangadex: "MangaDex",
  mangaupdates: "MangaUpdates",
  anilist: "AniList",
};
export const METADATA_PRIORITY: readonly CatalogueName[] = ["mangadex", "anilist", "mangaupdates"];

export function isCatalogueName(v: unknown): v is CatalogueName {
  return typeof v === "string" && (CATALOGUES as readonly string[]).includes(v);
}

/** The map source name of a catalogue's suggestion ("catalogue:mangadex"). */
export const suggestionSourceName = (c: CatalogueName): string => `catalogue:${c}`;

// ---------------------------------------------------------------------------------------------
// Aggregate → map suggestion

/** One volume of an aggregate as the catalogue keys it ("1", "10.5", "none", "Special"). */
export interface AggregateVolume {
  volume: string;
  chapters: readonly string[];
}

export interface AggregateConflict {
  chapter: Label;
  /** Every volume key that lists the chapter (numbered ones canonical, sorted; others as given, after). */
  volumes: string[];
}

export interface AggregateSkip {
  volume: string;
  chapter: string | null;
  reason: "volume_not_a_number" | "chapter_not_a_number";
}

export interface AggregateSuggestion {
  /** One entry per numbered volume, chapters canonical and sorted; a chapter is in at most one entry. */
  entries: MapEntryFacts[];
  /** Chapters listed under two or more volumes: in no entry. */
  conflicts: AggregateConflict[];
  /** Chapters listed only under `none`: they belong to no book. */
  noBook: Label[];
  skipped: AggregateSkip[];
}

export const NO_VOLUME_KEY = "none";

export function aggregateSuggestion(volumes: readonly AggregateVolume[]): AggregateSuggestion {
  const skipped: AggregateSkip[] = [];
  /** chapter → the volume keys claiming it (canonical label, or the raw key for an unnumbered volume). */
  const claims = new Map<Label, Set<string>>();
  const inNone = new Set<Label>();
  const numbered = new Set<Label>();
  for (const v of volumes) {
    const key = v.volume.trim();
    const isNone = key.toLowerCase() === NO_VOLUME_KEY;
    const volume = isNone ? null : parseLabel(key);
    if (!isNone && volume === null) skipped.push({ volume: v.volume, chapter: null, reason: "volume_not_a_number" });
    if (volume !== null) numbered.add(volume);
    for (const raw of v.chapters) {
      const chapter = parseLabel(raw);
      if (chapter === null) {
        skipped.push({ volume: v.volume, chapter: raw, reason: "chapter_not_a_number" });
        continue;
      }
      if (isNone) {
        inNone.add(chapter);
        continue;
      }
      const set = claims.get(chapter) ?? new Set<string>();
      set.add(volume ?? `?${key}`);
      claims.set(chapter, set);
    }
  }
  const byVolume = new Map<Label, Label[]>([...numbered].map((v) => [v, []]));
  const conflicts: AggregateConflict[] = [];
  for (const [chapter, keys] of claims) {
    if (keys.size > 1) {
      const labels = sortLabels([...keys].filter((k) => !k.startsWith("?")) as Label[]);
      const others = [...keys].filter((k) => k.startsWith("?")).map((k) => k.slice(1));
      conflicts.push({ chapter, volumes: [...labels, ...others.sort()] });
      continue;
    }
    const only = [...keys][0] as string;
    if (only.startsWith("?")) continue; // claimed only by an unnumbered volume: no book we can name
    byVolume.get(only as Label)?.push(chapter);
  }
  const entries = sortLabels([...byVolume.keys()]).map((volume) => ({
    volume,
    chapters: sortLabels(byVolume.get(volume) ?? []),
  }));
  const conflictChapters = new Set(conflicts.map((c) => c.chapter));
  return {
    entries,
    conflicts: [...conflicts].sort((a, b) => compareLabels(a.chapter, b.chapter)),
    noBook: sortLabels([...inNone].filter((c) => !claims.has(c) && !conflictChapters.has(c))),
    skipped,
  };
}

// ---------------------------------------------------------------------------------------------
// Counts, agreement and the operator's one-click offers

/** A catalogue's own status word, normalised across the three catalogues. */
export type CatalogueStatus = "ongoing" | "completed" | "hiatus" | "cancelled" | "upcoming";
export const CATALOGUE_STATUSES: readonly CatalogueStatus[] = [
  "ongoing",
  "completed",
  "hiatus",
  "cancelled",
  "upcoming",
];

/** The series status a catalogue status speaks for (a cancelled work gets no more books: finished). */
export function seriesStatusOf(s: CatalogueStatus | null): SeriesStatus | null {
  switch (s) {
    case "ongoing":
      return "running";
    case "completed":
    case "cancelled":
      return "finished";
    case "hiatus":
      return "paused";
    case "upcoming":
    case null:
      return null;
  }
}

export interface CatalogueCountFacts {
  catalogue: CatalogueName;
  status: CatalogueStatus | null;
  /** Books the catalogue counts (whole, positive); null when it states none. */
  volumes: number | null;
  chapters: number | null;
}

export type AgreementGrade = "agreed" | "lone" | "conflict";

export interface Agreement<T extends string | number> {
  /** The agreed or lone value; null on conflict or when no catalogue states one. */
  value: T | null;
  /** null when no linked catalogue states a value. */
  grade: AgreementGrade | null;
  /** Every stated value, by catalogue (in catalogue order). */
  values: { catalogue: CatalogueName; value: T }[];
}

export interface CatalogueCounts {
  catalogues: CatalogueCountFacts[];
  volumes: Agreement<number>;
  chapters: Agreement<number>;
  /** Graded on the series status each catalogue speaks for (completed and cancelled both say finished). */
  status: Agreement<SeriesStatus>;
}

function agreement<T extends string | number>(values: { catalogue: CatalogueName; value: T }[]): Agreement<T> {
  if (values.length === 0) return { value: null, grade: null, values };
  const distinct = new Set(values.map((v) => v.value));
  if (distinct.size > 1) return { value: null, grade: "conflict", values };
  return { value: values[0]?.value ?? null, grade: values.length > 1 ? "agreed" : "lone", values };
}

const byCatalogueOrder = (a: { catalogue: CatalogueName }, b: { catalogue: CatalogueName }) =>
  CATALOGUES.indexOf(a.catalogue) - CATALOGUES.indexOf(b.catalogue);

export function catalogueCounts(facts: readonly CatalogueCountFacts[]): CatalogueCounts {
  const sorted = [...facts].sort(byCatalogueOrder);
  const stated = <T extends string | number>(pick: (f: CatalogueCountFacts) => T | null) =>
    sorted.flatMap((f) => {
      const value = pick(f);
      return value === null ? [] : [{ catalogue: f.catalogue, value }];
    });
  return {
    catalogues: sorted,
    volumes: agreement(stated((f) => (f.volumes !== null && f.volumes > 0 ? f.volumes : null))),
    chapters: agreement(stated((f) => (f.chapters !== null && f.chapters > 0 ? f.chapters : null))),
    status: agreement(stated((f) => seriesStatusOf(f.status))),
  };
}

export type OfferField = "known_book_count" | "status";

/** A change the operator may accept in one click; never applied by the service itself. */
export interface CountOffer {
  field: OfferField;
  value: number | SeriesStatus;
  grade: AgreementGrade;
  /** The catalogues stating this value. */
  catalogues: CatalogueName[];
  /** e.g. "Use 12 books (MangaDex and MangaUpdates agree)". */
  text: string;
}

function names(list: readonly CatalogueName[]): string {
  const t = list.map((c) => CATALOGUE_TITLES[c]);
  return t.length <= 1 ? (t[0] ?? "") : `${t.slice(0, -1).join(", ")} and ${t[t.length - 1]}`;
}

function because(grade: AgreementGrade, by: readonly CatalogueName[], others: string): string {
  if (grade === "agreed") return `${names(by)} agree`;
  if (grade === "lone") return `only ${names(by)} states it`;
  return `${names(by)}; ${others}`;
}

const STATUS_WORDS: Record<SeriesStatus, string> = { running: "running", finished: "finished", paused: "paused" };

/**
 * What the series page offers from the graded counts: a book count (and a status) the series does
 * not have yet. Agreed and lone values give one offer; a conflict gives one offer per value, each
 * naming who says otherwise, so the operator decides which catalogue is right.
 */
export function countOffers(
  counts: CatalogueCounts,
  series: { status: SeriesStatus; knownBookCount: number | null },
): CountOffer[] {
  const offers: CountOffer[] = [];
  const add = <T extends number | SeriesStatus>(
    field: OfferField,
    a: Agreement<T>,
    current: T | null,
    word: (v: T) => string,
  ) => {
    if (a.grade === null) return;
    const distinct = [...new Set(a.values.map((v) => v.value))];
    for (const value of distinct) {
      if (value === current) continue;
      const by = a.values.filter((v) => v.value === value).map((v) => v.catalogue);
      const others = a.values
        .filter((v) => v.value !== value)
        .map((v) => `${CATALOGUE_TITLES[v.catalogue]} says ${String(v.value)}`)
        .join(", ");
      const grade: AgreementGrade = a.grade === "conflict" ? "conflict" : by.length > 1 ? "agreed" : "lone";
      offers.push({ field, value, grade, catalogues: by, text: `${word(value)} (${because(grade, by, others)})` });
    }
  };
  add("known_book_count", counts.volumes, series.knownBookCount, (n) => `Use ${n} ${n === 1 ? "book" : "books"}`);
  add("status", counts.status, series.status, (s) => `Mark as ${STATUS_WORDS[s]}`);
  return offers;
}

// ---------------------------------------------------------------------------------------------
// Metadata

export interface CatalogueMetadataFacts {
  catalogue: CatalogueName;
  title: string | null;
  description: string | null;
  alternativeTitles: readonly string[];
  authors: readonly string[];
  genres: readonly string[];
}

export interface MergedMetadata {
  description: string | null;
  descriptionFrom: CatalogueName | null;
  alternativeTitles: string[];
  authors: string[];
  genres: string[];
}

const fold = (s: string) => s.normalize("NFKC").trim().toLowerCase();

function union(lists: readonly (readonly string[])[], exclude: readonly string[] = []): string[] {
  const seen = new Set(exclude.map(fold));
  const out: string[] = [];
  for (const list of lists)
    for (const raw of list) {
      const v = raw.trim();
      if (!v || seen.has(fold(v))) continue;
      seen.add(fold(v));
      out.push(v);
    }
  return out;
}

/** Descriptions and lists in METADATA_PRIORITY; alternative titles exclude the series' own title. */
export function mergeMetadata(seriesTitle: string, facts: readonly CatalogueMetadataFacts[]): MergedMetadata {
  const ordered = [...facts].sort(
    (a, b) => METADATA_PRIORITY.indexOf(a.catalogue) - METADATA_PRIORITY.indexOf(b.catalogue),
  );
  const withDescription = ordered.find((f) => f.description !== null && f.description.trim() !== "");
  return {
    description: withDescription?.description?.trim() ?? null,
    descriptionFrom: withDescription?.catalogue ?? null,
    alternativeTitles: union(
      ordered.map((f) => [...(f.title ? [f.title] : []), ...f.alternativeTitles]),
      [seriesTitle],
    ),
    authors: union(ordered.map((f) => f.authors)),
    genres: union(ordered.map((f) => f.genres)),
  };
}
