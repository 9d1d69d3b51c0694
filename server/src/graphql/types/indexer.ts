/** GraphQL twins of /api/settings/indexer and /api/torrents: the same service, camelCase. */
import type { PendingBook, TorrentFileView } from "../../domain/torrent-assignment.ts";
import type {
  IndexerCheck,
  IndexerSettingsView,
  TorrentFilesView,
  TorrentJobRow,
} from "../../services/acquisition/book-channel.ts";
import type { MountMapping } from "../../services/acquisition/book-channel-settings.ts";
import { asId } from "../../services/input.ts";
import { builder } from "../builder.ts";

const MountRef = builder.objectRef<MountMapping>("TorrentMountMapping").implement({
  description: "The torrent client's download folder as the client sees it, and as this service sees it.",
  fields: (t) => ({ clientPath: t.exposeString("clientPath"), localPath: t.exposeString("localPath") }),
});

const ProwlarrRef = builder.objectRef<IndexerSettingsView["prowlarr"]>("ProwlarrSettings").implement({
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled"),
    url: t.exposeString("url", { nullable: true }),
    apiKey: t.exposeString("apiKey", { nullable: true, description: 'Masked ("••••") when set; never the key.' }),
    apiKeySet: t.exposeBoolean("apiKeySet"),
  }),
});

const QbittorrentRef = builder.objectRef<IndexerSettingsView["qbittorrent"]>("QbittorrentSettings").implement({
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled"),
    url: t.exposeString("url", { nullable: true }),
    username: t.exposeString("username", { nullable: true }),
    password: t.exposeString("password", {
      nullable: true,
      description: 'Masked ("••••") when set; never the password.',
    }),
    passwordSet: t.exposeBoolean("passwordSet"),
    category: t.exposeString("category"),
    tag: t.exposeString("tag", { nullable: true }),
    savePath: t.exposeString("savePath", { nullable: true }),
    mount: t.field({ type: MountRef, nullable: true, resolve: (q) => q.mount }),
    retention: t.exposeString("retention", { description: "keep_seeding | remove_after_import | remove_when_seeded" }),
  }),
});

const IndexerSettingsRef = builder.objectRef<IndexerSettingsView>("IndexerSettings").implement({
  description: "The optional indexer manager (Prowlarr) and torrent client (qBittorrent) channel for whole books.",
  fields: (t) => ({
    prowlarr: t.field({ type: ProwlarrRef, resolve: (v) => v.prowlarr }),
    qbittorrent: t.field({ type: QbittorrentRef, resolve: (v) => v.qbittorrent }),
    active: t.exposeBoolean("active", {
      description: "Both enabled and configured: the Wanted pass uses the channel.",
    }),
  }),
});

const ConnectionStatusEnum = builder.enumType("ConnectionStatus", {
  values: {
    OK: { value: "ok", description: "It answered the saved settings." },
    FAILED: { value: "failed", description: "It did not answer, or refused them: detail says why." },
    OFF: { value: "off", description: "Not enabled, or not set up: nothing was asked." },
  } as const,
});

const ProwlarrCheckRef = builder.objectRef<IndexerCheck["prowlarr"]>("ProwlarrCheck").implement({
  fields: (t) => ({
    status: t.field({ type: ConnectionStatusEnum, resolve: (v) => v.status }),
    detail: t.exposeString("detail", { nullable: true }),
    indexers: t.exposeInt("indexers", { nullable: true, description: "Prowlarr's enabled indexers." }),
  }),
});

const QbittorrentCheckRef = builder.objectRef<IndexerCheck["qbittorrent"]>("QbittorrentCheck").implement({
  fields: (t) => ({
    status: t.field({ type: ConnectionStatusEnum, resolve: (v) => v.status }),
    detail: t.exposeString("detail", { nullable: true }),
    version: t.exposeString("version", { nullable: true, description: 'The client\'s version, e.g. "v5.0.2".' }),
  }),
});

const IndexerCheckRef = builder.objectRef<IndexerCheck>("IndexerCheck").implement({
  description: "Whether Prowlarr and qBittorrent answer the saved settings.",
  fields: (t) => ({
    prowlarr: t.field({ type: ProwlarrCheckRef, resolve: (v) => v.prowlarr }),
    qbittorrent: t.field({ type: QbittorrentCheckRef, resolve: (v) => v.qbittorrent }),
  }),
});

const PendingBookRef = builder.objectRef<PendingBook>("TorrentPendingBook").implement({
  description: "A requested book waiting for an operator to assign it a file of the torrent.",
  fields: (t) => ({
    book: t.exposeString("book"),
    reason: t.exposeString("reason", {
      description: "not_found_by_name | ambiguous | other_edition | page_count",
    }),
    detail: t.exposeString("detail"),
  }),
});

const TorrentFileRef = builder.objectRef<TorrentFileView>("TorrentFile").implement({
  fields: (t) => ({
    name: t.exposeString("name", { description: "Relative to the torrent's save path, as the client lists it." }),
    size: t.float({ resolve: (f) => f.size }),
    progress: t.exposeFloat("progress"),
    namedBook: t.exposeString("namedBook", { nullable: true, description: "The one book the file's name is for." }),
    format: t.exposeString("format", { description: "archive | other_book | other" }),
    assignable: t.exposeBoolean("assignable"),
    refusal: t.exposeString("refusal", { nullable: true, description: "unsupported_format | incomplete" }),
  }),
});

const TorrentJobRef = builder.objectRef<TorrentJobRow>("TorrentJob").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    seriesId: t.exposeInt("seriesId"),
    infoHash: t.exposeString("infoHash"),
    title: t.exposeString("title"),
    indexer: t.exposeString("indexer", { nullable: true }),
    books: t.exposeStringList("books", {
      description: "The books requested from this torrent (exact decimal labels).",
    }),
    state: t.exposeString("state", {
      description:
        "added | downloading | completed | importing | imported | awaiting_assignment | assigning | failed | removed | dismissed",
    }),
    pending: t.field({
      type: [PendingBookRef],
      description: "Books waiting for an explicit assignment (state awaiting_assignment).",
      resolve: (j) => j.pending,
    }),
    contentPath: t.exposeString("contentPath", { nullable: true }),
    importedFileIds: t.intList({ resolve: (j) => j.imported }),
    retention: t.exposeString("retention", { nullable: true }),
    error: t.exposeString("error", { nullable: true }),
    createdAt: t.string({ description: "ISO 8601.", resolve: (j) => j.createdAt.toISOString() }),
    updatedAt: t.string({ description: "ISO 8601.", resolve: (j) => j.updatedAt.toISOString() }),
  }),
});

const TorrentFilesRef = builder.objectRef<TorrentFilesView>("TorrentFiles").implement({
  fields: (t) => ({
    job: t.field({ type: TorrentJobRef, resolve: (v) => v.job }),
    files: t.field({ type: [TorrentFileRef], resolve: (v) => v.files }),
  }),
});

const AssignmentInput = builder.inputType("TorrentAssignmentInput", {
  fields: (t) => ({
    file: t.string({ required: true, description: "The file's name as `torrentFiles` lists it." }),
    book: t.string({ required: true, description: "The book waiting in the job (exact decimal label)." }),
  }),
});

const MountInput = builder.inputType("TorrentMountMappingInput", {
  fields: (t) => ({ clientPath: t.string({ required: true }), localPath: t.string({ required: true }) }),
});

const ProwlarrInput = builder.inputType("ProwlarrSettingsInput", {
  fields: (t) => ({
    enabled: t.boolean(),
    url: t.string(),
    apiKey: t.string({ description: 'A value sets it, null clears it, absent or "••••" keeps it.' }),
  }),
});

const QbittorrentInput = builder.inputType("QbittorrentSettingsInput", {
  fields: (t) => ({
    enabled: t.boolean(),
    url: t.string(),
    username: t.string(),
    password: t.string({ description: 'A value sets it, null clears it, absent or "••••" keeps it.' }),
    category: t.string(),
    tag: t.string(),
    savePath: t.string(),
    mount: t.field({ type: MountInput }),
    retention: t.string({ description: "keep_seeding | remove_after_import | remove_when_seeded" }),
  }),
});

const IndexerSettingsInput = builder.inputType("IndexerSettingsInput", {
  fields: (t) => ({ prowlarr: t.field({ type: ProwlarrInput }), qbittorrent: t.field({ type: QbittorrentInput }) }),
});

builder.queryFields((t) => ({
  indexerSettings: t.field({
    type: IndexerSettingsRef,
    resolve: (_r, _a, { services }) => services.bookChannel.settings(),
  }),
  indexerCheck: t.field({
    type: IndexerCheckRef,
    description: "Asks Prowlarr (its indexer list) and qBittorrent (a login and its version) with the saved settings.",
    resolve: (_r, _a, { services }) => services.bookChannel.check(),
  }),
  torrentFiles: t.field({
    type: TorrentFilesRef,
    description: "A torrent job's files as the client lists them, with the book each is named for.",
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, { id }, { services }) => services.bookChannel.files(id),
  }),
  torrentJobs: t.field({
    type: [TorrentJobRef],
    description: "Torrent jobs of the book channel, newest first; of one series when given.",
    args: { seriesId: t.arg.int() },
    resolve: (_r, { seriesId }, { services }) =>
      services.bookChannel.jobs(seriesId == null ? undefined : asId(seriesId)),
  }),
}));

builder.mutationFields((t) => ({
  assignTorrentFiles: t.field({
    type: TorrentJobRef,
    description:
      "Imports files of a torrent job awaiting an assignment as the books waiting in it (all checked first; same import as an automatic one).",
    args: {
      id: t.arg.int({ required: true }),
      assignments: t.arg({ type: [AssignmentInput], required: true }),
    },
    resolve: (_r, { id, assignments }, { services }) => services.bookChannel.assign(id, { assignments }),
  }),
  updateIndexerSettings: t.field({
    type: IndexerSettingsRef,
    args: { input: t.arg({ type: IndexerSettingsInput, required: true }) },
    resolve: (_r, { input }, { services }) => services.bookChannel.updateSettings(input),
  }),
  retryTorrentJob: t.field({
    type: TorrentJobRef,
    description: "A failed torrent job goes back to `added`: the next poll looks at the torrent again.",
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, { id }, { services }) => services.bookChannel.retry(id),
  }),
  dismissTorrentJob: t.field({
    type: TorrentJobRef,
    description: "Stops following a failed or finished torrent job; optionally removes the torrent from the client.",
    args: { id: t.arg.int({ required: true }), removeFromClient: t.arg.boolean() },
    resolve: (_r, { id, removeFromClient }, { services }) => services.bookChannel.dismiss(id, { removeFromClient }),
  }),
}));
