import type { BookEvidence, ChapterEvidence } from "../../domain/page-alignment.ts";
import { asId } from "../../services/input.ts";
import type { AdoptionPreview, AdoptionResult, PageEvidenceView } from "../../services/audit/page-evidence-service.ts";
import { builder } from "../builder.ts";
import { MapChangePreviewRef, MapEntryRef } from "./map.ts";
import { VerifiedBookRef } from "./verification.ts";

/** Page evidence (REST GET …/page-evidence, POST …/volumes/{volume}/page-evidence/adopt). */
const ChapterEvidenceRef = builder.objectRef<ChapterEvidence>("ChapterEvidence").implement({
  description: "How much of one chapter's pages a book holds.",
  fields: (t) => ({
    number: t.exposeString("number"),
    fileIds: t.exposeIntList("fileIds", { description: "The chapter files whose pages were compared." }),
    pages: t.exposeInt("pages", { description: "Evidence pages of the chapter (blank pages left out)." }),
    matched: t.exposeInt("matched", { description: "Chapter pages matched in one run in order." }),
    matchedAnyOrder: t.exposeInt("matchedAnyOrder", {
      description: "Chapter pages with a match anywhere in the book.",
    }),
    bookPages: t.intList({
      nullable: true,
      description: "First and last book page of the run (1-based); null when nothing matched.",
      resolve: (c) => c.bookPages,
    }),
    inOrder: t.exposeBoolean("inOrder", {
      description: "Found: at least 80 % of its pages (and 3) match as one contiguous run in order.",
    }),
  }),
});

const ProposalRef = builder.objectRef<{ volume: string; chapters: string[] }>("PageEvidenceProposal").implement({
  fields: (t) => ({ volume: t.exposeString("volume"), chapters: t.exposeStringList("chapters") }),
});

const BookEvidenceRef = builder.objectRef<BookEvidence>("BookEvidence").implement({
  description: "The chapters one book file holds, shown by its pages.",
  fields: (t) => ({
    volume: t.exposeString("volume"),
    fileId: t.exposeInt("fileId"),
    pages: t.exposeInt("pages", { description: "Evidence pages of the book (blank pages left out)." }),
    chapters: t.field({ type: [ChapterEvidenceRef], resolve: (b) => b.chapters }),
    proposal: t.field({
      type: ProposalRef,
      nullable: true,
      description: "The map entry the pages support: consecutive chapters explaining all but 10 % of the book.",
      resolve: (b) => b.proposal,
    }),
  }),
});

const ProgressRef = builder.objectRef<{ done: number; total: number }>("PageEvidenceProgress").implement({
  fields: (t) => ({ done: t.exposeInt("done"), total: t.exposeInt("total") }),
});

const PageEvidenceRef = builder.objectRef<PageEvidenceView>("PageEvidence").implement({
  description: "READY with every book's evidence, or COMPUTING with the progress of the page signatures.",
  fields: (t) => ({
    status: t.string({ description: "ready | computing", resolve: (v) => v.status }),
    progress: t.field({
      type: ProgressRef,
      nullable: true,
      resolve: (v) => (v.status === "computing" ? v.progress : null),
    }),
    books: t.field({ type: [BookEvidenceRef], resolve: (v) => (v.status === "ready" ? v.books : []) }),
  }),
});

const ProofPreviewRef = builder.objectRef<AdoptionPreview["proof"]>("PageEvidenceProof").implement({
  fields: (t) => ({
    digest: t.exposeString("digest"),
    chapters: t.exposeStringList("chapters"),
    sourceUrl: t.string({ nullable: true, resolve: (p) => p.sourceUrl }),
    note: t.exposeString("note"),
  }),
});

const AdoptionPreviewRef = builder.objectRef<AdoptionPreview>("PageEvidenceAdoptionPreview").implement({
  description: "The operator map entry and the proof adopting a book's page evidence would record.",
  fields: (t) => ({
    volume: t.exposeString("volume"),
    fileId: t.exposeInt("fileId"),
    revision: t.exposeInt("revision"),
    entry: t.field({ type: MapEntryRef, resolve: (p) => p.entry }),
    entries: t.field({ type: [MapEntryRef], resolve: (p) => p.entries }),
    coverage: t.field({ type: MapChangePreviewRef, resolve: (p) => p.coverage }),
    proof: t.field({ type: ProofPreviewRef, resolve: (p) => p.proof }),
    evidence: t.field({ type: BookEvidenceRef, resolve: (p) => p.evidence }),
    confirmation: t.exposeString("confirmation"),
    expiresAt: t.exposeString("expiresAt"),
  }),
});

const AdoptionResultRef = builder.objectRef<AdoptionResult>("PageEvidenceAdoption").implement({
  fields: (t) => ({
    volume: t.exposeString("volume"),
    revision: t.exposeInt("revision", { description: "The operator map's new revision." }),
    verification: t.field({ type: VerifiedBookRef, nullable: true, resolve: (r) => r.verification }),
  }),
});

builder.queryField("pageEvidence", (t) =>
  t.field({
    type: PageEvidenceRef,
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.pageEvidence.evidence(asId(seriesId)),
  }),
);

builder.mutationFields((t) => ({
  previewPageEvidenceAdoption: t.field({
    type: AdoptionPreviewRef,
    description:
      "Preview of adopting a book's page evidence (page_evidence_pending, page_evidence_no_proposal, page_evidence_map_conflict).",
    args: { seriesId: t.arg.int({ required: true }), volume: t.arg.string({ required: true }) },
    resolve: (_r, { seriesId, volume }, { services }) => services.pageEvidence.previewAdoption(asId(seriesId), volume),
  }),
  adoptPageEvidence: t.field({
    type: AdoptionResultRef,
    description:
      "Saves the map entry and records the proof the preview showed (map_revision_stale, digest_stale, snapshot_stale).",
    args: {
      seriesId: t.arg.int({ required: true }),
      volume: t.arg.string({ required: true }),
      confirmation: t.arg.string({ required: true }),
    },
    resolve: (_r, { seriesId, volume, confirmation }, { services }) =>
      services.pageEvidence.adopt(asId(seriesId), volume, { confirmation }),
  }),
}));
