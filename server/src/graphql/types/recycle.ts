import type { RecycleListEntry } from "../../library/publication.ts";
import { asId } from "../../services/input.ts";
import { builder } from "../builder.ts";

const RecycleEntryRef = builder.objectRef<RecycleListEntry>("RecycleBinEntry").implement({
  description:
    "A file a retirement moved into the recycle bin, restorable to its original path until its retention ends.",
  fields: (t) => ({
    id: t.exposeInt("id"),
    fileId: t.int({ nullable: true, resolve: (e) => e.fileId }),
    seriesId: t.int({ nullable: true, resolve: (e) => e.seriesId }),
    originalPath: t.exposeString("originalPath", { description: "Path relative to the library root the file had." }),
    binPath: t.exposeString("binPath", { description: "Path relative to the recycle bin." }),
    // Float: GraphQL's Int has 32 bits and books can be larger than 2 GiB.
    size: t.float({ description: "Bytes.", resolve: (e) => e.size }),
    sha256: t.exposeString("sha256"),
    reason: t.exposeString("reason"),
    recycledAt: t.string({ description: "ISO 8601.", resolve: (e) => e.recycledAt.toISOString() }),
    restorableUntil: t.string({
      description: "ISO 8601; afterwards the bin copy may be purged.",
      resolve: (e) => e.restorableUntil.toISOString(),
    }),
  }),
});

const RestoredFileRef = builder.objectRef<{ fileId: number | null; path: string }>("RestoredFile").implement({
  fields: (t) => ({
    fileId: t.int({
      nullable: true,
      description: "null when the file's series was removed: the next scan records the restored file.",
      resolve: (r) => r.fileId,
    }),
    path: t.exposeString("path"),
  }),
});

builder.queryField("recycleBin", (t) =>
  t.field({
    type: [RecycleEntryRef],
    description: "Files in the recycle bin, newest first.",
    resolve: (_r, _a, { services }) => services.publication.list(),
  }),
);

builder.mutationField("restoreFile", (t) =>
  t.field({
    type: RestoredFileRef,
    description:
      "Moves a recycle-bin entry back to its original path (error code restore_target_taken when that path is occupied).",
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, { id }, { services }) => services.publication.restore(asId(id)),
  }),
);

builder.mutationField("purgeRecycleEntry", (t) =>
  t.boolean({
    description:
      "Permanently deletes the bytes of one recycle-bin entry, whatever its age (error code recycle_entry_not_found unless it is in the bin).",
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, { id }, { services }) => {
      await services.publication.purge(asId(id));
      return true;
    },
  }),
);
