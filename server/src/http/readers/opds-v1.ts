/**
 * OPDS 1.2 (Atom) at /opds/v1.2, for Panels, Chunky, KyBook, KOReader and other OPDS readers:
 *
 * - `/catalog`: the root navigation feed (library, recently added, continue reading) with the
 *   OpenSearch description (`/search.xml`, searching series titles).
 * - `/series?q=&page=`: the series, a navigation feed, 100 a page, with their cover thumbnails.
 * - `/series/{id}`: one acquisition feed per series listing its active files in reading order, each
 *   with its acquisition link (`http://opds-spec.org/acquisition`, the CBZ byte for byte), cover and
 *   thumbnail links and OPDS-PSE page streaming (`http://vaemendis.net/opds-pse/stream`, `pse:count`,
 *   `pse:lastRead`, a 0-based `{pageNumber}`). `pse:lastRead` counts from 1 as OPDS-PSE 1.1 says
 *   (unlike `{pageNumber}`): it is the stored place, so a client that resumes there (KOReader, Panels)
 *   opens the page our store says; its date is `pse:lastReadUpdate` (1.2) and `pse:lastReadDate`.
 * - `/recent`, `/continue`: acquisition feeds of the newest files and of the files to continue.
 * - `/files/{id}/pages/{n}`: page n (0-based) from the archive, never extracted; the reader's place
 *   becomes page n + 1 (1-based), completed on the last page. Pages (and `/cover`) are JPEG, the type
 *   the links declare: a page in another format is converted (library/page-jpeg.ts).
 */
import type { Context, Hono } from "hono";
import { XMLBuilder } from "fast-xml-parser";
import { AppError } from "../../errors.ts";
import type { Services } from "../../services/index.ts";
import {
  fileMediaType,
  fileName,
  fileTitle,
  type ReaderFileRow,
  type SeriesSummary,
} from "../../services/reading/reader-apps.ts";
import type { FileProgress } from "../../services/reading/reading-service.ts";
import { asId } from "../../services/input.ts";
import { readerUser, sendFile, sendPage, sendThumbnail } from "./common.ts";

export const OPDS_V1 = "/opds/v1.2";
const NAV = "application/atom+xml;profile=opds-catalog;kind=navigation";
const ACQ = "application/atom+xml;profile=opds-catalog;kind=acquisition";
// Feeds are served with the media type their links announce (profile and kind).
const NAV_FEED = `${NAV};charset=utf-8`;
const ACQ_FEED = `${ACQ};charset=utf-8`;
const PSE_NS = "http://vaemendis.net/opds-pse/ns";
const PSE_STREAM = "http://vaemendis.net/opds-pse/stream";
const SERIES_PAGE_SIZE = 100;
const FEED_AUTHOR = { name: "Manga library" };

interface Link {
  rel: string;
  href: string;
  type: string;
  title?: string;
  extra?: Record<string, string | number>;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  suppressEmptyNode: true,
  format: false,
  processEntities: true,
});

const link = (l: Link) => ({
  "@_rel": l.rel,
  "@_href": l.href,
  "@_type": l.type,
  ...(l.title ? { "@_title": l.title } : {}),
  ...Object.fromEntries(Object.entries(l.extra ?? {}).map(([k, v]) => [`@_${k}`, String(v)])),
});

function feed(opts: {
  id: string;
  title: string;
  updated: Date;
  self: string;
  kind: "navigation" | "acquisition";
  links?: Link[];
  entries: unknown[];
}) {
  const links: Link[] = [
    { rel: "self", href: opts.self, type: opts.kind === "navigation" ? NAV : ACQ },
    { rel: "start", href: `${OPDS_V1}/catalog`, type: NAV, title: "Manga library" },
    {
      rel: "search",
      href: `${OPDS_V1}/search.xml`,
      type: "application/opensearchdescription+xml",
      title: "Search series",
    },
    ...(opts.links ?? []),
  ];
  const doc = {
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    feed: {
      "@_xmlns": "http://www.w3.org/2005/Atom",
      "@_xmlns:opds": "http://opds-spec.org/2010/catalog",
      "@_xmlns:pse": PSE_NS,
      "@_xmlns:dcterms": "http://purl.org/dc/terms/",
      id: opts.id,
      title: opts.title,
      updated: opts.updated.toISOString(),
      author: FEED_AUTHOR,
      link: links.map(link),
      entry: opts.entries,
    },
  };
  return builder.build(doc) as string;
}

function navEntry(e: {
  id: string;
  title: string;
  updated: Date;
  href: string;
  kind: "navigation" | "acquisition";
  content?: string;
  thumbnail?: string;
}) {
  return {
    title: e.title,
    id: e.id,
    updated: e.updated.toISOString(),
    ...(e.content ? { content: { "@_type": "text", "#text": e.content } } : {}),
    link: [
      link({ rel: "subsection", href: e.href, type: e.kind === "navigation" ? NAV : ACQ }),
      ...(e.thumbnail
        ? [
            link({ rel: "http://opds-spec.org/image/thumbnail", href: e.thumbnail, type: "image/webp" }),
            link({ rel: "http://opds-spec.org/image", href: e.thumbnail, type: "image/webp" }),
          ]
        : []),
    ],
  };
}

const fileBase = (id: number) => `${OPDS_V1}/files/${id}`;

function humanSize(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KiB`;
}

/** One acquisition entry: acquisition, cover, thumbnail and page-streaming links. */
function fileEntry(f: ReaderFileRow, seriesTitle: string, progress: FileProgress, prefixSeries = false) {
  const title = prefixSeries ? `${seriesTitle} – ${fileTitle(f)}` : fileTitle(f);
  const pse: Link = {
    rel: PSE_STREAM,
    href: `${fileBase(f.id)}/pages/{pageNumber}`,
    type: "image/jpeg",
    extra: {
      "pse:count": f.pageCount,
      ...(progress.updatedAt
        ? {
            "pse:lastRead": progress.page,
            "pse:lastReadUpdate": progress.updatedAt.toISOString(),
            // Komga's name for the same date, which the apps written against it read.
            "pse:lastReadDate": progress.updatedAt.toISOString(),
          }
        : {}),
    },
  };
  return {
    title,
    id: `urn:manga-library:file:${f.id}`,
    updated: f.updatedAt.toISOString(),
    author: { name: seriesTitle },
    "dcterms:extent": humanSize(f.size),
    ...(f.language ? { "dcterms:language": f.language } : {}),
    content: { "@_type": "text", "#text": `${fileName(f)} – ${f.pageCount} pages – ${humanSize(f.size)}` },
    link: [
      link({ rel: "http://opds-spec.org/image", href: `${fileBase(f.id)}/cover`, type: "image/jpeg" }),
      link({ rel: "http://opds-spec.org/image/thumbnail", href: `${fileBase(f.id)}/thumbnail`, type: "image/webp" }),
      link({
        rel: "http://opds-spec.org/acquisition",
        href: `${fileBase(f.id)}/file/${encodeURIComponent(fileName(f))}`,
        type: fileMediaType(f),
        title: fileName(f),
      }),
      link(pse),
    ],
  };
}

const xml = (c: Context, body: string, type: string) =>
  c.body(body, 200, { "content-type": type, "cache-control": "private, no-cache" });

function pageParam(c: Context): number {
  const v = c.req.query("page");
  if (v === undefined || v === "") return 0;
  if (!/^\d{1,6}$/.test(v)) throw new AppError("bad_request", "page is a whole number from 0");
  return Number(v);
}

export function opdsV1Routes(app: Hono, services: Services): void {
  const apps = services.readerApps;

  // The address as users type it into a reader app: the prefix, with or without its slash.
  for (const p of [OPDS_V1, `${OPDS_V1}/`, "/opds", "/opds/"]) app.get(p, (c) => c.redirect(`${OPDS_V1}/catalog`));
  app.get(`${OPDS_V1}/catalog`, async (c) => {
    const now = new Date();
    return xml(
      c,
      feed({
        id: "urn:manga-library:opds:root",
        title: "Manga library",
        updated: now,
        self: `${OPDS_V1}/catalog`,
        kind: "navigation",
        entries: [
          navEntry({
            id: "urn:manga-library:opds:series",
            title: "Library",
            updated: now,
            href: `${OPDS_V1}/series`,
            kind: "navigation",
            content: "Every series",
          }),
          navEntry({
            id: "urn:manga-library:opds:recent",
            title: "Recently added",
            updated: now,
            href: `${OPDS_V1}/recent`,
            kind: "acquisition",
            content: "The newest books and chapters",
          }),
          navEntry({
            id: "urn:manga-library:opds:continue",
            title: "Continue reading",
            updated: now,
            href: `${OPDS_V1}/continue`,
            kind: "acquisition",
            content: "Where you stopped",
          }),
        ],
      }),
      NAV_FEED,
    );
  });

  app.get(`${OPDS_V1}/search.xml`, (c) => {
    const body = builder.build({
      "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
      OpenSearchDescription: {
        "@_xmlns": "http://a9.com/-/spec/opensearch/1.1/",
        ShortName: "Manga library",
        Description: "Search the series of the manga library",
        InputEncoding: "UTF-8",
        OutputEncoding: "UTF-8",
        Url: [{ "@_type": NAV, "@_template": `${OPDS_V1}/series?q={searchTerms}` }],
      },
    }) as string;
    return xml(c, body, "application/opensearchdescription+xml;charset=utf-8");
  });

  app.get(`${OPDS_V1}/series`, async (c) => {
    const q = c.req.query("q") ?? "";
    const page = pageParam(c);
    const { items, total } = await apps.seriesPage({ search: q, page, size: SERIES_PAGE_SIZE });
    const qs = (p: number) => `${OPDS_V1}/series?${new URLSearchParams({ ...(q ? { q } : {}), page: String(p) })}`;
    const links: Link[] = [];
    if (page > 0) links.push({ rel: "previous", href: qs(page - 1), type: NAV });
    if ((page + 1) * SERIES_PAGE_SIZE < total) links.push({ rel: "next", href: qs(page + 1), type: NAV });
    const updated = new Date(Math.max(0, ...items.map((s) => s.lastModified.getTime())));
    return xml(
      c,
      feed({
        id: `urn:manga-library:opds:series${q ? `:search:${encodeURIComponent(q)}` : ""}`,
        title: q ? `Series matching “${q}”` : "Library",
        updated,
        self: qs(page),
        kind: "navigation",
        links,
        entries: items.map((s: SeriesSummary) =>
          navEntry({
            id: `urn:manga-library:series:${s.series.id}`,
            title: s.series.title,
            updated: s.lastModified,
            href: `${OPDS_V1}/series/${s.series.id}`,
            kind: "acquisition",
            content: `${s.fileCount} file${s.fileCount === 1 ? "" : "s"}`,
            thumbnail: s.coverFileId === null ? undefined : `${fileBase(s.coverFileId)}/thumbnail`,
          }),
        ),
      }),
      NAV_FEED,
    );
  });

  app.get(`${OPDS_V1}/series/:id`, async (c) => {
    const user = readerUser(c);
    const { series, files } = await apps.seriesFiles(user, asId(c.req.param("id"), "series id"));
    const updated = new Date(Math.max(series.updatedAt.getTime(), ...files.map((f) => f.file.updatedAt.getTime())));
    return xml(
      c,
      feed({
        id: `urn:manga-library:series:${series.id}`,
        title: series.title,
        updated,
        self: `${OPDS_V1}/series/${series.id}`,
        kind: "acquisition",
        links: [{ rel: "up", href: `${OPDS_V1}/series`, type: NAV, title: "Library" }],
        entries: files.map((f) => fileEntry(f.file, series.title, f.progress)),
      }),
      ACQ_FEED,
    );
  });

  app.get(`${OPDS_V1}/recent`, async (c) => {
    const user = readerUser(c);
    const page = pageParam(c);
    const { items, total } = await apps.recent(user, SERIES_PAGE_SIZE, page * SERIES_PAGE_SIZE);
    const links: Link[] = [];
    if (page > 0) links.push({ rel: "previous", href: `${OPDS_V1}/recent?page=${page - 1}`, type: ACQ });
    if ((page + 1) * SERIES_PAGE_SIZE < total)
      links.push({ rel: "next", href: `${OPDS_V1}/recent?page=${page + 1}`, type: ACQ });
    return xml(
      c,
      feed({
        id: "urn:manga-library:opds:recent",
        title: "Recently added",
        updated: items[0]?.file.createdAt ?? new Date(0),
        self: `${OPDS_V1}/recent?page=${page}`,
        kind: "acquisition",
        links,
        entries: items.map((i) => fileEntry(i.file, i.seriesTitle, i.progress, true)),
      }),
      ACQ_FEED,
    );
  });

  app.get(`${OPDS_V1}/continue`, async (c) => {
    const entries = await services.reading.continueReading(readerUser(c), { limit: 50 });
    return xml(
      c,
      feed({
        id: "urn:manga-library:opds:continue",
        title: "Continue reading",
        updated: entries[0]?.progress.updatedAt ?? new Date(0),
        self: `${OPDS_V1}/continue`,
        kind: "acquisition",
        entries: entries.map((e) => fileEntry(e.file, e.seriesTitle, e.progress, true)),
      }),
      ACQ_FEED,
    );
  });

  app.get(`${OPDS_V1}/files/:id/file/:name`, async (c) =>
    sendFile(c, await apps.download(asId(c.req.param("id"), "file id"))),
  );
  app.get(`${OPDS_V1}/files/:id/file`, async (c) =>
    sendFile(c, await apps.download(asId(c.req.param("id"), "file id"))),
  );
  app.get(`${OPDS_V1}/files/:id/thumbnail`, async (c) =>
    sendThumbnail(c, await apps.thumbnail(asId(c.req.param("id"), "file id"), c.req.header("if-none-match"))),
  );
  app.get(`${OPDS_V1}/files/:id/cover`, async (c) =>
    sendPage(
      c,
      await apps.page(readerUser(c), asId(c.req.param("id"), "file id"), 1, {
        ifNoneMatch: c.req.header("if-none-match"),
        jpeg: true,
      }),
    ),
  );
  app.get(`${OPDS_V1}/files/:id/pages/:n`, async (c) => {
    const n = c.req.param("n");
    if (!/^\d{1,6}$/.test(n)) throw new AppError("page_not_found", "pageNumber is 0-based: 0 is the first page");
    const page = await apps.page(readerUser(c), asId(c.req.param("id"), "file id"), Number(n) + 1, {
      record: "opds",
      jpeg: true,
    });
    return sendPage(c, page);
  });
}
