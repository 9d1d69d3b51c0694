/** REST twins of the web client's support operations: book-starts preview, file pages, monitoring. Translation only. */
import { bookStartsBody } from "./bodies/maps.ts";
import type { Hono } from "hono";
import type { FilePages } from "../services/series/file-pages-service.ts";
import type { BookStartsPlan } from "../services/maps/map-service.ts";
import type { Services } from "../services/index.ts";
import { restMapChange } from "./present-map.ts";
import { restUnit } from "./present.ts";
import { monitorBody } from "./bodies/units.ts";
import { jsonBody, pathId } from "./request.ts";

const CACHEABLE = "private, max-age=3600";

export function restBookStartsPlan(p: BookStartsPlan) {
  return {
    revision: p.revision,
    entries: p.entries,
    problems: p.problems,
    warnings: p.warnings,
    last_end: p.lastEnd,
    last_end_reason: p.lastEndReason,
    preview: p.preview && restMapChange(p.revision, p.preview),
  };
}

export function restFilePages(p: FilePages) {
  return {
    file_id: p.fileId,
    series_id: p.seriesId,
    kind: p.kind,
    number: p.number,
    page_count: p.pageCount,
    pages: p.pages.map((x) => ({ index: x.index, name: x.name, width: x.width, height: x.height })),
  };
}

export function webSupportRoutes(app: Hono, services: Services): void {
  app.post("/api/manga/:id/chapter-map/book-starts/preview", async (c) =>
    c.json(restBookStartsPlan(await services.maps.previewBookStarts(pathId(c), bookStartsBody(await jsonBody(c))))),
  );

  app.put("/api/manga/:id/monitoring", async (c) =>
    c.json(restUnit(await services.monitoring.setMonitored(pathId(c), monitorBody(await jsonBody(c))))),
  );

  app.get("/api/files/:id/pages", async (c) => c.json(restFilePages(await services.filePages.pages(pathId(c)))));
  app.get("/api/files/:id/pages/:index", async (c) => {
    const p = await services.filePages.page(pathId(c), pathId(c, "index"), c.req.header("if-none-match"));
    // The ETag names the recorded bytes and the page: a page never changes under its ETag.
    if (p.notModified) return c.body(null, 304, { etag: p.etag, "cache-control": CACHEABLE });
    const headers: Record<string, string> = {
      "content-type": p.contentType,
      "cache-control": p.etag ? CACHEABLE : "no-store",
      "x-content-type-options": "nosniff",
    };
    if (p.etag) headers.etag = p.etag;
    return c.body(new Uint8Array(p.data), 200, headers);
  });
}
