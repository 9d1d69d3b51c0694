/** REST of the indexer/torrent channel: its settings (secrets masked) and torrent jobs. Translation only. */
import type { Hono } from "hono";
import type { TorrentFileView } from "../domain/torrent-assignment.ts";
import type {
  IndexerCheck,
  IndexerSettingsView,
  TorrentFilesView,
  TorrentJobRow,
} from "../services/acquisition/book-channel.ts";
import type { Services } from "../services/index.ts";
import { asId } from "../services/input.ts";
import { assignBody, dismissBody, indexerSettingsBody } from "./bodies/indexer.ts";
import { jsonBody, pathId } from "./request.ts";

export function restIndexerSettings(v: IndexerSettingsView) {
  const q = v.qbittorrent;
  return {
    prowlarr: {
      enabled: v.prowlarr.enabled,
      url: v.prowlarr.url,
      api_key: v.prowlarr.apiKey,
      api_key_set: v.prowlarr.apiKeySet,
    },
    qbittorrent: {
      enabled: q.enabled,
      url: q.url,
      username: q.username,
      password: q.password,
      password_set: q.passwordSet,
      category: q.category,
      tag: q.tag,
      save_path: q.savePath,
      mount: q.mount && { client_path: q.mount.clientPath, local_path: q.mount.localPath },
      retention: q.retention,
    },
    active: v.active,
  };
}

export const restIndexerCheck = (v: IndexerCheck) => ({
  prowlarr: { status: v.prowlarr.status, detail: v.prowlarr.detail, indexers: v.prowlarr.indexers },
  qbittorrent: { status: v.qbittorrent.status, detail: v.qbittorrent.detail, version: v.qbittorrent.version },
});

export function restTorrentJob(j: TorrentJobRow) {
  return {
    id: j.id,
    series_id: j.seriesId,
    info_hash: j.infoHash,
    title: j.title,
    indexer: j.indexer,
    books: j.books,
    state: j.state,
    content_path: j.contentPath,
    imported_file_ids: j.imported,
    retention: j.retention,
    error: j.error,
    pending: j.pending.map((p) => ({ book: p.book, reason: p.reason, detail: p.detail })),
    created_at: j.createdAt.toISOString(),
    updated_at: j.updatedAt.toISOString(),
  };
}

export const restTorrentFile = (f: TorrentFileView) => ({
  name: f.name,
  size: f.size,
  progress: f.progress,
  named_book: f.namedBook,
  format: f.format,
  assignable: f.assignable,
  refusal: f.refusal,
});

export const restTorrentFiles = (v: TorrentFilesView) => ({
  job: restTorrentJob(v.job),
  files: v.files.map(restTorrentFile),
});

export function indexerRoutes(app: Hono, services: Services): void {
  app.get("/api/settings/indexer", async (c) => c.json(restIndexerSettings(await services.bookChannel.settings())));
  app.put("/api/settings/indexer", async (c) =>
    c.json(restIndexerSettings(await services.bookChannel.updateSettings(indexerSettingsBody(await jsonBody(c))))),
  );
  app.get("/api/settings/indexer/check", async (c) => c.json(restIndexerCheck(await services.bookChannel.check())));
  app.post("/api/torrents/:id/retry", async (c) => c.json(restTorrentJob(await services.bookChannel.retry(pathId(c)))));
  app.post("/api/torrents/:id/dismiss", async (c) =>
    c.json(restTorrentJob(await services.bookChannel.dismiss(pathId(c), dismissBody(await jsonBody(c))))),
  );
  app.get("/api/torrents/:id/files", async (c) =>
    c.json(restTorrentFiles(await services.bookChannel.files(pathId(c)))),
  );
  app.post("/api/torrents/:id/assign", async (c) =>
    c.json(restTorrentJob(await services.bookChannel.assign(pathId(c), assignBody(await jsonBody(c))))),
  );
  app.get("/api/torrents", async (c) => {
    const seriesId = c.req.query("series_id");
    return c.json(
      (await services.bookChannel.jobs(seriesId === undefined ? undefined : asId(seriesId, "series_id"))).map(
        restTorrentJob,
      ),
    );
  });
}
