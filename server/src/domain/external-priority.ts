/**
 * External volumes have priority over assemblies (docs/rules.md, "Assembly"). Pure.
 *
 * When a volume has an active assembled copy and an active external copy (anything the service did
 * not assemble: a scanned file, a download, a hand import, a translation), the external copy is the
 * book and every assembled copy of that volume is replaced — unless the external copy is suspect
 * (verification.ts: hand import, machine translation, oversized pack against the edition) and has
 * no proof that applies. A doubtful file must not push out a book the service made and can prove;
 * once it is verified it wins like any other external copy. Chapter files are never touched here.
 */
import { compareLabels, type Label } from "./labels.ts";
import type { CoverageIndex, FileFacts, SeriesSnapshot } from "./types.ts";
import { editionBookPages, fileSuspectReason, proofStatus } from "./verification.ts";

export interface AssemblyReplacement {
  volume: Label;
  /** The external copies that are the book now. */
  externalFileIds: number[];
  /** The assembled copies to retire. */
  assembledFileIds: number[];
}

/** Whether an external book file may be the book: sound, or suspect but verified. */
export function externalCanReplace(file: FileFacts, editionPages: number | null, verified: boolean): boolean {
  return fileSuspectReason(file, "none", editionPages) === null || verified;
}

/** Every volume of the series whose assembled copies an external copy replaces. */
export function assemblyReplacements(snapshot: SeriesSnapshot, index: CoverageIndex): AssemblyReplacement[] {
  const editionPages = editionBookPages(snapshot.files);
  const proofs = new Map(snapshot.verifications.map((v) => [v.volume, v]));
  const byVolume = new Map<Label, FileFacts[]>();
  for (const f of snapshot.files) {
    if (f.kind !== "book" || f.volume === null) continue;
    byVolume.set(f.volume, [...(byVolume.get(f.volume) ?? []), f]);
  }
  const out: AssemblyReplacement[] = [];
  for (const [volume, files] of byVolume) {
    const assembled = files.filter((f) => f.origin === "assembled");
    if (assembled.length === 0) continue;
    const proof = proofs.get(volume);
    const entry = index.map.books.get(volume);
    const external = files.filter(
      (f) =>
        f.origin !== "assembled" &&
        externalCanReplace(f, editionPages, proof !== undefined && proofStatus(proof, [f], entry) === "applies"),
    );
    if (external.length === 0) continue;
    out.push({ volume, externalFileIds: external.map((f) => f.id), assembledFileIds: assembled.map((f) => f.id) });
  }
  return out.sort((a, b) => compareLabels(a.volume, b.volume));
}
