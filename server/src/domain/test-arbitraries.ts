/**
 * fast-check generators of whole series for the property suite (properties.test.ts): chapters with
 * zero, decimals, split parts and extras; books; whole, part and range chapter files; book files of
 * every origin, size and tag source; operator, reading, catalogue, official and estimate maps that
 * overlap and contradict each other; assembled releases whose provenance matches the operator map
 * or not; book proofs (verifications) that apply or went stale (digest or map). Labels come from a small universe so that claims, files and slots collide often.
 */
import fc from "fast-check";
import { label, type Label } from "./labels.ts";
import { assembledRelease, fileFacts } from "./test-fixtures.ts";
import type {
  ChapterSlotFacts,
  FileFacts,
  FileOrigin,
  MapEntryFacts,
  MapSourceFacts,
  MapSourceKind,
  ReleaseFacts,
  SeriesFacts,
  SeriesSnapshot,
  VerificationFacts,
  VolumeSlotFacts,
} from "./types.ts";

export const chapterLabel: fc.Arbitrary<Label> = fc
  .tuple(fc.integer({ min: 0, max: 16 }), fc.constantFrom("", "", "", "", "", "5", "1", "2", "05"))
  .map(([n, frac]) => label(frac ? `${n}.${frac}` : `${n}`));

export const volumeLabel: fc.Arbitrary<Label> = fc.integer({ min: 0, max: 6 }).map((n) => label(n));

/** A contiguous run of whole chapters ("c5-c9"), the usual shape of a book. */
const chapterRun: fc.Arbitrary<Label[]> = fc
  .tuple(fc.integer({ min: 0, max: 16 }), fc.integer({ min: 0, max: 6 }))
  .map(([start, length]) => Array.from({ length }, (_, i) => label(start + i)));

export const mapEntriesArb: fc.Arbitrary<MapEntryFacts[]> = fc.array(
  fc.record({
    volume: volumeLabel,
    chapters: fc.oneof(
      { arbitrary: chapterRun, weight: 3 },
      { arbitrary: fc.uniqueArray(chapterLabel, { maxLength: 6 }), weight: 1 },
    ),
  }),
  { maxLength: 7 },
);

const kinds: MapSourceKind[] = ["operator", "reading", "catalogue", "official", "estimate"];

export function sourcesArb(allowed: readonly MapSourceKind[] = kinds): fc.Arbitrary<MapSourceFacts[]> {
  return fc
    .array(fc.record({ kind: fc.constantFrom(...allowed), entries: mapEntriesArb, revision: fc.nat({ max: 9 }) }), {
      maxLength: 5,
    })
    .map((list) =>
      list.map((s, i) => ({ id: 500 + i, kind: s.kind, name: s.kind, revision: s.revision, entries: s.entries })),
    );
}

export const chaptersArb: fc.Arbitrary<ChapterSlotFacts[]> = fc
  .uniqueArray(
    fc.record({
      number: chapterLabel,
      monitored: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
      parts: fc.constantFrom(1, 1, 1, 1, 2, 3),
      extra: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
    }),
    { selector: (c) => c.number, maxLength: 30 },
  )
  .map((list) => list.map((c, i) => ({ id: 1 + i, ...c })));

const volumesArb: fc.Arbitrary<VolumeSlotFacts[]> = fc
  .uniqueArray(fc.record({ number: volumeLabel, monitored: fc.integer({ min: 0, max: 4 }).map((n) => n > 0) }), {
    selector: (v) => v.number,
    maxLength: 8,
  })
  .map((list) => list.map((v, i) => ({ id: 100 + i, ...v })));

/** A file before build() gives it an id, path and hash; what it leaves out defaults as in fileFacts. */
type FileDraft = Partial<Omit<FileFacts, "id" | "path" | "sha256">> & {
  proof: "none" | "match" | "random";
  proofChapters: Label[];
  /** A recorded verification of a book: applying, or stale by its digest or by the map. */
  verify?: "none" | "match" | "stale_digest" | "stale_map";
};

/** A chapter file without tag or proof. */
const chapterDraft = (over: Partial<FileDraft>): FileDraft => ({
  kind: "chapter",
  tagSource: null,
  proof: "none",
  proofChapters: [],
  ...over,
});

const origins: FileOrigin[] = ["scan", "download", "assembled", "assembled", "import", "translation"];

const chapterFileArb: fc.Arbitrary<FileDraft> = fc
  .record({
    chapter: fc.option(chapterLabel, { freq: 12 }),
    chapterEnd: fc.option(chapterLabel, { freq: 1, nil: null }),
    part: fc.option(fc.integer({ min: 1, max: 3 }), { freq: 2, nil: null }),
    origin: fc.constantFrom<FileOrigin>("scan", "download", "import"),
  })
  .map(chapterDraft);

const bookFileArb: fc.Arbitrary<FileDraft> = fc
  .record({
    volume: fc.option(volumeLabel, { freq: 8 }),
    pageCount: fc.constantFrom(150, 240, 600, 601, 950),
    origin: fc.constantFrom(...origins),
    tagSource: fc.constantFrom<FileFacts["tagSource"]>("comicinfo", "filename", "estimate", null),
    proof: fc.constantFrom<FileDraft["proof"]>("none", "match", "match", "random"),
    proofChapters: fc.uniqueArray(chapterLabel, { maxLength: 5 }),
    verify: fc.constantFrom<NonNullable<FileDraft["verify"]>>(
      "none",
      "none",
      "match",
      "match",
      "stale_digest",
      "stale_map",
    ),
  })
  .map((f) => ({ kind: "book", ...f }));

const seriesArb: fc.Arbitrary<SeriesFacts> = fc.record({
  id: fc.constant(1),
  title: fc.constant("Property Series"),
  status: fc.constantFrom("running", "finished", "paused"),
  knownBookCount: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
  editionBookCount: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null, freq: 4 }),
  webtoon: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  formOverride: fc.option(fc.constantFrom("books", "chapters"), { nil: null, freq: 4 }),
  planWording: fc.constant("books_first"),
  monitored: fc.integer({ min: 0, max: 6 }).map((n) => n > 0),
  language: fc.constant("en"),
});

/** Operator chapters of a volume, as a proof that matches the current operator map would list them. */
function operatorChapters(sources: readonly MapSourceFacts[], volume: Label): Label[] {
  return sources
    .filter((s) => s.kind === "operator")
    .flatMap((s) => s.entries.filter((e) => e.volume === volume).flatMap((e) => e.chapters));
}

/** Anything goes: random claims, files and slots over a small label universe. */
const randomSnapshotArb: fc.Arbitrary<SeriesSnapshot> = fc
  .record({
    series: seriesArb,
    volumes: volumesArb,
    chapters: chaptersArb,
    mapSources: sourcesArb(),
    files: fc.array(fc.oneof({ arbitrary: chapterFileArb, weight: 3 }, { arbitrary: bookFileArb, weight: 1 }), {
      maxLength: 30,
    }),
  })
  .map(build);

function build({
  series,
  volumes,
  chapters,
  mapSources,
  files,
}: {
  series: SeriesFacts;
  volumes: VolumeSlotFacts[];
  chapters: ChapterSlotFacts[];
  mapSources: MapSourceFacts[];
  files: FileDraft[];
}): SeriesSnapshot {
  const releases: ReleaseFacts[] = [];
  const verifications = new Map<Label, VerificationFacts>();
  const facts: FileFacts[] = files.map(({ proof, proofChapters, verify = "none", ...draft }, i) => {
    const file = fileFacts({ ...draft, id: 1000 + i, path: `file-${i}.cbz`, sha256: `sha-${i}` });
    if (file.kind === "book" && file.volume !== null && proof !== "none") {
      const chapters = proof === "match" ? operatorChapters(mapSources, file.volume) : proofChapters;
      releases.push({ ...assembledRelease(file, chapters), id: 2000 + i });
    }
    if (file.kind === "book" && file.volume !== null && verify !== "none") {
      const current = operatorChapters(mapSources, file.volume);
      verifications.set(file.volume, {
        volume: file.volume,
        fileId: file.id,
        digest: verify === "stale_digest" ? "sha256:stale" : `sha256:${file.sha256}`,
        chapters: verify === "stale_map" ? [...current, label(99)] : current,
        sourceUrl: null,
        note: "checked",
        createdAt: "2024-01-01T00:00:00.000Z",
      });
    }
    return file;
  });
  return { series, volumes, chapters, mapSources, files: facts, releases, verifications: [...verifications.values()] };
}

/**
 * A series shaped like a real one: chapters 0..n (a few decimals and extras), books cutting them into
 * contiguous runs, an operator map of most of those runs (some books left out, some emptied, now and
 * then a chapter claimed twice), most chapters on disk, some books owned. It exercises what random
 * claims rarely reach: complete books, neighbours, duplicates and proven assemblies.
 */
const structuredSnapshotArb: fc.Arbitrary<SeriesSnapshot> = fc
  .record({
    series: seriesArb,
    length: fc.integer({ min: 4, max: 40 }),
    cuts: fc.uniqueArray(fc.integer({ min: 1, max: 39 }), { maxLength: 7 }),
    decimals: fc.uniqueArray(fc.integer({ min: 0, max: 39 }), { maxLength: 3 }),
    entryMode: fc.array(fc.constantFrom("saved", "saved", "saved", "absent", "empty", "reading"), {
      minLength: 8,
      maxLength: 8,
    }),
    conflict: fc.option(fc.integer({ min: 0, max: 39 }), { freq: 4 }),
    onDisk: fc.double({ min: 0.5, max: 1, noNaN: true }),
    seed: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 48, maxLength: 48 }),
    books: fc.array(bookFileArb, { maxLength: 4 }),
    suggestions: sourcesArb(["catalogue", "official", "estimate"]),
  })
  .map(({ series, length, cuts, decimals, entryMode, conflict, onDisk, seed, books, suggestions }) => {
    const wholes = Array.from({ length }, (_, i) => i);
    const decimalLabels = decimals.filter((d) => d < length).map((d) => label(`${d}.5`));
    const chapters: ChapterSlotFacts[] = [...wholes.map((n) => label(n)), ...decimalLabels].map((number, i) => ({
      id: 1 + i,
      number,
      monitored: (seed[i] ?? 0) > 0.1,
      parts: (seed[i] ?? 0) > 0.9 ? 2 : 1,
      extra: number.includes(".") && (seed[i] ?? 0) > 0.5,
    }));
    const starts = [0, ...cuts.filter((c) => c < length).sort((a, b) => a - b)];
    const runs = starts.map((start, i) =>
      chapters.map((c) => c.number).filter((n) => Number(n) >= start && Number(n) < (starts[i + 1] ?? Infinity)),
    );
    const operator: MapEntryFacts[] = [];
    const reading: MapEntryFacts[] = [];
    runs.forEach((run, i) => {
      const volume = label(i + 1);
      const mode = entryMode[i] ?? "saved";
      if (mode === "saved") operator.push({ volume, chapters: run });
      if (mode === "empty") operator.push({ volume, chapters: [] });
      if (mode === "reading") reading.push({ volume, chapters: run });
    });
    if (conflict !== null && operator.length > 1) operator[1]?.chapters.push(label(conflict % length));
    const mapSources: MapSourceFacts[] = [
      { id: 400, kind: "operator", name: "operator", revision: 3, entries: operator },
      { id: 401, kind: "reading", name: "reading", revision: 1, entries: reading },
      ...suggestions,
    ];
    const volumes = runs.map((_, i) => ({ id: 100 + i, number: label(i + 1), monitored: (seed[40 + i] ?? 0) > 0.15 }));
    const chapterFiles: FileDraft[] = chapters
      .filter((_, i) => (seed[(i * 7) % 48] ?? 0) < onDisk)
      .map((c) => chapterDraft({ chapter: c.number, part: c.parts > 1 ? 1 : null }));
    const bookFiles = books.map((b, i) => ({
      ...b,
      volume: b.volume === null ? null : label((Number(b.volume) % runs.length) + (i % 2)),
    }));
    return build({ series, volumes, chapters, mapSources, files: [...chapterFiles, ...bookFiles] });
  });

export const snapshotArb: fc.Arbitrary<SeriesSnapshot> = fc.oneof(randomSnapshotArb, structuredSnapshotArb);
