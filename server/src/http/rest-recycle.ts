/** REST of the recycle bin: translation between HTTP and the publication service, nothing else. */
import { pathId } from "./request.ts";
import type { Hono } from "hono";
import type { RecycleListEntry } from "../library/publication.ts";
import type { Services } from "../services/index.ts";

export function restRecycleEntry(e: RecycleListEntry) {
  return {
    id: e.id,
    file_id: e.fileId,
    series_id: e.seriesId,
    original_path: e.originalPath,
    bin_path: e.binPath,
    size: e.size,
    sha256: e.sha256,
    reason: e.reason,
    recycled_at: e.recycledAt.toISOString(),
    restorable_until: e.restorableUntil.toISOString(),
  };
}

export function recycleRoutes(app: Hono, services: Services): void {
  app.get("/api/recycle-bin", async (c) => c.json((await services.publication.list()).map(restRecycleEntry)));
  app.post("/api/recycle-bin/:id/restore", async (c) => {
    const r = await services.publication.restore(pathId(c));
    return c.json({ file_id: r.fileId, path: r.path });
  });
  app.delete("/api/recycle-bin/:id", async (c) => {
    await services.publication.purge(pathId(c));
    return c.body(null, 204);
  });
}
