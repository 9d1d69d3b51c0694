import type { AuditSource } from "../../domain/audit.ts";
import type { DuplicatePreview } from "../../services/audit/audit-duplicates.ts";
import type {
  AuditFileView,
  AuditPageView,
  Preview,
  RetiredFile,
  SourceRejectionPreview,
  SourceRejectionResult,
} from "../../services/audit/audit-service.ts";
import { builder } from "../builder.ts";
import { UnitKindEnum } from "./enums.ts";

/** The audit (GET /api/manga/{id}/audit and its reviewed operations); thumbnails stay REST-only. */
const AuditFlagEnum = builder.enumType("AuditFlag", {
  values: {
    UNREADABLE: { value: "unreadable", description: "The file is missing from disk (or a rescan could not read it)." },
    DEGRADED: { value: "degraded", description: "The download that published it was judged degraded." },
    BLACK_CARDS: { value: "black_cards", description: "Black cards above 15 % of its pages (download verdict)." },
    BLACK_LAST_PAGE: {
      value: "black_last_page",
      description: "Its last page is a black card (from the page signatures, computed in the background).",
    },
    STRIP_SLICES: {
      value: "strip_slices",
      description: "Strip slices in a series that reads in pages (download verdict).",
    },
    DUPLICATE: { value: "duplicate", description: "A chapter file inside an owned book (exact map)." },
    NUMBERING_GAP: { value: "numbering_gap", description: "A number is missing before it in its source and language." },
    FEW_PAGES: { value: "few_pages", description: "Fewer than 8 pages." },
    UNUSUAL_SIZE: {
      value: "unusual_size",
      description: "Pages below half or above twice the series' median for its kind.",
    },
    SEVERAL_SOURCES: { value: "several_sources", description: "Another source has a file for the same number." },
  } as const,
});

const AuditSourceRef = builder.objectRef<AuditSource>("AuditSource").implement({
  description: "The provider and the provider's work id (mapping) a file was downloaded from.",
  fields: (t) => ({
    provider: t.exposeString("provider"),
    sourceId: t.string({ nullable: true, resolve: (s) => s.sourceId }),
  }),
});

const AuditThumbnailsRef = builder.objectRef<{ first: string; last: string }>("AuditThumbnails").implement({
  description: "REST URLs of the first- and last-page thumbnails (made lazily, cached by file fingerprint).",
  fields: (t) => ({ first: t.exposeString("first"), last: t.exposeString("last") }),
});

const AuditFileRef = builder.objectRef<AuditFileView>("AuditFile").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    path: t.exposeString("path"),
    size: t.float({ description: "Bytes.", resolve: (f) => f.size }),
    sha256: t.exposeString("sha256"),
    pageCount: t.exposeInt("pageCount"),
    kind: t.field({ type: UnitKindEnum, resolve: (f) => f.kind }),
    number: t.string({
      nullable: true,
      description: "Volume of a book, first chapter of a chapter file.",
      resolve: (f) => f.number,
    }),
    numberEnd: t.string({ nullable: true, description: "Last chapter of a range file.", resolve: (f) => f.numberEnd }),
    part: t.int({ nullable: true, resolve: (f) => f.part }),
    language: t.exposeString("language"),
    state: t.exposeString("state", { description: "active | missing" }),
    origin: t.exposeString("origin"),
    source: t.field({ type: AuditSourceRef, nullable: true, resolve: (f) => f.source }),
    flags: t.field({ type: [AuditFlagEnum], resolve: (f) => f.flags }),
    blackShare: t.float({ nullable: true, resolve: (f) => f.verdict?.blackShare ?? null }),
    thumbnails: t.field({ type: AuditThumbnailsRef, nullable: true, resolve: (f) => f.thumbnails }),
  }),
});

const AuditPageRef = builder.objectRef<AuditPageView>("AuditPage").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    page: t.exposeInt("page"),
    pageSize: t.exposeInt("pageSize"),
    total: t.exposeInt("total", { description: "Files matching the filter, over all pages." }),
    files: t.field({ type: [AuditFileRef], resolve: (p) => p.files }),
  }),
});

const AuditFilterInput = builder.inputType("AuditFilter", {
  fields: (t) => ({
    flags: t.field({ type: [AuditFlagEnum], description: "Files with at least one of these flags." }),
    problemsOnly: t.boolean({ description: "Files with at least one flag." }),
    kind: t.field({ type: UnitKindEnum }),
    language: t.string(),
    provider: t.string(),
    sourceId: t.string(),
  }),
});

const RetiredFileRef = builder.objectRef<RetiredFile>("RetiredFile").implement({
  fields: (t) => ({
    fileId: t.exposeInt("fileId"),
    recycleEntryId: t.exposeInt("recycleEntryId"),
    from: t.exposeString("from"),
    binPath: t.exposeString("binPath"),
  }),
});

const RetirementPreviewRef = builder.objectRef<Preview>("RetirementPreview").implement({
  fields: (t) => ({
    files: t.field({ type: [AuditFileRef], resolve: (p) => p.files }),
    confirmation: t.exposeString("confirmation", {
      description: "Send back to confirm; bound to what this preview saw.",
    }),
    expiresAt: t.exposeString("expiresAt"),
  }),
});

const SourceRejectionPreviewRef = builder.objectRef<SourceRejectionPreview>("SourceRejectionPreview").implement({
  fields: (t) => ({
    provider: t.exposeString("provider"),
    sourceId: t.exposeString("sourceId"),
    language: t.exposeString("language"),
    offers: t.exposeInt("offers", { description: "Offers the rejection removes." }),
    files: t.field({
      type: [AuditFileRef],
      description: "The mapping's files, retired with it.",
      resolve: (p) => p.files,
    }),
    confirmation: t.exposeString("confirmation"),
    expiresAt: t.exposeString("expiresAt"),
  }),
});

const DuplicatePreviewRef = builder.objectRef<DuplicatePreview>("DuplicateRetirementPreview").implement({
  fields: (t) => ({
    volume: t.exposeString("volume"),
    files: t.field({
      type: [AuditFileRef],
      description: "Chapter files the exact map shows inside the owned book.",
      resolve: (p) => p.files,
    }),
    confirmation: t.exposeString("confirmation"),
    expiresAt: t.exposeString("expiresAt"),
  }),
});

const RetirementResultRef = builder.objectRef<{ retired: RetiredFile[] }>("RetirementResult").implement({
  fields: (t) => ({ retired: t.field({ type: [RetiredFileRef], resolve: (r) => r.retired }) }),
});

const SourceRejectionResultRef = builder.objectRef<SourceRejectionResult>("SourceRejectionResult").implement({
  fields: (t) => ({
    provider: t.exposeString("provider"),
    sourceId: t.exposeString("sourceId"),
    offersRemoved: t.exposeInt("offersRemoved"),
    retired: t.field({ type: [RetiredFileRef], resolve: (r) => r.retired }),
  }),
});

builder.queryField("audit", (t) =>
  t.field({
    type: AuditPageRef,
    description: "Every downloaded file of a series with its flags, 24 a page; opens no archive.",
    args: {
      seriesId: t.arg.int({ required: true }),
      page: t.arg.int({ description: "1-based (default 1)." }),
      sort: t.arg.string({
        description: 'number | path | size | pages | source | language | flags | id, "-" before it for descending.',
      }),
      filter: t.arg({ type: AuditFilterInput }),
    },
    resolve: (_r, { seriesId, page, sort, filter }, { services }) =>
      services.audit.list(seriesId, {
        page,
        sort,
        flags: filter?.flags,
        problemsOnly: filter?.problemsOnly,
        kind: filter?.kind,
        language: filter?.language,
        provider: filter?.provider,
        sourceId: filter?.sourceId,
      }),
  }),
);

builder.mutationFields((t) => ({
  previewRetirement: t.field({
    type: RetirementPreviewRef,
    args: { seriesId: t.arg.int({ required: true }), fileIds: t.arg.intList({ required: true }) },
    resolve: (_r, { seriesId, fileIds }, { services }) => services.audit.previewRetirement(seriesId, { fileIds }),
  }),
  retireFiles: t.field({
    type: RetirementResultRef,
    description: "Moves the reviewed files to the recycle bin, after re-checking them.",
    args: { seriesId: t.arg.int({ required: true }), confirmation: t.arg.string({ required: true }) },
    resolve: (_r, { seriesId, confirmation }, { services }) => services.audit.retireFiles(seriesId, { confirmation }),
  }),
  previewSourceRejection: t.field({
    type: SourceRejectionPreviewRef,
    args: {
      seriesId: t.arg.int({ required: true }),
      provider: t.arg.string({ required: true }),
      sourceId: t.arg.string({ required: true }),
      reason: t.arg.string(),
    },
    resolve: (_r, { seriesId, provider, sourceId, reason }, { services }) =>
      services.audit.previewSourceRejection(seriesId, { provider, sourceId, reason }),
  }),
  rejectSource: t.field({
    type: SourceRejectionResultRef,
    description: "Retires the mapping's files, removes the mapping and its offers, records the rejection.",
    args: { seriesId: t.arg.int({ required: true }), confirmation: t.arg.string({ required: true }) },
    resolve: (_r, { seriesId, confirmation }, { services }) => services.audit.rejectSource(seriesId, { confirmation }),
  }),
  previewDuplicateRetirement: t.field({
    type: DuplicatePreviewRef,
    args: { seriesId: t.arg.int({ required: true }), volume: t.arg.string({ required: true }) },
    resolve: (_r, { seriesId, volume }, { services }) => services.audit.previewDuplicateRetirement(seriesId, volume),
  }),
  retireDuplicates: t.field({
    type: RetirementResultRef,
    args: {
      seriesId: t.arg.int({ required: true }),
      volume: t.arg.string({ required: true }),
      confirmation: t.arg.string({ required: true }),
    },
    resolve: (_r, { seriesId, volume, confirmation }, { services }) =>
      services.audit.retireDuplicates(seriesId, volume, { confirmation }),
  }),
}));
