/**
 * Small builders for the plain facts of a series, for tests of the rule core.
 *
 * Every builder fills sensible defaults (a finished, monitored series; monitored slots; downloaded
 * 200-page books with a ComicInfo volume tag) so a test names only what it is about:
 *
 *   snapshot({ chapters: "1-20", volumes: "1-2", operator: { "1": "1-10", "2": "11-20" },
 *              files: [bookFile("1"), chapterFile("12")] })
 *
 * Ids are unique across one test run (a module counter) unless given explicitly. Nothing here is
 * used by production code.
 */
import { buildCoverageIndex, type CoverageOptions } from "./coverage.ts";
import { expandRange, label, sortLabels, type Label } from "./labels.ts";
import type { JobFacts, Moved, TranslationState, transition } from "./translation-jobs.ts";
import type {
  AssembledFromV1,
  BookState,
  ChapterState,
  CoverageIndex,
  ChapterSlotFacts,
  FileFacts,
  MapEntryFacts,
  MapSourceFacts,
  MapSourceKind,
  ReleaseFacts,
  VerificationFacts,
  SeriesFacts,
  SeriesSnapshot,
  VolumeSlotFacts,
} from "./types.ts";

let counter = 1000;
/** A fresh id, unique within the test run. */
export function nextId(): number {
  counter += 1;
  return counter;
}

/**
 * Labels from a short list: "1-5, 7.5, 0" → 1,2,3,4,5,7.5,0 (in the order written). A range expands
 * whole numbers only, like a "c001-005" file name.
 */
export function labels(spec: string): Label[] {
  const out: Label[] = [];
  for (const part of spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const dash = part.indexOf("-");
    if (dash > 0) out.push(...expandRange(label(part.slice(0, dash)), label(part.slice(dash + 1)), 100_000));
    else out.push(label(part));
  }
  return out;
}

export function seriesFacts(over: Partial<SeriesFacts> = {}): SeriesFacts {
  return {
    id: 1,
    title: "Test Series",
    status: "finished",
    knownBookCount: null,
    editionBookCount: null,
    webtoon: false,
    formOverride: null,
    planWording: "books_first",
    monitored: true,
    language: "en",
    ...over,
  };
}

export function volumeSlot(number: string, over: Partial<VolumeSlotFacts> = {}): VolumeSlotFacts {
  return { id: nextId(), number: label(number), monitored: true, ...over };
}

export function volumeSlots(spec: string, over: Partial<VolumeSlotFacts> = {}): VolumeSlotFacts[] {
  return labels(spec).map((n) => volumeSlot(n, over));
}

export function chapterSlot(number: string, over: Partial<ChapterSlotFacts> = {}): ChapterSlotFacts {
  return { id: nextId(), number: label(number), monitored: true, parts: 1, extra: false, ...over };
}

export function chapterSlots(spec: string, over: Partial<ChapterSlotFacts> = {}): ChapterSlotFacts[] {
  return labels(spec).map((n) => chapterSlot(n, over));
}

/** A file; by default an active, downloaded, 20-page English chapter file whose tags come from ComicInfo. */
export function fileFacts(over: Partial<FileFacts>): FileFacts {
  const id = over.id ?? nextId();
  return {
    id,
    path: `Test Series/file-${id}.cbz`,
    kind: "chapter",
    volume: null,
    chapter: null,
    chapterEnd: null,
    part: null,
    pageCount: 20,
    sha256: `sha-${id}`,
    origin: "download",
    language: "en",
    tagSource: "comicinfo",
    ...over,
  };
}

/** An active book file for a volume (200 pages, downloaded, volume from ComicInfo). */
export function bookFile(volume: string, over: Partial<FileFacts> = {}): FileFacts {
  return fileFacts({ kind: "book", volume: label(volume), pageCount: 200, ...over });
}

/** A recorded proof for a book file: its current digest and the given chapters ("1-3" or labels). */
export function proofFor(
  file: FileFacts,
  chapters: string | Label[],
  over: Partial<VerificationFacts> = {},
): VerificationFacts {
  const list = typeof chapters === "string" ? labels(chapters) : chapters;
  return {
    volume: file.volume ?? label(0),
    fileId: file.id,
    digest: `sha256:${file.sha256}`,
    chapters: list,
    sourceUrl: null,
    note: "checked page by page",
    createdAt: "2024-01-01T00:00:00.000Z",
    ...over,
  };
}

/** An active file holding one whole chapter. */
export function chapterFile(chapter: string, over: Partial<FileFacts> = {}): FileFacts {
  return fileFacts({ kind: "chapter", chapter: label(chapter), ...over });
}

/** An active file holding a range of chapters ("c001-003"). */
export function rangeFile(first: string, last: string, over: Partial<FileFacts> = {}): FileFacts {
  return fileFacts({ kind: "chapter", chapter: label(first), chapterEnd: label(last), ...over });
}

/** An active file holding one part (1-based) of a split chapter. */
export function partFile(chapter: string, part: number, over: Partial<FileFacts> = {}): FileFacts {
  return fileFacts({ kind: "chapter", chapter: label(chapter), part, pageCount: 10, ...over });
}

/** Entries from a record: { "1": "1-10", "2": "" } → book 1 = 1..10, book 2 explicitly unknown. */
export function mapEntries(spec: Record<string, string> | MapEntryFacts[]): MapEntryFacts[] {
  if (Array.isArray(spec)) return spec;
  const volumes = sortLabels(Object.keys(spec).map((v) => label(v)));
  return volumes.map((volume) => {
    const raw = Object.entries(spec).find(([k]) => label(k) === volume)?.[1] ?? "";
    return { volume, chapters: labels(raw) };
  });
}

export function mapEntry(volume: string, chapters: string): MapEntryFacts {
  return { volume: label(volume), chapters: labels(chapters) };
}

const DEFAULT_NAMES: Record<MapSourceKind, string> = {
  operator: "operator",
  reading: "reading",
  catalogue: "catalogue:test",
  official: "official:test",
  estimate: "estimate",
};

export function mapSource(
  kind: MapSourceKind,
  entries: Record<string, string> | MapEntryFacts[],
  over: Partial<MapSourceFacts> = {},
): MapSourceFacts {
  return { id: nextId(), kind, name: DEFAULT_NAMES[kind], revision: 1, entries: mapEntries(entries), ...over };
}

/** The volume release of an assembled book, with its provenance (assembled_from v1). */
export function assembledRelease(
  file: FileFacts,
  chapters: string | Label[],
  over: Partial<AssembledFromV1> = {},
): ReleaseFacts {
  const volume = file.volume ?? label("0");
  const from: AssembledFromV1 = {
    version: 1,
    volume,
    chapters: typeof chapters === "string" ? labels(chapters) : chapters,
    sourceReleaseIds: [],
    files: [],
    ...over,
  };
  return {
    id: nextId(),
    kind: "volume",
    volume,
    chapter: null,
    part: null,
    fileId: file.id,
    language: "en",
    assembledFrom: from,
  };
}

type EntrySpec = Record<string, string> | MapEntryFacts[];

export interface SnapshotSpec {
  series?: Partial<SeriesFacts>;
  /** Volume slots, or a list such as "1-3" (monitored slots). */
  volumes?: VolumeSlotFacts[] | string;
  /** Chapter slots, or a list such as "0-20, 10.5" (monitored, unsplit, not extra). */
  chapters?: ChapterSlotFacts[] | string;
  operator?: EntrySpec;
  reading?: EntrySpec;
  catalogue?: EntrySpec;
  official?: EntrySpec;
  estimate?: EntrySpec;
  /** Further sources, added after the ones above. */
  sources?: MapSourceFacts[];
  files?: FileFacts[];
  releases?: ReleaseFacts[];
  verifications?: VerificationFacts[];
}

/** A whole series snapshot; see the module comment for an example. */
export function snapshot(spec: SnapshotSpec = {}): SeriesSnapshot {
  const volumes = typeof spec.volumes === "string" ? volumeSlots(spec.volumes) : (spec.volumes ?? []);
  const chapters = typeof spec.chapters === "string" ? chapterSlots(spec.chapters) : (spec.chapters ?? []);
  const mapSources: MapSourceFacts[] = [];
  for (const kind of ["operator", "reading", "catalogue", "official", "estimate"] as const) {
    const entries = spec[kind];
    if (entries !== undefined) mapSources.push(mapSource(kind, entries));
  }
  mapSources.push(...(spec.sources ?? []));
  return {
    series: seriesFacts(spec.series),
    volumes,
    chapters,
    mapSources,
    files: spec.files ?? [],
    releases: spec.releases ?? [],
    verifications: spec.verifications ?? [],
  };
}

/** The coverage index of a prepared snapshot, and lookups into it that fail loudly. */
export const coverageOf = (spec: SnapshotSpec, options: CoverageOptions = {}): CoverageIndex =>
  buildCoverageIndex(snapshot(spec), options);
export const chapterOf = (idx: CoverageIndex, n: string): ChapterState => {
  const c = idx.chapters.find((x) => x.number === label(n));
  if (!c) throw new Error(`no chapter ${n}`);
  return c;
};
export const bookOf = (idx: CoverageIndex, n: string): BookState => {
  const b = idx.books.find((x) => x.number === label(n));
  if (!b) throw new Error(`no book ${n}`);
  return b;
};

/** A translation job's facts in `state` (attempt 0, destination en, not paused), with `patch` over them. */
export const jobFacts = (state: TranslationState, patch: Partial<JobFacts> = {}): JobFacts => ({
  state,
  attempt: 0,
  targetLanguage: "en",
  pausedFrom: null,
  pausedReason: null,
  cancelPending: false,
  ...patch,
});

/** The move a translation-job transition made; throws when it was refused. */
export function movedJob(r: ReturnType<typeof transition>): Moved {
  if ("refused" in r) throw new Error(`refused: ${r.refused}`);
  return r;
}
