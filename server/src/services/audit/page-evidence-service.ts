/**
 * Page evidence (GET /api/manga/{id}/page-evidence, …/volumes/{volume}/page-evidence/adopt): which
 * chapter files' pages each book file of a series holds, in order, and adopting what they prove.
 *
 * - Signatures come from the background worker (page-signature-worker.ts); this service only reads
 *   the stored ones and asks the worker for the missing ones. While any is missing the answer is
 *   "computing" with the progress (REST 202). Files the worker cannot read give no evidence.
 * - The evidence itself is pure domain code (domain/page-alignment.ts); this service gathers the
 *   sequences: every owned book file with a trusted volume, every chapter file (parts joined).
 * - Adopting a book's proposal is two-step like every change of the map: the preview shows the
 *   operator map entry it would save, the coverage change (the map dry run's) and the proof it would
 *   record, with a confirmation bound to the map revision, the book's content and the chapter files
 *   the evidence read; the confirm saves the entry (revision bump) and records the verification in
 *   one transaction. A proof recorded this way is an ordinary proof: it lifts the doubt and never
 *   retires a file.
 */
import { AppError } from "../../errors.ts";
import { buildCoverageIndex, previewMapChange, type MapChangePreview } from "../../domain/coverage.ts";
import { labelEquals, sortLabels, type Label } from "../../domain/labels.ts";
import { validateOperatorEntries } from "../../domain/map-trust.ts";
import {
  bookEvidence,
  chapterSequences,
  entriesWithProposal,
  evidenceNote,
  evidencePages,
  type BookEvidence,
} from "../../domain/page-alignment.ts";
import { toLabel } from "../../domain/map-labels.ts";
import { seriesForm } from "../../domain/series-form.ts";
import type { CoverageIndex, MapEntryFacts, SeriesSnapshot } from "../../domain/types.ts";
import { digestOf } from "../../domain/verification.ts";
import { fileIdentities } from "../../repositories/audit-repo.ts";
import { pageSignatureRepo, type SignatureSet } from "../../repositories/page-signature-repo.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import { createConfirmations, requireSameSnapshot, type ConfirmationInput } from "../confirmation.ts";
import type { AppContext } from "../context.ts";
import type { ExternalPriority } from "../series/external-priority.ts";
import { asLabel } from "../input.ts";
import type { PageSignatureWorker, SignatureRequest } from "./page-signature-worker.ts";
import type { VerificationService, VerifiedBook } from "./verification-service.ts";

export const ADOPT_KIND = "page_evidence.adopt";

export type PageEvidenceView =
  { status: "computing"; progress: { done: number; total: number } } | { status: "ready"; books: BookEvidence[] };

export interface AdoptionPreview {
  volume: Label;
  fileId: number;
  /** Operator map revision the preview was computed against. */
  revision: number;
  /** The entry it saves, and the whole operator map after it. */
  entry: MapEntryFacts;
  entries: MapEntryFacts[];
  /** What saving the entry changes (the map dry run's answer). */
  coverage: MapChangePreview;
  /** The proof it records. */
  proof: { digest: string; chapters: Label[]; sourceUrl: null; note: string };
  evidence: BookEvidence;
  confirmation: string;
  expiresAt: string;
}

export interface AdoptionResult {
  volume: Label;
  revision: number;
  verification: VerifiedBook | null;
}

/** What a confirmation binds: the map, the book's content and the chapter files read. */
interface AdoptionBinding {
  volume: Label;
  revision: number;
  fileId: number;
  sha256: string;
  chapters: Label[];
  files: { id: number; sha256: string }[];
}

export function pageEvidenceService(
  ctx: AppContext,
  deps: { worker: PageSignatureWorker; verification: Pick<VerificationService, "list">; priority: ExternalPriority },
) {
  const repo = pageSignatureRepo(ctx.db);
  const confirmations = createConfirmations(ctx.secrets);

  interface Gathered {
    snapshot: SeriesSnapshot;
    index: CoverageIndex;
    view: PageEvidenceView;
  }

  /** Every file the evidence reads, its stored signatures, and the worker asked for the missing. */
  async function gather(seriesId: number): Promise<Gathered> {
    const snapshot = await loadSnapshot(ctx.db, seriesId);
    if (!snapshot) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    const index = buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series), estimates: false });
    const bookIds = new Set(index.books.filter((b) => b.owned).flatMap((b) => b.fileIds));
    const books = snapshot.files.filter((f) => bookIds.has(f.id));
    const chapters = snapshot.files.filter((f) => f.kind === "chapter" && toLabel(f.chapter) !== null);
    const needed = [...books, ...chapters];
    const sets = await repo.byContent(needed.map((f) => f.sha256));
    const missing = needed.filter((f) => !sets.has(f.sha256) && !deps.worker.unavailable(f.sha256));
    if (missing.length > 0) {
      const identities = await fileIdentities(
        ctx.db,
        ctx.config.libraryRoot,
        missing.map((f) => f.id),
      );
      deps.worker.request(
        identities.map((f): SignatureRequest => ({
          sha256: f.sha256,
          path: f.path,
          size: Number(f.size),
          mtimeMs: Number(f.mtimeMs),
        })),
      );
      const contents = new Set(needed.map((f) => f.sha256));
      const waiting = new Set(missing.map((f) => f.sha256));
      return {
        snapshot,
        index,
        view: { status: "computing", progress: { done: contents.size - waiting.size, total: contents.size } },
      };
    }
    const signaturesOf = (sha256: string) => {
      const set: SignatureSet | undefined = sets.get(sha256);
      return set && set.state === "done" ? set.signatures : [];
    };
    const slotParts = new Map(snapshot.chapters.map((c) => [toLabel(c.number), c.parts]));
    const sequences = chapterSequences(
      chapters.map((f) => ({
        id: f.id,
        chapter: toLabel(f.chapter),
        chapterEnd: toLabel(f.chapterEnd),
        part: f.part,
        signatures: signaturesOf(f.sha256),
      })),
      (c) => slotParts.get(c) ?? 1,
    );
    const known = sortLabels([
      ...new Set([
        ...snapshot.chapters.filter((c) => !c.extra).flatMap((c) => toLabel(c.number) ?? []),
        ...chapters.flatMap((f) => toLabel(f.chapter) ?? []),
      ]),
    ]);
    const evidence: BookEvidence[] = [];
    for (const b of index.books)
      for (const f of books.filter((x) => b.fileIds.includes(x.id)))
        evidence.push(bookEvidence(b.number, f.id, evidencePages(signaturesOf(f.sha256)), sequences, known));
    return { snapshot, index, view: { status: "ready", books: evidence } };
  }

  /** The adoption of one book's proposal, as a preview binds it (see the module comment). */
  async function plan(seriesId: number, volume: Label) {
    const { snapshot, view } = await gather(seriesId);
    if (view.status === "computing")
      throw new AppError(
        "page_evidence_pending",
        `the page signatures are still being computed (${view.progress.done} of ${view.progress.total}): try again shortly`,
        { progress: view.progress },
      );
    const candidates = view.books.filter((b) => labelEquals(b.volume, volume));
    if (candidates.length === 0) throw new AppError("book_not_owned", `series ${seriesId} owns no book ${volume}`);
    const evidence = candidates.find((b) => b.proposal !== null);
    if (!evidence?.proposal)
      throw new AppError(
        "page_evidence_no_proposal",
        `the pages of book ${volume} do not show which chapters it holds: no consecutive chapters explain it`,
        { chapters: (candidates[0]?.chapters ?? []).map((c) => ({ number: c.number, in_order: c.inOrder })) },
      );
    const operator = snapshot.mapSources.find((m) => m.kind === "operator");
    const revision = operator?.revision ?? 0;
    const merged = entriesWithProposal(operator?.entries ?? [], evidence.proposal);
    if (!merged.ok)
      throw new AppError(
        "page_evidence_map_conflict",
        `chapters ${merged.conflicts.map((c) => `${c.chapter} (book ${c.volume})`).join(", ")} belong to another book in the operator map`,
        { conflicts: merged.conflicts },
      );
    const problems = validateOperatorEntries(merged.entries);
    if (problems.length > 0) throw new AppError("invalid_map", problems.map((p) => p.message).join("; "), { problems });
    const coverage = previewMapChange(snapshot, merged.entries, { form: seriesForm(snapshot.series) });
    // A reading of another book claiming these chapters would leave the entry ambiguous: no proof.
    const after = buildCoverageIndex(
      {
        ...snapshot,
        mapSources: [
          ...snapshot.mapSources.filter((m) => m.kind !== "operator"),
          {
            id: operator?.id ?? 0,
            kind: "operator",
            name: "operator",
            revision: revision + 1,
            entries: merged.entries,
          },
        ],
      },
      { estimates: false },
    );
    const entry = after.map.books.get(evidence.proposal.volume);
    if (!entry || entry.length !== evidence.proposal.chapters.length)
      throw new AppError(
        "page_evidence_map_conflict",
        `a reading of another book claims chapters of book ${volume}: resolve the map first`,
        { conflicts: [...after.map.conflicts].map(([chapter, volumes]) => ({ chapter, volumes })) },
      );
    const file = snapshot.files.find((f) => f.id === evidence.fileId);
    if (!file) throw new AppError("book_not_owned", `series ${seriesId} owns no book ${volume}`);
    const read = new Set(evidence.chapters.filter((c) => c.inOrder).flatMap((c) => c.fileIds));
    const binding: AdoptionBinding = {
      volume: evidence.proposal.volume,
      revision,
      fileId: file.id,
      sha256: file.sha256,
      chapters: evidence.proposal.chapters,
      files: snapshot.files
        .filter((f) => read.has(f.id))
        .map((f) => ({ id: f.id, sha256: f.sha256 }))
        .sort((a, b) => a.id - b.id),
    };
    const proof = {
      digest: digestOf(file.sha256),
      chapters: evidence.proposal.chapters,
      sourceUrl: null,
      note: evidenceNote(evidence),
    };
    return {
      binding,
      evidence,
      coverage,
      proof,
      entries: merged.entries,
      entry: { volume: evidence.proposal.volume, chapters: evidence.proposal.chapters },
    };
  }

  return {
    /** GET …/page-evidence: "computing" with progress (202), or every book's evidence. */
    async evidence(seriesId: number): Promise<PageEvidenceView> {
      return (await gather(seriesId)).view;
    },

    /** POST …/volumes/{volume}/page-evidence/adopt?dry_run=true. */
    async previewAdoption(seriesId: number, volumeText: unknown): Promise<AdoptionPreview> {
      const volume = asLabel(volumeText, "volume");
      const p = await plan(seriesId, volume);
      const { token, expiresAt } = confirmations.sign(ADOPT_KIND, seriesId, p.binding);
      return {
        volume: p.binding.volume,
        fileId: p.binding.fileId,
        revision: p.binding.revision,
        entry: p.entry,
        entries: p.entries,
        coverage: p.coverage,
        proof: p.proof,
        evidence: p.evidence,
        confirmation: token,
        expiresAt: expiresAt.toISOString(),
      };
    },

    /**
     * POST …/volumes/{volume}/page-evidence/adopt?dry_run=false with `{ confirmation }`: 409 when
     * the map (map_revision_stale), the book (digest_stale) or a chapter file the evidence read
     * (snapshot_stale) changed since the preview.
     */
    async adopt(seriesId: number, volumeText: string, input: ConfirmationInput): Promise<AdoptionResult> {
      // The series first, as every other confirm: an unknown one is 404 whatever the token says.
      if (!(await ctx.repos.series.get(seriesId)))
        throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      const volume = asLabel(volumeText, "volume");
      const signed = confirmations.verify<AdoptionBinding>(input.confirmation, ADOPT_KIND, seriesId);
      if (!labelEquals(signed.volume, volume))
        throw new AppError("confirmation_invalid", `the confirmation is for book ${signed.volume}, not ${volume}`);
      const revision = await ctx.repos.maps.operatorRevision(seriesId);
      if (revision !== signed.revision)
        throw new AppError(
          "map_revision_stale",
          `the map is at revision ${revision}, not ${signed.revision}: preview again`,
          { current_revision: revision },
        );
      const book = (await fileIdentities(ctx.db, ctx.config.libraryRoot, [signed.fileId]))[0];
      if (!book || book.state !== "active" || book.sha256 !== signed.sha256)
        throw new AppError("digest_stale", `the content of book ${volume} changed since the preview: preview again`);
      const now = await plan(seriesId, volume).catch((e: unknown) => {
        if (e instanceof AppError && e.status < 500)
          throw new AppError(
            "snapshot_stale",
            `the page evidence changed since the preview (${e.code}): preview again`,
          );
        throw e;
      });
      requireSameSnapshot(signed, now.binding, "the book's chapters or the chapter files the evidence read");
      const next = await repo.adopt(seriesId, signed.revision, now.entries, {
        volume: signed.volume,
        fileId: signed.fileId,
        digest: now.proof.digest,
        chapters: now.proof.chapters,
        note: now.proof.note,
      });
      if (next === null)
        throw new AppError("map_revision_stale", "the map changed while the evidence was adopted: preview again");
      ctx.events.publish("map_changed", seriesId);
      ctx.events.publish("series_changed", seriesId);
      await deps.priority
        .applySeries(seriesId)
        .catch((e: unknown) =>
          ctx.log(`assembly: external priority after page evidence failed: ${(e as Error).message}`),
        );
      const row = (await deps.verification.list(seriesId)).find((b) => labelEquals(b.volume, signed.volume)) ?? null;
      return { volume: signed.volume, revision: next, verification: row };
    },
  };
}

export type PageEvidenceService = ReturnType<typeof pageEvidenceService>;
