/** REST twins of the reading-progress operations (GraphQL: graphql/types/reading.ts). Translation only. */
import type { Context, Hono } from "hono";
import type { AppContext } from "../services/context.ts";
import type { Services } from "../services/index.ts";
import { readerUserOf, type ContinueEntry, type FileProgress } from "../services/reading/reading-service.ts";
import { fileTitle } from "../services/reading/reader-apps.ts";
import { asId } from "../services/input.ts";
import { principalOf } from "./auth.ts";
import { jsonBody, pathId } from "./request.ts";

export function restProgress(p: FileProgress) {
  return {
    file_id: p.fileId,
    page: p.page,
    completed: p.completed,
    page_count: p.pageCount,
    updated_at: p.updatedAt?.toISOString() ?? null,
    device: p.device,
  };
}

export function restContinue(e: ContinueEntry) {
  return {
    ...restProgress(e.progress),
    series_id: e.file.seriesId,
    series_title: e.seriesTitle,
    kind: e.file.kind,
    number: e.file.kind === "book" ? e.file.volume : e.file.chapter,
    title: fileTitle(e.file),
  };
}

export function readingRoutes(app: Hono, ctx: AppContext, services: Services): void {
  // /api/* is authenticated before these run; the user is the one behind that credential.
  const user = (c: Context) => readerUserOf(principalOf(c)?.user ?? null);

  app.get("/api/files/:id/progress", async (c) => c.json(restProgress(await services.reading.get(user(c), pathId(c)))));
  app.put("/api/files/:id/progress", async (c) =>
    c.json(restProgress(await services.reading.set(user(c), pathId(c), (await jsonBody(c)) as never, "web"))),
  );
  app.delete("/api/files/:id/progress", async (c) =>
    c.json(restProgress(await services.reading.clear(user(c), pathId(c)))),
  );
  app.get("/api/reading/continue", async (c) => {
    const seriesId = c.req.query("manga_id");
    const limit = c.req.query("limit");
    const entries = await services.reading.continueReading(user(c), {
      seriesId: seriesId === undefined ? undefined : asId(seriesId, "manga_id"),
      limit: limit === undefined ? undefined : asId(limit, "limit"),
    });
    return c.json(entries.map(restContinue));
  });
}
