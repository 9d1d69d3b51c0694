/** REST of downloads: translation between HTTP and the download service, nothing else. */
import { pathId } from "./request.ts";
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
    provider_name: d.providerName,
    external_id: d.externalId,
    scanlator: d.scanlator,
    file_id: d.fileId,
    replaces_file_id: d.replacesFileId,
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
  app.post("/api/downloads/:id/cancel", async (c) =>
    c.json(restDownload(await services.downloadPipeline.cancel(pathId(c)))),
  );
}
