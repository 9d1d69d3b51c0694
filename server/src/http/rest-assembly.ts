/**
 * REST routes of book assembly (docs/api.md, "Book assembly"): `?dry_run=true` previews
 * and returns a confirmation; `?dry_run=false` (or none) confirms with `{ "confirmation": "…" }`.
 * Translation between HTTP and the assembly service only.
 */
import type { Context, Hono } from "hono";
import type { AssemblyPreview, AssemblyResult, BookOutcome } from "../services/assembly/assembly-service.ts";
import { asObject } from "../services/input.ts";
import type { Services } from "../services/index.ts";
import { dryRun, jsonBody, pathId } from "./request.ts";

export const restAssemblyPreview = (p: AssemblyPreview) => ({
  volume: p.volume,
  file_name: p.fileName,
  path: p.path,
  chapters: p.chapters.map((c) => ({ number: c.number, file_ids: c.fileIds })),
  files: p.files.map((f) => ({ id: f.id, path: f.path, sha256: f.sha256, size: f.size })),
  confirmation: p.confirmation,
  expires_at: p.expiresAt,
});

export const restAssemblyResult = (r: AssemblyResult) => ({
  volume: r.volume,
  file_id: r.fileId,
  path: r.path,
  sha256: r.sha256,
  page_count: r.pageCount,
  retired: r.retired.map((x) => ({
    file_id: x.fileId,
    recycle_entry_id: x.recycleEntryId,
    from: x.from,
    bin_path: x.binPath,
  })),
});

const restOutcome = (b: BookOutcome) => ({
  volume: b.volume,
  status: b.status,
  code: b.code,
  detail: b.detail,
  result: b.result ? restAssemblyResult(b.result) : null,
});

export function assemblyRoutes(app: Hono, services: Services): void {
  const assembly = services.assembly;
  const confirmation = async (c: Context) => asObject(await jsonBody(c)).confirmation;

  app.post("/api/manga/:id/volumes/:volume/assemble", async (c) => {
    if (dryRun(c)) return c.json(restAssemblyPreview(await assembly.preview(pathId(c), c.req.param("volume"))));
    return c.json(restAssemblyResult(await assembly.assemble(pathId(c), c.req.param("volume"), await confirmation(c))));
  });

  app.post("/api/manga/:id/assemble", async (c) => {
    if (dryRun(c)) {
      const p = await assembly.previewSeries(pathId(c));
      return c.json({
        series_id: p.seriesId,
        books: p.books.map(restOutcome),
        confirmation: p.confirmation,
        expires_at: p.expiresAt,
      });
    }
    const r = await assembly.assembleSeries(pathId(c), await confirmation(c));
    return c.json({ series_id: r.seriesId, books: r.books.map(restOutcome), remaining: r.remaining });
  });
}
