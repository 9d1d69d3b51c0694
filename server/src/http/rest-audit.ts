/**
 * REST routes of the file audit (docs/api.md, "File audit"):
 * translation between HTTP and the audit service, nothing else. Registered by rest.ts after its
 * authentication middleware, so every route needs the API key or the session cookie.
 */
import type { Hono } from "hono";
import { isAppError } from "../errors.ts";
import type {
  AuditFileView,
  AuditPageView,
  RetiredFile,
  SourceRejectionPreview,
  SourceRejectionResult,
} from "../services/audit/audit-service.ts";
import type { DuplicatePreview } from "../services/audit/audit-duplicates.ts";
import { asId } from "../services/input.ts";
import type { Services } from "../services/index.ts";
import { problemResponse } from "./problem.ts";
import { jsonBody, pathId } from "./request.ts";
import { retirementBody, sourceRejectionBody } from "./bodies/audit.ts";
import { confirmationBody } from "./bodies/common.ts";

export function restAuditFile(f: AuditFileView) {
  return {
    id: f.id,
    path: f.path,
    size: f.size,
    sha256: f.sha256,
    page_count: f.pageCount,
    kind: f.kind,
    number: f.number,
    number_end: f.numberEnd,
    part: f.part,
    language: f.language,
    state: f.state,
    origin: f.origin,
    source: f.source ? { provider: f.source.provider, source_id: f.source.sourceId } : null,
    flags: f.flags,
    black_share: f.verdict?.blackShare ?? null,
    thumbnails: f.thumbnails,
  };
}

const restAuditPage = (p: AuditPageView) => ({
  series_id: p.seriesId,
  page: p.page,
  page_size: p.pageSize,
  total: p.total,
  files: p.files.map(restAuditFile),
});
const restRetired = (r: RetiredFile) => ({
  file_id: r.fileId,
  recycle_entry_id: r.recycleEntryId,
  from: r.from,
  bin_path: r.binPath,
});
const restPreview = (p: { files: AuditFileView[]; confirmation: string; expiresAt: string }) => ({
  files: p.files.map(restAuditFile),
  confirmation: p.confirmation,
  expires_at: p.expiresAt,
});
const restRejectionPreview = (p: SourceRejectionPreview) => ({
  provider: p.provider,
  source_id: p.sourceId,
  language: p.language,
  offers: p.offers,
  ...restPreview(p),
});
const restRejection = (r: SourceRejectionResult) => ({
  provider: r.provider,
  source_id: r.sourceId,
  offers_removed: r.offersRemoved,
  retired: r.retired.map(restRetired),
});
const restDuplicatePreview = (p: DuplicatePreview) => ({ volume: p.volume, ...restPreview(p) });

export function auditRoutes(app: Hono, services: Services): void {
  const audit = services.audit;

  app.get("/api/manga/:id/audit", async (c) => {
    const q = (name: string) => c.req.query(name);
    const flags = c.req.queries("flags");
    const page = await audit.list(pathId(c), {
      page: q("page"),
      sort: q("sort"),
      // Repeated (?flags=a&flags=b) or comma-separated (?flags=a,b).
      flags: flags === undefined ? undefined : flags.join(","),
      problemsOnly: q("problems"),
      kind: q("kind"),
      language: q("language"),
      provider: q("provider"),
      sourceId: q("source_id"),
    });
    return c.json(restAuditPage(page));
  });

  app.post("/api/manga/:id/audit/retire/preview", async (c) =>
    c.json(restPreview(await audit.previewRetirement(pathId(c), retirementBody(await jsonBody(c))))),
  );
  app.post("/api/manga/:id/audit/retire", async (c) => {
    const r = await audit.retireFiles(pathId(c), confirmationBody(await jsonBody(c)));
    return c.json({ retired: r.retired.map(restRetired) });
  });

  app.post("/api/manga/:id/audit/reject-source/preview", async (c) =>
    c.json(restRejectionPreview(await audit.previewSourceRejection(pathId(c), sourceRejectionBody(await jsonBody(c))))),
  );
  app.post("/api/manga/:id/audit/reject-source", async (c) =>
    c.json(restRejection(await audit.rejectSource(pathId(c), confirmationBody(await jsonBody(c))))),
  );

  app.post("/api/manga/:id/volumes/:volume/duplicates/preview", async (c) =>
    c.json(restDuplicatePreview(await audit.previewDuplicateRetirement(pathId(c), c.req.param("volume")))),
  );
  app.post("/api/manga/:id/volumes/:volume/duplicates/retire", async (c) => {
    const r = await audit.retireDuplicates(pathId(c), c.req.param("volume"), confirmationBody(await jsonBody(c)));
    return c.json({ retired: r.retired.map(restRetired) });
  });

  app.get("/api/files/:fileId/thumbnail", async (c) => {
    try {
      const t = await audit.thumbnail(
        asId(c.req.param("fileId"), "file id"),
        c.req.query("page"),
        c.req.header("if-none-match"),
      );
      // Revalidated every time (the URL stays when the file changes); the ETag is the file fingerprint.
      if (t.notModified) return c.body(null, 304, { etag: t.etag, "cache-control": "private, no-cache" });
      const headers: Record<string, string> = {
        "content-type": t.contentType,
        "cache-control": t.etag ? "private, no-cache" : "no-store",
      };
      if (t.etag) headers.etag = t.etag;
      return c.body(new Uint8Array(t.data), 200, headers);
    } catch (e) {
      if (!isAppError(e) || e.code !== "thumbnails_busy") throw e;
      const res = problemResponse(e);
      res.headers.set("retry-after", "1");
      return res;
    }
  });
}
