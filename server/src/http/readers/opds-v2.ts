/**
 * OPDS 2.0 at /opds/v2 (`application/opds+json`): the root navigation, the series, one feed of
 * publications per series in reading order, recently added and continue reading, each publication
 * with its acquisition link, images and its progression service (`http://opds-spec.org/progression`,
 * `application/opds-progression+json`, the OPDS Progression draft):
 *
 * - `GET /opds/v2/files/{id}/progression`: 200 with the Progression Document, or 200 with an empty
 *   body when the file was never opened (as the draft allows).
 * - `PUT` takes a Progression Document: `progression` (0…1) becomes the page to open next
 *   (`floor(progression × pages) + 1`; 1 is the end: completed). A document whose `modified` is
 *   older than the stored place is refused with 409 and changes nothing (the draft's conflict).
 *   `progression` = (page − 1) / pages, or 1 when completed.
 */
import type { Context, Hono } from "hono";
import { AppError } from "../../errors.ts";
import type { Services } from "../../services/index.ts";
import { fileMediaType, fileName, fileTitle, type ReaderFileRow } from "../../services/reading/reader-apps.ts";
import type { FileProgress } from "../../services/reading/reading-service.ts";
import { asId } from "../../services/input.ts";
import { jsonBody } from "../request.ts";
import { OPDS_V1 } from "./opds-v1.ts";
import { deviceText, readerUser, sendFile } from "./common.ts";

export const OPDS_V2 = "/opds/v2";
const OPDS_JSON = "application/opds+json";
const PROGRESSION_JSON = "application/opds-progression+json";
const PAGE_SIZE = 100;

interface Link {
  href: string;
  type?: string;
  rel?: string;
  title?: string;
  templated?: boolean;
  properties?: Record<string, unknown>;
}

const json = (c: Context, body: unknown, type = OPDS_JSON) =>
  c.body(JSON.stringify(body), 200, { "content-type": `${type}; charset=utf-8`, "cache-control": "private, no-cache" });

function baseLinks(self: string): Link[] {
  return [
    { rel: "self", href: self, type: OPDS_JSON },
    { rel: "start", href: `${OPDS_V2}/catalog`, type: OPDS_JSON, title: "Manga library" },
    { rel: "search", href: `${OPDS_V2}/series{?query}`, type: OPDS_JSON, templated: true, title: "Search series" },
  ];
}

const back = (): Link[] => [{ href: `${OPDS_V2}/catalog`, type: OPDS_JSON, title: "Back to the library" }];

/** The Progression Document of a place; `own` is the device the app named when it set it. */
export function progressionOf(p: FileProgress, own?: { deviceId: string | null; deviceName: string | null } | null) {
  if (!p.updatedAt) return null;
  return {
    modified: p.updatedAt.toISOString(),
    device: {
      id: own?.deviceId ?? `urn:manga-library:device:${p.device ?? "web"}`,
      name: own?.deviceName ?? deviceName(p.device),
    },
    progression: p.completed ? 1 : p.pageCount > 0 ? Math.min(1, (p.page - 1) / p.pageCount) : 0,
  };
}

function deviceName(device: string | null): string {
  switch (device ?? "web") {
    case "koreader":
      return "KOReader";
    case "opds":
      return "OPDS page streaming";
    case "opds2":
      return "OPDS 2 reader";
    case "komga":
      return "Komga-compatible app";
    case "followed":
      return "Manga library (followed the content)";
    default:
      return "Manga library web reader";
  }
}

function publication(f: ReaderFileRow, seriesTitle: string, position: number | null, prefix = false) {
  const base = `${OPDS_V2}/files/${f.id}`;
  return {
    metadata: {
      "@type": "http://schema.org/Book",
      title: prefix ? `${seriesTitle} – ${fileTitle(f)}` : fileTitle(f),
      identifier: `urn:manga-library:file:${f.id}`,
      modified: f.updatedAt.toISOString(),
      ...(f.language ? { language: f.language } : {}),
      numberOfPages: Math.max(1, f.pageCount),
      belongsTo: { series: { name: seriesTitle, ...(position !== null ? { position } : {}) } },
    },
    links: [
      {
        rel: "http://opds-spec.org/acquisition",
        href: `${base}/file/${encodeURIComponent(fileName(f))}`,
        type: fileMediaType(f),
        title: fileName(f),
      },
      { rel: "http://opds-spec.org/progression", href: `${base}/progression`, type: PROGRESSION_JSON },
    ],
    images: [
      { href: `${OPDS_V1}/files/${f.id}/cover`, type: "image/jpeg" },
      { href: `${OPDS_V1}/files/${f.id}/thumbnail`, type: "image/webp" },
    ],
  };
}

function pageParam(c: Context): number {
  const v = c.req.query("page");
  if (v === undefined || v === "") return 0;
  if (!/^\d{1,6}$/.test(v)) throw new AppError("bad_request", "page is a whole number from 0");
  return Number(v);
}

/** Reads a Progression Document; returns the page to open next and whether it is the end. */
export function readProgression(
  body: unknown,
  pageCount: number,
): { page: number; completed: boolean; modified: Date | null; device: { id: string | null; name: string | null } } {
  const b = body as { progression?: unknown; modified?: unknown; device?: unknown } | null;
  if (typeof b !== "object" || b === null) throw new AppError("bad_request", "send an OPDS Progression Document");
  const p = b.progression;
  if (typeof p !== "number" || !Number.isFinite(p) || p < 0 || p > 1)
    throw new AppError("invalid_field", "progression is a number from 0 to 1", { field: "progression" });
  let modified: Date | null = null;
  if (b.modified !== undefined) {
    modified = typeof b.modified === "string" ? new Date(b.modified) : new Date(Number.NaN);
    if (Number.isNaN(modified.getTime()))
      throw new AppError("invalid_field", "modified is an ISO 8601 date and time", { field: "modified" });
  }
  const d = (typeof b.device === "object" && b.device !== null ? b.device : {}) as { id?: unknown; name?: unknown };
  const device = { id: deviceText(d.id), name: deviceText(d.name) };
  const pages = Math.max(1, pageCount);
  if (p >= 1) return { page: pages, completed: true, modified, device };
  return { page: Math.min(pages, Math.floor(p * pages + 1e-9) + 1), completed: false, modified, device };
}

export function opdsV2Routes(app: Hono, services: Services): void {
  const apps = services.readerApps;

  for (const p of [OPDS_V2, `${OPDS_V2}/`]) app.get(p, (c) => c.redirect(`${OPDS_V2}/catalog`));
  app.get(`${OPDS_V2}/catalog`, (c) =>
    json(c, {
      metadata: { title: "Manga library" },
      links: baseLinks(`${OPDS_V2}/catalog`),
      navigation: [
        { href: `${OPDS_V2}/series`, title: "Library", type: OPDS_JSON, rel: "subsection" },
        { href: `${OPDS_V2}/recent`, title: "Recently added", type: OPDS_JSON, rel: "http://opds-spec.org/sort/new" },
        { href: `${OPDS_V2}/continue`, title: "Continue reading", type: OPDS_JSON, rel: "subsection" },
      ],
    }),
  );

  app.get(`${OPDS_V2}/series`, async (c) => {
    const query = c.req.query("query") ?? c.req.query("q") ?? "";
    const page = pageParam(c);
    const { items, total } = await apps.seriesPage({ search: query, page, size: PAGE_SIZE });
    const qs = (p: number) =>
      `${OPDS_V2}/series?${new URLSearchParams({ ...(query ? { query } : {}), page: String(p) })}`;
    const links = baseLinks(qs(page));
    if (page > 0) links.push({ rel: "previous", href: qs(page - 1), type: OPDS_JSON });
    if ((page + 1) * PAGE_SIZE < total) links.push({ rel: "next", href: qs(page + 1), type: OPDS_JSON });
    return json(c, {
      metadata: {
        title: query ? `Series matching “${query}”` : "Library",
        numberOfItems: total,
        itemsPerPage: PAGE_SIZE,
        currentPage: page + 1,
      },
      links,
      navigation:
        items.length > 0
          ? items.map((s) => ({
              href: `${OPDS_V2}/series/${s.series.id}`,
              title: s.series.title,
              type: OPDS_JSON,
              rel: "subsection",
            }))
          : back(),
    });
  });

  app.get(`${OPDS_V2}/series/:id`, async (c) => {
    const { series, files } = await apps.seriesFiles(readerUser(c), asId(c.req.param("id"), "series id"));
    return json(c, {
      metadata: { title: series.title, numberOfItems: files.length },
      links: baseLinks(`${OPDS_V2}/series/${series.id}`),
      ...(files.length > 0
        ? { publications: files.map((f, i) => publication(f.file, series.title, i + 1)) }
        : { navigation: back() }),
    });
  });

  app.get(`${OPDS_V2}/recent`, async (c) => {
    const page = pageParam(c);
    const { items, total } = await apps.recent(readerUser(c), PAGE_SIZE, page * PAGE_SIZE);
    const links = baseLinks(`${OPDS_V2}/recent?page=${page}`);
    if (page > 0) links.push({ rel: "previous", href: `${OPDS_V2}/recent?page=${page - 1}`, type: OPDS_JSON });
    if ((page + 1) * PAGE_SIZE < total)
      links.push({ rel: "next", href: `${OPDS_V2}/recent?page=${page + 1}`, type: OPDS_JSON });
    return json(c, {
      metadata: { title: "Recently added", numberOfItems: total },
      links,
      ...(items.length > 0
        ? { publications: items.map((i) => publication(i.file, i.seriesTitle, null, true)) }
        : { navigation: back() }),
    });
  });

  app.get(`${OPDS_V2}/continue`, async (c) => {
    const entries = await services.reading.continueReading(readerUser(c), { limit: 50 });
    return json(c, {
      metadata: { title: "Continue reading", numberOfItems: entries.length },
      links: baseLinks(`${OPDS_V2}/continue`),
      ...(entries.length > 0
        ? { publications: entries.map((e) => publication(e.file, e.seriesTitle, null, true)) }
        : { navigation: back() }),
    });
  });

  app.get(`${OPDS_V2}/files/:id/file/:name`, async (c) =>
    sendFile(c, await apps.download(asId(c.req.param("id"), "file id"))),
  );

  app.get(`${OPDS_V2}/files/:id/progression`, async (c) => {
    const user = readerUser(c);
    const p = await services.reading.get(user, asId(c.req.param("id"), "file id"));
    const doc = progressionOf(p, (await services.reading.rows(user, [p.fileId])).get(p.fileId));
    if (!doc) return c.body(null, 200, { "cache-control": "no-store" });
    return json(c, doc, PROGRESSION_JSON);
  });

  app.put(`${OPDS_V2}/files/:id/progression`, async (c) => {
    const user = readerUser(c);
    const fileId = asId(c.req.param("id"), "file id");
    const current = await services.reading.get(user, fileId);
    const v = readProgression(await jsonBody(c), current.pageCount);
    if (v.modified && current.updatedAt && v.modified.getTime() < current.updatedAt.getTime()) {
      const own = (await services.reading.rows(user, [fileId])).get(fileId);
      return c.body(JSON.stringify(progressionOf(current, own)), 409, {
        "content-type": `${PROGRESSION_JSON}; charset=utf-8`,
      });
    }
    const saved = await services.reading.set(user, fileId, { page: v.page, completed: v.completed }, "opds2", {
      at: v.modified && v.modified.getTime() <= Date.now() ? v.modified : undefined,
      deviceId: v.device.id,
      deviceName: v.device.name,
    });
    return json(c, progressionOf(saved, { deviceId: v.device.id, deviceName: v.device.name }), PROGRESSION_JSON);
  });
}
