/** GraphQL of the blocklist: the same service as REST (rest-downloads.ts). */
import type { BlockedReleaseView } from "../../services/acquisition/blocklist-service.ts";
import { asId } from "../../services/input.ts";
import { builder } from "../builder.ts";

const BlockedKindEnum = builder.enumType("BlockedReleaseKind", {
  values: { CHAPTER: { value: "chapter" }, VOLUME: { value: "volume" } } as const,
});

const BlockedReleaseRef = builder.objectRef<BlockedReleaseView>("BlockedRelease").implement({
  description: "A release the operator blocked: the Wanted pass never chooses it again.",
  fields: (t) => ({
    id: t.exposeInt("id"),
    seriesId: t.exposeInt("seriesId"),
    seriesTitle: t.exposeString("seriesTitle"),
    sourceMappingId: t.exposeInt("sourceMappingId"),
    providerName: t.exposeString("providerName"),
    externalId: t.exposeString("externalId", { description: "The provider's id of the release." }),
    kind: t.field({ type: BlockedKindEnum, resolve: (b) => b.kind }),
    volume: t.string({ nullable: true, description: "Exact decimal label.", resolve: (b) => b.volume }),
    chapter: t.string({ nullable: true, description: "Exact decimal label.", resolve: (b) => b.chapter }),
    part: t.int({ nullable: true, resolve: (b) => b.part }),
    language: t.exposeString("language"),
    scanlator: t.string({ nullable: true, resolve: (b) => b.scanlator }),
    downloadId: t.int({
      nullable: true,
      description: "The download it was blocked from.",
      resolve: (b) => b.downloadId,
    }),
    createdAt: t.string({ description: "ISO 8601.", resolve: (b) => b.createdAt.toISOString() }),
  }),
});

builder.queryField("blocklist", (t) =>
  t.field({
    type: [BlockedReleaseRef],
    description: "Blocked releases, newest first: of one series, or of all.",
    args: { seriesId: t.arg.int() },
    resolve: (_r, { seriesId }, { services }) =>
      services.blocklist.list(seriesId === null || seriesId === undefined ? undefined : asId(seriesId)),
  }),
);

builder.mutationField("blockRelease", (t) =>
  t.field({
    type: BlockedReleaseRef,
    description:
      "Blocks the release of a failed or cancelled download (409 download_not_blockable otherwise; a live one is blocked with cancelDownload(blocklist: true)). The Wanted pass looks for another at once.",
    args: { downloadId: t.arg.int({ required: true }) },
    resolve: (_r, { downloadId }, { services }) => services.blocklist.block(asId(downloadId)),
  }),
);

builder.mutationField("unblockRelease", (t) =>
  t.field({
    type: "Boolean",
    description: "Lifts a block (404 blocked_release_not_found): the next Wanted pass may choose the release again.",
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, { id }, { services }) => {
      await services.blocklist.remove(asId(id));
      return true;
    },
  }),
);
