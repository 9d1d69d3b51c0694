import { readerUserOf, type ContinueEntry, type FileProgress } from "../../services/reading/reading-service.ts";
import { fileTitle } from "../../services/reading/reader-apps.ts";
import { builder } from "../builder.ts";
import { UnitKindEnum } from "./enums.ts";

const FileProgressRef = builder.objectRef<FileProgress>("FileProgress").implement({
  description:
    "A reader's place in one library file (REST GET/PUT /api/files/{id}/progress). It follows the content when the file is assembled into a book, retired or replaced.",
  fields: (t) => ({
    fileId: t.exposeInt("fileId"),
    page: t.exposeInt("page", { description: "1-based: the page to open next." }),
    completed: t.exposeBoolean("completed", { description: "Read to the end." }),
    pageCount: t.exposeInt("pageCount"),
    updatedAt: t.string({
      nullable: true,
      description: "ISO 8601; null when the file was never opened.",
      resolve: (p) => p.updatedAt?.toISOString() ?? null,
    }),
    device: t.string({
      nullable: true,
      description: "What wrote it last: web, opds, opds2, koreader, komga or followed.",
      resolve: (p) => p.device,
    }),
  }),
});

const ContinueRef = builder.objectRef<ContinueEntry>("ContinueReadingEntry").implement({
  description: "A file to continue: opened and not finished, or the next one after a finished file.",
  fields: (t) => ({
    fileId: t.int({ resolve: (e) => e.file.id }),
    seriesId: t.int({ resolve: (e) => e.file.seriesId }),
    seriesTitle: t.exposeString("seriesTitle"),
    kind: t.field({ type: UnitKindEnum, resolve: (e) => e.file.kind }),
    number: t.string({ nullable: true, resolve: (e) => (e.file.kind === "book" ? e.file.volume : e.file.chapter) }),
    title: t.string({ resolve: (e) => fileTitle(e.file) }),
    progress: t.field({ type: FileProgressRef, resolve: (e) => e.progress }),
  }),
});

builder.queryField("fileProgress", (t) =>
  t.field({
    type: FileProgressRef,
    description: "Error codes: file_not_found.",
    args: { fileId: t.arg.int({ required: true }) },
    resolve: (_r, { fileId }, { services, user }) => services.reading.get(readerUserOf(user), fileId),
  }),
);

builder.queryField("continueReading", (t) =>
  t.field({
    type: [ContinueRef],
    description: "Newest first, one entry per series; seriesId narrows to one series.",
    args: { seriesId: t.arg.int(), limit: t.arg.int() },
    resolve: (_r, { seriesId, limit }, { services, user }) =>
      services.reading.continueReading(readerUserOf(user), {
        seriesId: seriesId ?? undefined,
        limit: limit ?? undefined,
      }),
  }),
);

builder.mutationField("setFileProgress", (t) =>
  t.field({
    type: FileProgressRef,
    description:
      "page is 1-based (the page to open next) and required unless completed is true. Error codes: file_not_found, invalid_field.",
    args: { fileId: t.arg.int({ required: true }), page: t.arg.int(), completed: t.arg.boolean() },
    resolve: (_r, { fileId, page, completed }, { services, user }) =>
      services.reading.set(readerUserOf(user), fileId, { page, completed }, "web"),
  }),
);

builder.mutationField("clearFileProgress", (t) =>
  t.field({
    type: FileProgressRef,
    description: "Forgets the place (mark as unread). Error codes: file_not_found.",
    args: { fileId: t.arg.int({ required: true }) },
    resolve: (_r, { fileId }, { services, user }) => services.reading.clear(readerUserOf(user), fileId),
  }),
);
