import type { FilePage, FilePages } from "../../services/series/file-pages-service.ts";
import { builder } from "../builder.ts";
import { UnitKindEnum } from "./enums.ts";

const FilePageRef = builder.objectRef<FilePage>("FilePage").implement({
  fields: (t) => ({
    index: t.exposeInt("index", { description: "1-based, in reading order." }),
    name: t.exposeString("name", { description: "Entry name in the archive." }),
    width: t.int({
      nullable: true,
      description: "From the image header; null when it could not be read cheaply.",
      resolve: (p) => p.width,
    }),
    height: t.int({ nullable: true, resolve: (p) => p.height }),
    url: t.exposeString("url", {
      description: "GET /api/files/{id}/pages/{index}: the image bytes (cookie auth works for an <img>).",
    }),
  }),
});

const FilePagesRef = builder.objectRef<FilePages>("FilePages").implement({
  description: "The pages of an active library file, read from the archive without extracting it.",
  fields: (t) => ({
    fileId: t.exposeInt("fileId"),
    seriesId: t.exposeInt("seriesId"),
    kind: t.field({ type: UnitKindEnum, resolve: (p) => p.kind }),
    number: t.string({
      nullable: true,
      description: "The book's volume or the chapter file's first chapter.",
      resolve: (p) => p.number,
    }),
    pageCount: t.exposeInt("pageCount"),
    pages: t.field({ type: [FilePageRef], resolve: (p) => p.pages }),
  }),
});

builder.queryField("filePages", (t) =>
  t.field({
    type: FilePagesRef,
    description:
      "Error codes: file_not_found (unknown, missing or recycled file), the archive reader's archive_*/image_* codes.",
    args: { fileId: t.arg.int({ required: true }) },
    resolve: (_r, { fileId }, { services }) => services.filePages.pages(fileId),
  }),
);
