import type { AssemblyProgressEvent } from "../../events.ts";
import type {
  AssemblyPreview,
  AssemblyResult,
  BookOutcome,
  SeriesAssemblyPreview,
  SeriesAssemblyResult,
} from "../../services/assembly/assembly-service.ts";
import { builder } from "../builder.ts";

/** Book assembly: the same service as POST …/volumes/{volume}/assemble and …/assemble (dry runs are the preview mutations). */
const AssemblyChapterRef = builder.objectRef<AssemblyPreview["chapters"][number]>("AssemblyChapter").implement({
  fields: (t) => ({
    number: t.exposeString("number"),
    fileIds: t.exposeIntList("fileIds", {
      description: "Chapter files in reading order (parts of one source, or one whole file).",
    }),
  }),
});

const AssemblySourceFileRef = builder.objectRef<AssemblyPreview["files"][number]>("AssemblySourceFile").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    path: t.exposeString("path"),
    sha256: t.exposeString("sha256"),
    size: t.float({ description: "Bytes.", resolve: (f) => f.size }),
  }),
});

const AssemblyPreviewRef = builder.objectRef<AssemblyPreview>("AssemblyPreview").implement({
  fields: (t) => ({
    volume: t.exposeString("volume"),
    fileName: t.exposeString("fileName", { description: "<Series> - v<NNN> [<lang>].cbz" }),
    path: t.exposeString("path"),
    chapters: t.field({ type: [AssemblyChapterRef], resolve: (p) => p.chapters }),
    files: t.field({
      type: [AssemblySourceFileRef],
      description: "The chapter files the book is made of and then retires.",
      resolve: (p) => p.files,
    }),
    confirmation: t.exposeString("confirmation", {
      description: "Bound to the book's boundaries and these files' hashes.",
    }),
    expiresAt: t.exposeString("expiresAt"),
  }),
});

const AssemblyRetiredRef = builder.objectRef<AssemblyResult["retired"][number]>("AssemblyRetiredFile").implement({
  fields: (t) => ({
    fileId: t.exposeInt("fileId"),
    recycleEntryId: t.exposeInt("recycleEntryId"),
    from: t.exposeString("from"),
    binPath: t.exposeString("binPath"),
  }),
});

const AssemblyResultRef = builder.objectRef<AssemblyResult>("AssemblyResult").implement({
  fields: (t) => ({
    volume: t.exposeString("volume"),
    fileId: t.exposeInt("fileId"),
    path: t.exposeString("path"),
    sha256: t.exposeString("sha256"),
    pageCount: t.exposeInt("pageCount"),
    retired: t.field({
      type: [AssemblyRetiredRef],
      description: "Chapter files moved to the recycle bin.",
      resolve: (r) => r.retired,
    }),
  }),
});

const BookOutcomeRef = builder.objectRef<BookOutcome>("AssemblyBookOutcome").implement({
  fields: (t) => ({
    volume: t.exposeString("volume"),
    status: t.exposeString("status", { description: "ready | assembled | refused" }),
    code: t.string({ nullable: true, description: "Why it was refused (an error code).", resolve: (b) => b.code }),
    detail: t.string({ nullable: true, resolve: (b) => b.detail }),
    result: t.field({ type: AssemblyResultRef, nullable: true, resolve: (b) => b.result }),
  }),
});

const SeriesAssemblyPreviewRef = builder.objectRef<SeriesAssemblyPreview>("SeriesAssemblyPreview").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    books: t.field({
      type: [BookOutcomeRef],
      description: "Every book not owned: ready or refused.",
      resolve: (p) => p.books,
    }),
    confirmation: t.string({
      nullable: true,
      description: "Binds the ready books; null when none is.",
      resolve: (p) => p.confirmation,
    }),
    expiresAt: t.string({ nullable: true, resolve: (p) => p.expiresAt }),
  }),
});

const SeriesAssemblyResultRef = builder.objectRef<SeriesAssemblyResult>("SeriesAssemblyResult").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    books: t.field({ type: [BookOutcomeRef], resolve: (r) => r.books }),
    remaining: t.exposeStringList("remaining", {
      description: "Books still not owned: preview again for a fresh look.",
    }),
  }),
});

const AssemblyProgressRef = builder.objectRef<AssemblyProgressEvent>("AssemblyProgress").implement({
  description: "A step of a running book assembly.",
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    volume: t.exposeString("volume"),
    step: t.exposeString("step", { description: "hashing | writing | publishing | done | failed" }),
    done: t.exposeInt("done"),
    total: t.exposeInt("total"),
  }),
});

builder.mutationFields((t) => ({
  previewBookAssembly: t.field({
    type: AssemblyPreviewRef,
    description: "Dry run of assembling one book (changes nothing).",
    args: { seriesId: t.arg.int({ required: true }), volume: t.arg.string({ required: true }) },
    resolve: (_r, { seriesId, volume }, { services }) => services.assembly.preview(seriesId, volume),
  }),
  assembleBook: t.field({
    type: AssemblyResultRef,
    args: {
      seriesId: t.arg.int({ required: true }),
      volume: t.arg.string({ required: true }),
      confirmation: t.arg.string({ required: true }),
    },
    resolve: (_r, { seriesId, volume, confirmation }, { services }) =>
      services.assembly.assemble(seriesId, volume, confirmation),
  }),
  previewSeriesAssembly: t.field({
    type: SeriesAssemblyPreviewRef,
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.assembly.previewSeries(seriesId),
  }),
  assembleSeries: t.field({
    type: SeriesAssemblyResultRef,
    args: { seriesId: t.arg.int({ required: true }), confirmation: t.arg.string({ required: true }) },
    resolve: (_r, { seriesId, confirmation }, { services }) => services.assembly.assembleSeries(seriesId, confirmation),
  }),
}));

builder.subscriptionField("assemblyProgress", (t) =>
  t.field({
    type: AssemblyProgressRef,
    description: "Progress of the book assemblies of one series.",
    args: { seriesId: t.arg.int({ required: true }) },
    subscribe: (_root, { seriesId }, { events }) =>
      events.subscribeAssembly((e: AssemblyProgressEvent) => e.seriesId === seriesId),
    resolve: (e) => e,
  }),
);
