/**
 * Suspect and verified books (docs/rules.md, "Suspect and verified books"): the one definition of "suspect" that the
 * coverage index, the audit and the verified-books listing share, and whether a recorded proof
 * still applies. Pure.
 *
 * Suspect: a book the service did not assemble itself and that may not be what its
 * number says. The reasons, strongest first (the size is judged before the origin, so a scanned
 * pack of several books says "oversized pack", the one reason that asks for a replacement):
 * - a machine translation (`origin: translation`);
 * - an oversized pack: its size judged against the edition, i.e. above OVERSIZED_BOOK_PAGES
 *   pages, or, once the series has at least EDITION_SAMPLE book files, above EDITION_HIGH times
 *   their median page count (a book of another edition or several books in one archive);
 * - a hand import: `origin: import`, and every book the library scan found (`origin: scan`): a
 *   book placed in the library by hand is a hand import.
 * A proven assembly is never suspect, whatever its size; an assembly whose boundaries changed is
 * not suspect either but covers nothing (coverage-books.ts); an oversized "assembled" file without
 * provenance for its volume cannot show the service made it, so it is an oversized pack. A book is suspect only when
 * every copy of its volume is: one sound copy covers as usual.
 *
 * What follows from suspect (coverage.ts): it never covers a chapter on its own (no
 * covered_by_volume, no covered_unmapped), it stays out of duplicate detection, and only an
 * oversized pack asks for a replacement (the size says another edition or a wrong split); a hand
 * import of the edition's size is never replaced for being one, and the chapters its saved
 * boundaries name are not fetched again either (they are "held", not covered).
 *
 * Verified: a proof applies while some copy of the volume still has the proof's digest
 * and the operational map entry of the volume still equals the proof's chapters. It only lifts
 * the doubt: a verified suspect copy covers the chapters its map entry names (a machine
 * translation too) but never makes a chapter file a duplicate; a sound book gains nothing.
 */
import { sameLabelSet } from "./map-labels.ts";
import type { Label } from "./labels.ts";
import {
  OVERSIZED_BOOK_PAGES,
  type FileFacts,
  type FileOrigin,
  type SuspectReason,
  type VerificationFacts,
} from "./types.ts";

export type { SuspectReason } from "./types.ts";

/** A series needs this many book files before their median says what the edition's book is. */
export const EDITION_SAMPLE = 3;
/** A book above this multiple of the edition's median page count is an oversized pack. */
export const EDITION_HIGH = 2;

/** How a book file's assembly provenance stands towards the current map entry (coverage-books.ts). */
export type BookFileProof = "proven" | "boundaries_changed" | "none";

/** "sha256:<hex>", the digest form of the API, from a stored hex sha256. */
export function digestOf(sha256: string): string {
  const hex = sha256.toLowerCase();
  return hex.startsWith("sha256:") ? hex : `sha256:${hex}`;
}

/** Median page count of the series' book files; null below EDITION_SAMPLE files (says nothing). */
export function editionBookPages(files: readonly Pick<FileFacts, "kind" | "pageCount">[]): number | null {
  const pages = files
    .filter((f) => f.kind === "book" && Number.isFinite(f.pageCount) && f.pageCount > 0)
    .map((f) => f.pageCount)
    .sort((a, b) => a - b);
  if (pages.length < EDITION_SAMPLE) return null;
  const mid = pages.length >> 1;
  return pages.length % 2 === 1 ? (pages[mid] as number) : ((pages[mid - 1] as number) + (pages[mid] as number)) / 2;
}

/** Above 600 pages, or far above the edition's typical book (see the module comment). */
export function isOversized(pageCount: number, editionPages: number | null): boolean {
  return pageCount > OVERSIZED_BOOK_PAGES || (editionPages !== null && pageCount > EDITION_HIGH * editionPages);
}

/** Why one book file is suspect, or null (see the module comment). */
export function fileSuspectReason(
  file: { origin: FileOrigin; pageCount: number },
  proof: BookFileProof,
  editionPages: number | null,
): SuspectReason | null {
  if (proof === "proven") return null;
  if (file.origin === "translation") return "machine translation";
  // The service made it, for boundaries that since changed: not suspect, it just no longer covers.
  if (file.origin === "assembled" && proof === "boundaries_changed") return null;
  if (isOversized(file.pageCount, editionPages)) return "oversized pack";
  if (file.origin === "import" || file.origin === "scan") return "hand import";
  return null;
}

/**
 * Whether a book file may hold the chapters its boundaries name for the Wanted pass: a sound copy
 * or a hand import of the edition's size (neither is replaced, so what it holds is not fetched
 * again). A machine translation leaves the native chapters wanted; an oversized pack is replaced.
 */
export function holdingReason(reason: SuspectReason | null): boolean {
  return reason === null || reason === "hand import";
}

/**
 * Why an owned book (all copies of one volume) is suspect, or null when one copy is sound or a copy
 * is a proven assembly. Used by duplicate retirement, which refuses a suspect book outright.
 */
export function bookSuspectReason(
  files: readonly { origin: FileOrigin; pageCount: number }[],
  provenAssembly: boolean,
  editionPages: number | null = null,
): SuspectReason | null {
  if (files.length === 0 || provenAssembly) return null;
  const reasons = files.map((f) => fileSuspectReason(f, "none", editionPages));
  return reasons.every((r) => r !== null) ? (reasons[0] as SuspectReason) : null;
}

/** Whether a proof applies, and when not, which half went stale. */
export type ProofStatus = "applies" | "digest_changed" | "map_changed";

/** Same labels exactly: equal sets and no label named twice. */
export function sameChapters(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && sameLabelSet(a, b);
}

/**
 * A proof applies while a copy of its volume has the proof's digest and the volume's operational
 * map entry (undefined = none or an explicitly unknown one) equals the proof's chapters (a proof lapses by itself).
 */
export function proofStatus(
  proof: Pick<VerificationFacts, "digest" | "chapters">,
  volumeFiles: readonly Pick<FileFacts, "sha256">[],
  entry: readonly Label[] | undefined,
): ProofStatus {
  if (!volumeFiles.some((f) => digestOf(f.sha256) === digestOf(proof.digest))) return "digest_changed";
  if (entry === undefined || !sameChapters(proof.chapters, entry)) return "map_changed";
  return "applies";
}

/** How one owned book file stands: suspect reason, whether it covers, whether it may retire. */
export interface BookFileJudgement {
  suspect: SuspectReason | null;
  /** A proof that applies was recorded for this file's content. */
  verified: boolean;
  covers: boolean;
  retires: boolean;
}

/**
 * Rules 1, 5, 6 and the assembly rules in one place. A proven assembly covers and retires (at any
 * size); an assembly whose boundaries changed covers nothing; a suspect copy covers only while
 * verified and never retires; any other copy covers and retires (a proof adds nothing to it).
 */
export function judgeBookFile(
  file: Pick<FileFacts, "origin" | "pageCount">,
  proof: BookFileProof,
  editionPages: number | null,
  verified: boolean,
): BookFileJudgement {
  const suspect = fileSuspectReason(file, proof, editionPages);
  if (proof === "proven") return { suspect, verified, covers: true, retires: true };
  // Changed boundaries stop an assembled book covering (docs/rules.md, "Assembly"): re-assembly, not a proof, fixes it.
  if (proof === "boundaries_changed") return { suspect, verified, covers: false, retires: false };
  if (suspect !== null) return { suspect, verified, covers: verified, retires: false };
  return { suspect, verified, covers: true, retires: true };
}

/** The proofs of a snapshot by volume (one per volume: the table's unique key). */
export function proofsByVolume(verifications: readonly VerificationFacts[]): Map<Label, VerificationFacts> {
  return new Map(verifications.map((v) => [v.volume, v]));
}
