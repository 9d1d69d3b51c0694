/** REST of downloads: translation between HTTP and the download service, nothing else. */
import { pathId, queryFlag } from "./request.ts";
import { asId } from "../services/input.ts";
import type { BlockedReleaseView } from "../services/acquisition/blocklist-service.ts";
import type { Hono } from "hono";
import { DEFAULT_THRESHOLDS, type ConformityFigures } from "../domain/conformity.ts";
import type { DownloadView } from "../services/acquisition/download-service.ts";
import type { Services } from "../services/index.ts";

export function restFigures(f: ConformityFigures) {
  return {
    pages: f.pages,
    black_cards: f.blackCards,
    black_share: f.blackShare,
    max_black_share: DEFAULT_THRESHOLDS.maxBlackShare,
    cards_judged: f.cardsJudged,
    median_aspect: f.medianAspect,
    reads_in_pages: f.readsInPages,
    series_median_aspect: f.seriesMedianAspect,
    series_aspect_source: f.seriesAspectSource,
    strip_threshold: f.stripThreshold,
    strips_judged: f.stripsJudged,
  };
}

export function restDownload(d: DownloadView) {
  return {
    id: d.id,
    series_id: d.seriesId,
    kind: d.kind,
    volume: d.volume,
    chapter: d.chapter,
    part: d.part,
    language: d.language,
    state: d.state,
    needs_replacement: d.needsReplacement,
    verdict: d.verdict ? { reasons: d.verdict.reasons, figures: restFigures(d.verdict.figures) } : null,
    error: d.error,
    created_at: d.createdAt.toISOString(),
    attempts: d.attempts,
    pages_done: d.pagesDone,
    pages_total: d.pagesTotal,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    cancel_requested: d.cancelRequested,
    cancellable: d.cancellable,
    blocked: d.blocked,
    blockable: d.blockable,
    provider_name: d.providerName,
    external_id: d.externalId,
    scanlator: d.scanlator,
    file_id: d.fileId,
    replaces_file_id: d.replacesFileId,
  };
}

export function restBlockedRelease(b: BlockedReleaseView) {
  return {
    id: b.id,
    series_id: b.seriesId,
    series_title: b.seriesTitle,
    source_mapping_id: b.sourceMappingId,
    provider_name: b.providerName,
    external_id: b.externalId,
    kind: b.kind,
    volume: b.volume,
    chapter: b.chapter,
    part: b.part,
    language: b.language,
    scanlator: b.scanlator,
    download_id: b.downloadId,
    created_at: b.createdAt.toISOString(),
  };
}

export function downloadRoutes(app: Hono, services: Services): void {
  app.get("/api/manga/:id/downloads", async (c) =>
    c.json((await services.downloads.list(pathId(c))).map(restDownload)),
  );
  // The queue across series: ?state=queued&state=fetching (or state=queued,fetching).
  app.get("/api/downloads", async (c) => {
    const states = (c.req.queries("state") ?? []).flatMap((s) => s.split(",")).filter((s) => s !== "");
    return c.json((await services.downloadPipeline.list(states as DownloadView["state"][])).map(restDownload));
  });
  // ?blocklist=true also blocks the release (the *arr apps' "remove and blocklist").
  app.post("/api/downloads/:id/cancel", async (c) => {
    const id = pathId(c);
    return c.json(restDownload(await services.blocklist.cancel(id, queryFlag(c, "blocklist"))));
  });
  app.post("/api/downloads/:id/block", async (c) =>
    c.json(restBlockedRelease(await services.blocklist.block(pathId(c))), 201),
  );
  app.get("/api/blocklist", async (c) => {
    const seriesId = c.req.query("manga_id");
    const list = await services.blocklist.list(seriesId === undefined ? undefined : asId(seriesId, "manga_id"));
    return c.json(list.map(restBlockedRelease));
  });
  app.delete("/api/blocklist/:id", async (c) => {
    await services.blocklist.remove(pathId(c));
    return c.body(null, 204);
  });
}
