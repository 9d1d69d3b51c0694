/**
 * KOReader's progress sync protocol (the kosync plugin; Komga and Kavita speak it too) at /koreader:
 * the server URL in KOReader is `http://host:port/koreader`.
 *
 * - `GET /koreader/users/auth` → `{ "authorized": "OK" }` for good credentials (KOReader's "Login").
 * - `POST /koreader/users/create` → 403: accounts are the service's own (admin and the web
 *   password, or the API key as the user name, as Komga does).
 * - `PUT /koreader/syncs/progress` `{ document, progress, percentage, device, device_id }` →
 *   `{ document, timestamp }`. `document` is KOReader's partial MD5 of the file, or the MD5 of its
 *   file name (KOReader's "file name" matching); for an image book `progress` is the page number
 *   KOReader is on (1-based), which becomes the page to open next; the last page is completed.
 * - `GET /koreader/syncs/progress/{document}` → `{ document, progress, percentage, device,
 *   device_id, timestamp }`, or `{}` when the file was never opened. After KOReader's own PUT,
 *   progress, percentage, device and device_id are the ones it sent (KOReader recognises its own
 *   device by them); after another app's, they describe the stored page.
 *
 * Answers are `application/vnd.koreader.v1+json`. An unknown document is 404 `{ "message" }`; bad
 * credentials are 401 `{ "code": 2001, "message": "Unauthorized" }` and invalid bodies 400 with the
 * reference sync server's codes (2004 without `document`, 2003 otherwise) for KOReader to show.
 */
import type { Context, Hono } from "hono";
import { isAppError } from "../../errors.ts";
import type { Services } from "../../services/index.ts";
import { jsonBody } from "../request.ts";
import { deviceText, readerUser } from "./common.ts";

const KOSYNC_JSON = "application/vnd.koreader.v1+json";

const answer = (c: Context, body: unknown, status: 200 | 201 | 400 | 403 | 404 = 200) =>
  c.body(JSON.stringify(body), status, {
    "content-type": `${KOSYNC_JSON}; charset=utf-8`,
    "cache-control": "no-store",
  });

export function koreaderRoutes(app: Hono, services: Services): void {
  const apps = services.readerApps;

  app.get("/koreader/users/auth", (c) => answer(c, { authorized: "OK" }));
  app.post("/koreader/users/create", (c) =>
    answer(
      c,
      {
        message:
          "Accounts are not created here: log in as admin with the web password, or with the API key as the user name.",
      },
      403,
    ),
  );

  app.get("/koreader/syncs/progress/:document", async (c) => {
    const file = await findDocument(c.req.param("document"));
    if (!file) return answer(c, { message: "No library file has this document hash." }, 404);
    const p = await services.reading.get(readerUser(c), file.id);
    if (!p.updatedAt) return answer(c, {});
    const row = (await services.reading.rows(readerUser(c), [file.id])).get(file.id);
    // What KOReader sent comes back as sent: it tells its own device by device and device_id, and
    // compares percentages; a place another app set is described from the page.
    return answer(c, {
      document: c.req.param("document").toLowerCase(),
      progress: row?.koreaderProgress ?? String(p.page),
      percentage:
        row?.percentage ?? (p.completed ? 1 : p.pageCount > 0 ? Number(((p.page - 1) / p.pageCount).toFixed(4)) : 0),
      device: row?.deviceName ?? (p.device === "koreader" ? "KOReader" : "manga-library"),
      device_id: row?.deviceId ?? p.device ?? "web",
      timestamp: Math.floor(p.updatedAt.getTime() / 1000),
    });
  });

  app.put("/koreader/syncs/progress", async (c) => {
    const sent = await jsonBody(c);
    // A body that is no JSON object carries no document, as the sync server reads it (2004 below).
    const body = (typeof sent === "object" && sent !== null && !Array.isArray(sent) ? sent : {}) as {
      document?: unknown;
      progress?: unknown;
      percentage?: unknown;
      device?: unknown;
      device_id?: unknown;
    };
    // The sync server's codes: 2004 without a document, 2003 for any other invalid field.
    if (typeof body.document !== "string" || body.document === "")
      return answer(c, { code: 2004, message: "Field 'document' not provided." }, 400);
    if (typeof body.progress !== "string" && typeof body.progress !== "number")
      return answer(c, { code: 2003, message: "Invalid request: send progress." }, 400);
    const file = await findDocument(body.document);
    if (!file) return answer(c, { message: "No library file has this document hash." }, 404);
    const pages = Math.max(1, file.pageCount);
    const raw = String(body.progress);
    let page: number;
    if (/^\d+$/.test(raw)) page = Number(raw);
    else if (typeof body.percentage === "number" && Number.isFinite(body.percentage))
      page = Math.floor(body.percentage * pages) + 1;
    else
      return answer(c, { code: 2003, message: "Invalid request: progress is the page number of an image book." }, 400);
    page = Math.min(pages, Math.max(1, page));
    const percentage =
      typeof body.percentage === "number" && body.percentage >= 0 && body.percentage <= 1 ? body.percentage : null;
    const saved = await services.reading.set(readerUser(c), file.id, { page, completed: page >= pages }, "koreader", {
      koreaderProgress: raw,
      deviceName: deviceText(body.device),
      deviceId: deviceText(body.device_id),
      percentage,
    });
    return answer(c, {
      document: body.document.toLowerCase(),
      timestamp: Math.floor(saved.updatedAt!.getTime() / 1000),
    });
  });

  async function findDocument(document: string) {
    try {
      return await apps.koreaderDocument(document);
    } catch (e) {
      if (isAppError(e) && e.code === "invalid_field") return null;
      throw e;
    }
  }
}
