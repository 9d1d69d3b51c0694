/**
 * Plain data the rule core works on. Services load these from the database (repositories map
 * rows to them) and hand them to the pure functions of this folder. Nothing here knows about
 * Prisma, files or the network.
 */
import type { Label } from "./labels.ts";

export type SeriesStatus = "running" | "finished" | "paused";
export type SeriesForm = "books" | "chapters";
export type PlanWording = "books_first" | "chapters_first";
export type FileKind = "book" | "chapter";
/** How a file came into the library. Only `assembled` books can be proven by their provenance. */
export type FileOrigin = "scan" | "download" | "assembled" | "import" | "translation";
/**
 * operator and reading maps are operational; catalogue and official maps are suggestions;
 * estimate is a legacy stored estimate that every reader ignores and reconciliation removes.
 */
export type MapSourceKind = "operator" | "reading" | "catalogue" | "official" | "estimate";
export type Coverage = "covered_by_volume" | "covered_unmapped" | "covered_by_chapters";
export type Plan = "book on disk" | "assemble when its chapters are complete" | "in part" | "missing";
export type MapState = "exact" | "partial" | "none";
export type SeriesCompletion = "all books" | "all chapters" | null;

/** Books above this page count do not cover chapters unless they are proven assemblies. */
export const OVERSIZED_BOOK_PAGES = 600;

/**
 * Why a book the service did not assemble itself is suspect (docs/rules.md, "Suspect and verified books";
 * verification.ts).
 */
export type SuspectReason = "hand import" | "machine translation" | "oversized pack";

/**
 * A recorded proof of what a book holds (docs/rules.md, "Suspect and verified books"); whether it applies:
 * verification.ts.
 */
export interface VerificationFacts {
  volume: Label;
  /** The book file the proof was recorded for. */
  fileId: number;
  /** "sha256:<hex>" of the content when the proof was recorded. */
  digest: string;
  chapters: Label[];
  sourceUrl: string | null;
  note: string;
  createdAt: string;
}

export interface SeriesFacts {
  id: number;
  title: string;
  status: SeriesStatus;
  /** Number of books the work has; null = unknown. */
  knownBookCount: number | null;
  /** Override for a differently sized edition; null = none. */
  editionBookCount: number | null;
  /** Reads as a vertical strip (webtoon) rather than in pages. */
  webtoon: boolean;
  /** Operator override of the form; null = decided by the rules. */
  formOverride: SeriesForm | null;
  planWording: PlanWording;
  monitored: boolean;
  language: string;
}

export interface VolumeSlotFacts {
  id: number;
  number: Label;
  monitored: boolean;
}

export interface ChapterSlotFacts {
  id: number;
  number: Label;
  monitored: boolean;
  /** Parts a split chapter is published in; 1 = not split. */
  parts: number;
  /** Optional extra: keeps its book membership, never counts as a main chapter. */
  extra: boolean;
  /** The slot's name, when it has one (an unnumbered release's name as its source lists it). */
  title?: string | null;
}

export interface MapEntryFacts {
  volume: Label;
  /** Exact chapter labels; empty = membership explicitly unknown. */
  chapters: Label[];
}

export interface MapSourceFacts {
  id: number;
  kind: MapSourceKind;
  /** "operator", "reading", "catalogue:<name>", "official:<name>". */
  name: string;
  revision: number;
  entries: MapEntryFacts[];
}

/** An active library file (recycled files never reach the rule core). */
export interface FileFacts {
  id: number;
  path: string;
  kind: FileKind;
  volume: Label | null;
  /** First chapter a chapter file holds. */
  chapter: Label | null;
  /** Last chapter of a range file ("c001-003"); null or equal to chapter for one chapter. */
  chapterEnd: Label | null;
  /** 1-based part of a split chapter; null = whole chapter. */
  part: number | null;
  pageCount: number;
  sha256: string;
  origin: FileOrigin;
  language: string | null;
  /** Where the volume tag came from; estimate-derived tags are never trusted. */
  tagSource: "comicinfo" | "filename" | "estimate" | null;
}

/** Versioned provenance of an assembled book (chapter_release.assembled_from). */
export interface AssembledFromV1 {
  version: 1;
  volume: Label;
  chapters: Label[];
  sourceReleaseIds: number[];
  files: { id: number; path: string; sha256: string }[];
  notes?: string[];
}

export interface ReleaseFacts {
  id: number;
  kind: "chapter" | "volume";
  volume: Label | null;
  chapter: Label | null;
  part: number | null;
  fileId: number | null;
  language: string;
  assembledFrom: AssembledFromV1 | null;
}

/** Everything the units index of one series is built from (the five bulk selects + the series row). */
export interface SeriesSnapshot {
  series: SeriesFacts;
  volumes: VolumeSlotFacts[];
  chapters: ChapterSlotFacts[];
  mapSources: MapSourceFacts[];
  files: FileFacts[];
  releases: ReleaseFacts[];
  /** Recorded book proofs (a few per series). */
  verifications: VerificationFacts[];
}

/* ------------------------------------------------------------------------------------------ */
/* The index the coverage rules build once per request (coverage.ts), read by the series-form, */
/* plan and grouping rules and by the units endpoint.                                          */
/* ------------------------------------------------------------------------------------------ */

/** The operational map after trust rules: only operator and reading sources, conflicts removed. */
export interface OperationalMap {
  state: MapState;
  /** Book → its exact chapters (non-empty sets only). */
  books: Map<Label, Label[]>;
  /** Books with an explicit empty entry (membership unknown on purpose). */
  unknownBooks: Set<Label>;
  /** Chapter → the one book the map assigns it to. Conflicting chapters are absent. */
  chapterToBook: Map<Label, Label>;
  /** Chapters claimed by more than one book across operational sources: stay unmapped. */
  conflicts: Map<Label, Label[]>;
  /** Books whose claims conflict (their coverage is ambiguous, assembly refused). */
  ambiguousBooks: Set<Label>;
  /** Operator map revision (0 when there is no operator map). */
  revision: number;
}

export interface ChapterState {
  number: Label;
  slotId: number | null;
  monitored: boolean;
  extra: boolean;
  /** The slot's name, if any (see ChapterSlotFacts). */
  title?: string | null;
  parts: number;
  /** Every part present in active chapter files. */
  onDisk: boolean;
  /** Part numbers on disk (1-based); [1] for a whole chapter on disk. */
  partsOnDisk: number[];
  /** Active chapter files holding this chapter. */
  fileIds: number[];
  /** Book from the exact operational map only; never from an estimate or a catalogue. */
  book: Label | null;
  /** Estimated book for display; nothing else reads it. */
  estimatedBook: Label | null;
  /** Claimed by several books in operational sources. */
  ambiguous: boolean;
  /** covered_by_volume only under an exact map; covered_unmapped only without any map (coverage.ts). */
  coverage: "covered_by_volume" | "covered_unmapped" | null;
  /**
   * Not covered, but an owned book the service does not mean to replace may hold it: the saved
   * boundaries of a partial map, or of a hand-imported book, or (no map) an owned hand import.
   * A held chapter is not fetched again; it is no coverage either.
   */
  held: boolean;
  /** The one definition of wanted (coverage.ts `chapterWanted`); the Wanted pass reads it. */
  wanted: boolean;
  /** Chapter files made redundant by an owned book that covers this chapter (exact map only). */
  duplicateFileIds: number[];
}

export interface BookState {
  number: Label;
  slotId: number | null;
  monitored: boolean;
  /** An active book file exists for this volume. */
  owned: boolean;
  fileIds: number[];
  pageCount: number | null;
  /** The owned book is an assembly whose provenance matches the current map entry. */
  provenAssembly: boolean;
  /** The owned book may cover its mapped chapters (exact map; a suspect book only while verified). */
  coversChapters: boolean;
  /** Why the owned book is suspect (every copy is); null = sound or not owned. */
  suspect: SuspectReason | null;
  /** A recorded proof still applies to an owned copy (same digest, same map entry). */
  verified: boolean;
  /** Exact chapters from the operational map; null = unknown (no entry or empty entry). */
  chapters: Label[] | null;
  /** Main (non-extra) chapters of the map entry on disk, and their number. */
  chaptersOnDisk: number;
  chaptersMapped: number;
  estimatedChapters: Label[];
  ambiguous: boolean;
  coverage: "covered_by_chapters" | null;
  /** Numbered beyond the managed edition (edition_book_count, else the known count): listed only
   * because a file or an operational map entry names it, never wanted. */
  extra: boolean;
  /** Every copy is an unverified oversized pack: its size says another edition or a wrong split. */
  replace: boolean;
  /** Owned, and the chapters its boundaries name are not fetched again (covers, or a hand import). */
  holdsChapters: boolean;
  /** The one definition of wanted (coverage.ts `bookWanted`); the Wanted pass reads it. */
  wanted: boolean;
  /** Chapter files inside this owned book (exact map only). */
  duplicateFileIds: number[];
  problems: string[];
}

export interface CoverageIndex {
  map: OperationalMap;
  books: BookState[];
  chapters: ChapterState[];
  /** Chapter files whose chapter has no slot and no book (still shown as extras). */
  strayFileIds: number[];
}

/* ------------------------------------------------------------------------------------------ */
/* The units view (GET /api/manga/{id}/units), built by units.ts from the snapshot and index.  */
/* ------------------------------------------------------------------------------------------ */

export interface Unit {
  kind: "book" | "chapter";
  number: Label;
  /** Book from the exact map only. */
  book: Label | null;
  owned: boolean;
  monitored: boolean;
  coverage: Coverage | null;
  /** Completion plan of a book (null for chapters). */
  plan: Plan | null;
  /** An estimate for display; nothing reads it for a decision. */
  estimatedBook: Label | null;
  pageCount: number | null;
  fileIds: number[];
  /**
   * Chapter files made redundant through the exact map: on a chapter, its own files inside an owned
   * book; on an owned book, every chapter file inside it (what its retire action would move).
   */
  duplicateFileIds: number[];
  problems: string[];
  /**
   * Optional extra chapter (shown in the trailing extras group when it has no book); on a book, a
   * book numbered beyond the managed edition that a file or map entry names.
   */
  extra: boolean;
  /** A chapter slot's name, when it has one (an unnumbered release's name). */
  title?: string | null;
}

export interface UnitsView {
  seriesId: number;
  form: SeriesForm;
  map: MapState;
  status: SeriesCompletion;
  planWording: PlanWording;
  units: Unit[];
}
