/**
 * Book slots of the coverage index (coverage.ts): how an owned book stands towards its saved
 * boundaries, `covered_by_chapters` (including the "between its mapped neighbours" rule) and the
 * problems a book row shows. Every rule is documented in coverage.ts; this file only splits it.
 */
import { compareLabels, isWhole, sortLabels, wholePart, type Label } from "./labels.ts";
import { lowerBound, maxLabel, minLabel, sameLabelSet, toLabel, upperBound } from "./map-labels.ts";
import type {
  AssembledFromV1,
  BookState,
  ChapterState,
  FileFacts,
  OperationalMap,
  SeriesSnapshot,
  VerificationFacts,
} from "./types.ts";
import { OVERSIZED_BOOK_PAGES } from "./types.ts";
import {
  fileSuspectReason,
  holdingReason,
  isOversized,
  judgeBookFile,
  proofStatus,
  type BookFileProof,
} from "./verification.ts";

/** Problem texts; the prefix before ":" is stable for filters and tests. */
export const BOOK_PROBLEMS = {
  ambiguous: "ambiguous map",
  oversized: "oversized book does not cover its chapters",
  boundariesChanged: "assembled book no longer matches the map",
  suspect: "suspect",
  missingChapters: "missing chapters",
} as const;

function listLabels(labels: readonly Label[], max = 10): string {
  const shown = labels.slice(0, max).join(", ");
  return labels.length > max ? `${shown} and ${labels.length - max} more` : shown;
}

/** A book state under construction, and whether its owned copy may retire chapter files. */
export interface BookInfo {
  state: BookState;
  retires: boolean;
}

/** Provenance per file id, from the releases. */
export function proofsByFile(snapshot: SeriesSnapshot): Map<number, AssembledFromV1[]> {
  const out = new Map<number, AssembledFromV1[]>();
  for (const r of snapshot.releases) {
    if (r.fileId === null || r.assembledFrom === null) continue;
    out.set(r.fileId, [...(out.get(r.fileId) ?? []), r.assembledFrom]);
  }
  return out;
}

/** Whether an assembled book file's provenance matches the current entry of its volume. */
export function proofOf(
  file: FileFacts,
  volume: Label,
  entry: Label[] | undefined,
  proofs: Map<number, AssembledFromV1[]>,
): BookFileProof {
  if (file.origin !== "assembled") return "none";
  const mine = (proofs.get(file.id) ?? []).filter((p) => toLabel(p.volume) === volume);
  if (mine.length === 0) return "none";
  return entry !== undefined && mine.some((p) => sameLabelSet(p.chapters, entry)) ? "proven" : "boundaries_changed";
}

/** What the book rules read besides the book's own files: the edition's size and the proofs. */
export interface BookContext {
  /** Median page count of the series' books (verification.ts `editionBookPages`); null = unknown. */
  editionPages: number | null;
  proofs: Map<number, AssembledFromV1[]>;
  verifications: Map<Label, VerificationFacts>;
}

/**
 * The book state before chapters are known: ownership, provenance, suspicion and verification
 * (verification.ts `judgeBookFile`), covering, file problems.
 */
export function bookInfo(
  volume: Label,
  files: FileFacts[],
  slot: { id: number; monitored: boolean } | undefined,
  map: OperationalMap,
  ctx: BookContext,
  extra = false,
): BookInfo {
  const entry = map.books.get(volume);
  const proof = ctx.verifications.get(volume);
  const applies = proof !== undefined && proofStatus(proof, files, entry) === "applies";
  const judged = files.map((f) => {
    const assembly = proofOf(f, volume, entry, ctx.proofs);
    const verified = applies && digestMatches(f, proof);
    return { f, proof: assembly, ...judgeBookFile(f, assembly, ctx.editionPages, verified) };
  });
  const covering = judged.filter((j) => j.covers);
  // Suspect unless one copy is sound (not suspect, no changed boundaries): one sound copy covers as usual.
  const sound = judged.some((j) => j.suspect === null && j.proof !== "boundaries_changed");
  const suspect = sound ? null : (judged.find((j) => j.suspect !== null)?.suspect ?? null);
  const problems: string[] = [];
  if (files.length > 0 && covering.length === 0) {
    const changed = judged.some((j) => j.proof === "boundaries_changed");
    const oversized = judged.some((j) => j.suspect === "oversized pack");
    if (changed)
      problems.push(`${BOOK_PROBLEMS.boundariesChanged}: its assembled chapters differ from the saved boundaries`);
    if (oversized) {
      const why = judged.some((j) => j.f.pageCount > OVERSIZED_BOOK_PAGES)
        ? `above ${OVERSIZED_BOOK_PAGES} pages`
        : "far above the edition's books";
      problems.push(`${BOOK_PROBLEMS.oversized}: ${why} and not a proven assembly or a verified book`);
    } else if (suspect !== null && (suspect !== "hand import" || entry !== undefined))
      // A hand import's doubt matters once boundaries say it holds chapters: a shelf of scanned
      // books without a map is no list of problems.
      problems.push(`${BOOK_PROBLEMS.suspect}: ${suspect}, it covers no chapter until it is verified`);
  }
  // A sound copy first: a proof on a suspect copy adds nothing to a book that had no doubt.
  const primary = (covering.find((j) => j.retires) ?? covering[0])?.f ?? files[0];
  const state: BookState = {
    number: volume,
    slotId: slot?.id ?? null,
    monitored: slot?.monitored ?? false,
    owned: files.length > 0,
    fileIds: files.map((f) => f.id),
    pageCount: primary?.pageCount ?? null,
    provenAssembly: judged.some((j) => j.proof === "proven"),
    coversChapters: entry !== undefined && covering.length > 0,
    suspect,
    verified: judged.some((j) => j.verified),
    extra,
    // Only the size asks for another copy; a proof that applies (a covering copy) lifts it.
    replace: files.length > 0 && covering.length === 0 && judged.every((j) => j.suspect === "oversized pack"),
    holdsChapters:
      files.length > 0 && (covering.length > 0 || judged.some((j) => j.suspect !== null && holdingReason(j.suspect))),
    chapters: entry ?? null,
    chaptersOnDisk: 0,
    chaptersMapped: 0,
    estimatedChapters: [],
    ambiguous: map.ambiguousBooks.has(volume),
    coverage: null,
    wanted: false,
    duplicateFileIds: [],
    problems,
  };
  const retires = state.coversChapters && covering.some((j) => j.retires);
  return { state, retires };
}

function digestMatches(f: FileFacts, proof: VerificationFacts | undefined): boolean {
  return proof !== undefined && proofStatus(proof, [f], proof.chapters) === "applies";
}

/** Whether a book file could cover under no map at all (covered_unmapped): a sound, unsuspected copy. */
export function soundBookFile(f: FileFacts, editionPages: number | null): boolean {
  return fileSuspectReason(f, "none", editionPages) === null && !isOversized(f.pageCount, editionPages);
}

/** Whether a book file holds chapters under no map (not fetched again): sound, or a hand import. */
export function holdingBookFile(f: FileFacts, editionPages: number | null): boolean {
  return holdingReason(fileSuspectReason(f, "none", editionPages));
}

/** covered_by_chapters and the chapter counts of one book (see the module comment). */
export function coverByChapters(
  b: BookState,
  map: OperationalMap,
  chapters: Map<Label, ChapterState>,
  gaps: NeighbourGaps,
): void {
  const entry = map.books.get(b.number);
  if (entry === undefined) {
    if (!map.unknownBooks.has(b.number) && gaps.covers(b.number)) b.coverage = "covered_by_chapters";
    return;
  }
  // Main (non-extra) chapters of the entry, and how many of them are on disk: one lookup each.
  let mapped = 0;
  let onDisk = 0;
  for (const c of entry) {
    const state = chapters.get(c);
    if (state?.extra) continue;
    mapped += 1;
    if (state?.onDisk) onDisk += 1;
  }
  b.chaptersMapped = mapped;
  b.chaptersOnDisk = onDisk;
  if (!b.ambiguous && b.chaptersMapped > 0 && b.chaptersOnDisk === b.chaptersMapped) b.coverage = "covered_by_chapters";
}

/** Problems that come from the map: ambiguity, and chapters missing from a partly present book. */
export function mapProblems(b: BookState, map: OperationalMap, chapters: Map<Label, ChapterState>): string[] {
  const out: string[] = [];
  const entry = map.books.get(b.number);
  if (entry === undefined) return out;
  if (b.ambiguous) {
    const contested = entry.filter((c) => map.conflicts.has(c));
    const others = sortLabels(
      [...new Set(contested.flatMap((c) => map.conflicts.get(c) ?? []))].filter((v) => v !== b.number),
    );
    out.push(`${BOOK_PROBLEMS.ambiguous}: chapter ${listLabels(contested)} also claimed by book ${listLabels(others)}`);
  }
  if (!b.coversChapters && b.chaptersOnDisk > 0 && b.chaptersOnDisk < b.chaptersMapped) {
    const missing = entry.filter((c) => !chapters.get(c)?.extra && !chapters.get(c)?.onDisk);
    out.push(`${BOOK_PROBLEMS.missingChapters}: ${listLabels(missing)}`);
  }
  return out;
}

/**
 * The "between its mapped neighbours" rule, memoised per pair of neighbours: books without an
 * entry between the same two mapped books share one verdict.
 */
export class NeighbourGaps {
  private readonly anchors: { volume: Label; first: Label; last: Label; ambiguous: boolean }[];
  private readonly volumes: Label[];
  private readonly memo = new Map<string, boolean>();

  constructor(
    private readonly map: OperationalMap,
    private readonly sortedChapters: readonly Label[],
    private readonly chapters: Map<Label, ChapterState>,
  ) {
    this.anchors = [...map.books]
      .map(([volume, list]) => ({
        volume,
        first: minLabel(list) as Label,
        last: maxLabel(list) as Label,
        ambiguous: map.ambiguousBooks.has(volume),
      }))
      .sort((a, b) => compareLabels(a.volume, b.volume));
    this.volumes = this.anchors.map((a) => a.volume);
  }

  covers(volume: Label): boolean {
    const i = lowerBound(this.volumes, volume);
    const before = this.anchors[i - 1];
    const after = this.anchors[i];
    if (!before || !after || before.ambiguous || after.ambiguous) return false;
    const key = `${before.volume}|${after.volume}`;
    let verdict = this.memo.get(key);
    if (verdict === undefined) {
      verdict = this.gapOnDisk(before.last, after.first);
      this.memo.set(key, verdict);
    }
    return verdict;
  }

  private gapOnDisk(lower: Label, upper: Label): boolean {
    if (compareLabels(lower, upper) >= 0) return false;
    const from = upperBound(this.sortedChapters, lower);
    const to = lowerBound(this.sortedChapters, upper);
    // Every whole number strictly between must be a known chapter: count them without listing.
    const firstWhole = BigInt(wholePart(lower)) + 1n;
    const lastWhole = isWhole(upper) ? BigInt(upper) - 1n : BigInt(wholePart(upper));
    const wholeCount = lastWhole >= firstWhole ? lastWhole - firstWhole + 1n : 0n;
    let knownWholes = 0n;
    let mainOnDisk = 0;
    for (let k = from; k < to; k++) {
      const c = this.sortedChapters[k] as Label;
      if (isWhole(c)) knownWholes += 1n;
      if (this.map.chapterToBook.has(c)) continue; // another book's chapter, mapped out of order
      if (this.map.conflicts.has(c)) return false;
      const state = this.chapters.get(c);
      if (!state || state.extra) continue;
      if (!state.onDisk) return false;
      mainOnDisk += 1;
    }
    return knownWholes === wholeCount && mainOnDisk > 0;
  }
}
