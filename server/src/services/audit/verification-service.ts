/**
 * Verified books (docs/rules.md, "Suspect and verified books"; docs/api.md, "Verified books"): the listing of owned
 * books with their digest, map chapters and why they are suspect; recording and withdrawing a
 * proof. Whether a proof applies is never stored: the rule core decides it from the snapshot on
 * every read (domain/verification.ts), so a content or map change withdraws it by itself.
 */
import { AppError } from "../../errors.ts";
import { buildCoverageIndex } from "../../domain/coverage.ts";
import type { Label } from "../../domain/labels.ts";
import { seriesForm } from "../../domain/series-form.ts";
import type { BookState, FileFacts, SeriesSnapshot, SuspectReason, VerificationFacts } from "../../domain/types.ts";
import { digestOf, proofStatus, sameChapters, type ProofStatus } from "../../domain/verification.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import type { AppContext } from "../context.ts";
import { asLabel, checkString } from "../input.ts";

export interface StoredProof extends VerificationFacts {
  /** Whether it still applies, and which half went stale when not. */
  status: ProofStatus;
}

export interface VerifiedBook {
  volume: Label;
  fileId: number;
  /** "sha256:<hex>" of the file's current content (what a PUT must send). */
  digest: string;
  /** The chapters the operational map lists for the volume; empty when it lists none. */
  chapters: Label[];
  suspectReason: SuspectReason | null;
  verified: boolean;
  proof: StoredProof | null;
}

export interface ProofInput {
  digest: string;
  chapters: Label[];
  sourceUrl: string | null;
  note: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const MAX_CHAPTERS = 5000;

/** What recording a proof takes (REST's PUT body and GraphQL's VerificationInput map to it). */
export interface VerificationInput {
  /** "sha256:<64 hex digits>" of the copy checked. */
  digest: string;
  /** Exact chapter labels the book holds. */
  chapters: readonly string[];
  sourceUrl?: string | null;
  /** How the book was checked. */
  note: string;
}

/** The proof's rules (400 on a field that breaks one). */
export function checkProof(input: VerificationInput): ProofInput {
  if (!DIGEST.test(input.digest.toLowerCase())) {
    throw new AppError("invalid_field", 'digest must be "sha256:<64 hex digits>"', { field: "digest" });
  }
  if (input.chapters.length === 0 || input.chapters.length > MAX_CHAPTERS) {
    throw new AppError("invalid_field", "chapters must be a non-empty array of exact chapter labels", {
      field: "chapters",
    });
  }
  const chapters = input.chapters.map((c, i) => asLabel(c, `chapters[${i}]`));
  const sourceUrl = checkString(input.sourceUrl ?? undefined, "source_url", 2000);
  if (sourceUrl !== undefined && !/^https?:\/\/\S+$/i.test(sourceUrl)) {
    throw new AppError("invalid_field", "source_url must be an http(s) URL", { field: "source_url" });
  }
  const note = checkString(input.note, "note", 4000, { multiline: true });
  if (note === undefined || note.trim() === "")
    throw new AppError("invalid_field", "note must say how the book was checked", { field: "note" });
  return { digest: input.digest.toLowerCase(), chapters, sourceUrl: sourceUrl ?? null, note };
}

/** The file a row shows: the one the proof names by content, else a suspect copy, else the first. */
function shownFile(book: BookState, files: FileFacts[], proof: VerificationFacts | undefined): FileFacts | undefined {
  const mine = files.filter((f) => book.fileIds.includes(f.id));
  return (proof && mine.find((f) => digestOf(f.sha256) === digestOf(proof.digest))) ?? mine[0];
}

export function verificationService(ctx: AppContext) {
  async function load(seriesId: number) {
    const snapshot = await loadSnapshot(ctx.db, seriesId);
    if (!snapshot) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    const index = buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series), estimates: false });
    return { snapshot, index };
  }

  function rows(snapshot: SeriesSnapshot, books: BookState[]): VerifiedBook[] {
    const proofs = new Map(snapshot.verifications.map((v) => [v.volume, v]));
    const out: VerifiedBook[] = [];
    for (const book of books) {
      if (!book.owned) continue;
      const proof = proofs.get(book.number);
      const file = shownFile(book, snapshot.files, proof);
      if (!file) continue;
      const volumeFiles = snapshot.files.filter((f) => book.fileIds.includes(f.id));
      out.push({
        volume: book.number,
        fileId: file.id,
        digest: digestOf(file.sha256),
        chapters: book.chapters ?? [],
        suspectReason: book.suspect,
        verified: book.verified,
        proof: proof ? { ...proof, status: proofStatus(proof, volumeFiles, book.chapters ?? undefined) } : null,
      });
    }
    return out;
  }

  return {
    /** GET /api/manga/{id}/verified-books: every owned book, in reading order. */
    async list(seriesId: number): Promise<VerifiedBook[]> {
      const { snapshot, index } = await load(seriesId);
      return rows(snapshot, index.books);
    },

    /**
     * PUT /api/manga/{id}/volumes/{volume}/verification. Refused unless the book is owned (404),
     * its map entry is registered (422), the digest is a copy's current one (409) and the chapters
     * equal the entry exactly (422).
     */
    async verify(seriesId: number, volumeText: string, proof: VerificationInput): Promise<VerifiedBook> {
      const volume = asLabel(volumeText, "volume");
      const input = checkProof(proof);
      const { snapshot, index } = await load(seriesId);
      const book = index.books.find((b) => b.number === volume);
      if (!book?.owned) throw new AppError("book_not_owned", `series ${seriesId} owns no book ${volume}`);
      const entry = index.map.books.get(volume);
      if (entry === undefined) {
        throw new AppError(
          "map_entry_not_registered",
          `book ${volume} has no registered map entry: save it in the operator map or submit a reading first`,
        );
      }
      const file = snapshot.files.find((f) => book.fileIds.includes(f.id) && digestOf(f.sha256) === input.digest);
      if (!file) {
        const current = snapshot.files.filter((f) => book.fileIds.includes(f.id)).map((f) => digestOf(f.sha256));
        throw new AppError("digest_stale", `the digest is not the current content of book ${volume}`, {
          current_digests: current,
        });
      }
      if (!sameChapters(input.chapters, entry)) {
        throw new AppError(
          "proof_chapters_mismatch",
          `the chapters differ from the map's chapters for book ${volume}`,
          { map_chapters: entry },
        );
      }
      await ctx.repos.verifications.put(seriesId, {
        volume,
        fileId: file.id,
        digest: input.digest,
        chapters: entry,
        sourceUrl: input.sourceUrl,
        note: input.note,
      });
      ctx.events.publish("series_changed", seriesId);
      const after = await load(seriesId);
      const row = rows(after.snapshot, after.index.books).find((r) => r.volume === volume);
      if (!row) throw new AppError("book_not_owned", `series ${seriesId} no longer owns book ${volume}`);
      return row;
    },

    /** DELETE /api/manga/{id}/volumes/{volume}/verification: withdraws the proof (404 when none). */
    async withdraw(seriesId: number, volumeText: unknown): Promise<void> {
      const volume = asLabel(volumeText, "volume");
      if (!(await ctx.repos.series.exists(seriesId))) {
        throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      }
      if (!(await ctx.repos.verifications.remove(seriesId, volume))) {
        throw new AppError("verification_not_found", `no proof is recorded for book ${volume}`);
      }
      ctx.events.publish("series_changed", seriesId);
    },
  };
}

export type VerificationService = ReturnType<typeof verificationService>;
