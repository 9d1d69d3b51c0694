/**
 * REST of translation jobs (five endpoints, docs/api.md "Translation jobs"): translation between HTTP and the
 * service, nothing else.
 */
import type { Hono } from "hono";
import { AppError } from "../errors.ts";
import type { Services } from "../services/index.ts";
import type { TranslationJobView } from "../services/translation/translation-service.ts";
import { asId } from "../services/input.ts";
import { pathId } from "./request.ts";

export function restTranslationJob(j: TranslationJobView) {
  return {
    id: j.id,
    status: j.status,
    state: j.state,
    series_id: j.seriesId,
    target: { kind: j.target.kind, number: j.target.number },
    source_language: j.sourceLanguage,
    target_language: j.targetLanguage,
    source_sha256: j.sourceSha256,
    progress: j.progress ? { pages_done: j.progress.pagesDone, pages_total: j.progress.pagesTotal } : null,
    error: j.error,
    attempt: j.attempt,
    engine: j.engine,
    origin: j.origin,
    cancel_pending: j.cancelPending,
    retryable: j.retryable,
    cancellable: j.cancellable,
    paused_reason: j.pausedReason,
    created_at: j.createdAt.toISOString(),
    updated_at: j.updatedAt.toISOString(),
  };
}

/** `filename="…"` of a Content-Disposition header (used only to spot packs by name). */
function dispositionName(header: string | undefined): string | null {
  const m = header ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header) : null;
  if (!m?.[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

export function translationRoutes(app: Hono, services: Services): void {
  app.get("/api/translations", async (c) => {
    const manga = c.req.query("manga_id");
    const jobs = await services.translations.list(
      manga === undefined || manga === "" ? undefined : asId(manga, "manga_id"),
    );
    return c.json(jobs.map(restTranslationJob));
  });
  app.post("/api/manga/:id/translations/search", async (c) => {
    const r = await services.translations.search(pathId(c));
    return c.json({
      created: r.created.map(restTranslationJob),
      skipped: r.skipped,
      queued_downloads: r.queuedDownloads,
    });
  });
  app.post("/api/manga/:id/translations/upload", async (c) => {
    const header = c.req.header("content-length");
    if (header === undefined || !/^\d{1,15}$/.test(header))
      throw new AppError("length_required", "the upload needs a Content-Length header (no chunked bodies)");
    const job = await services.translations.upload(
      pathId(c),
      {
        sourceLanguage: c.req.query("source_language"),
        volume: c.req.query("volume"),
        chapter: c.req.query("chapter"),
      },
      {
        // Read only once the upload passed its checks: a refusal before that leaves the body
        // untouched, so the server drains it and the connection stays usable (keep-alive).
        stream: () => c.req.raw.body,
        length: Number(header),
        fileName: dispositionName(c.req.header("content-disposition")),
        contentType: c.req.header("content-type") ?? null,
      },
    );
    return c.json(restTranslationJob(job), 201);
  });
  app.post("/api/translations/:job/retry", async (c) =>
    c.json(restTranslationJob(await services.translations.retry(c.req.param("job"))), 201),
  );
  app.post("/api/translations/:job/cancel", async (c) =>
    c.json(restTranslationJob(await services.translations.cancel(c.req.param("job")))),
  );
}
