/**
 * A Komga-compatible read API under /komga, so Mihon (and Tachiyomi forks) through its Komga
 * extension and tracker, and Komelia, read this library unchanged: the server URL in the app is
 * `http://host:port/komga`. Field names and types follow Komga's DTOs as those apps deserialise
 * them (the list, with where each comes from, is in server/test/readers-komga.test.ts).
 *
 * - One library ("Library"); every series; each series' books are its active files (books and
 *   chapters) in reading order, numbered 1, 2, 3… in that order (`number`, `metadata.number`,
 *   `metadata.numberSort`), so every app sorts them as the series page does; titles say what each
 *   file is ("Volume 3", "Chapter 12").
 * - Pages are 1-based as in Komga (`?zero_based=true` accepted). Reading: `PATCH
 *   /books/{id}/read-progress` `{ page?, completed? }` and Mihon's tracker `GET/PUT
 *   /api/v2/series/{id}/read-progress/tachiyomi` (and v1's, by book index) share the one progress store.
 * - Read-only for library content: no metadata edits, deletions, scans or uploads.
 * - Lists the apps ask for at start-up that this library has no notion of (collections, read
 *   lists, genres, tags, publishers, authors) answer empty.
 */
import type { Context, Hono } from "hono";
import { AppError } from "../../errors.ts";
import type { Services } from "../../services/index.ts";
import { asObject } from "../../services/input.ts";
import type { SeriesSummary } from "../../services/reading/reader-apps.ts";
import { jsonBody } from "../request.ts";
import { readerUser, sendFile, sendPage, sendThumbnail } from "./common.ts";
import {
  KOMGA,
  LIBRARY_ID,
  springPage,
  pageQuery,
  komgaId,
  libraryDto,
  seriesDto,
  bookDto,
  mediaTypeOf,
  seriesOrder,
  type Counts,
  type SeriesOrder,
} from "./komga-dto.ts";

const TITLE_ORDER: SeriesOrder = { key: "title", descending: false };

const V1 = `${KOMGA}/api/v1`;

export function komgaRoutes(app: Hono, services: Services): void {
  const apps = services.readerApps;
  const reading = services.reading;

  /** Read/in-progress counts per series for the user (one progress select). */
  async function countsFor(user: string, summaries: SeriesSummary[]): Promise<Map<number, Counts>> {
    const facts = await reading.repo.activeFileFacts();
    const ids = new Set(summaries.map((s) => s.series.id));
    const mine = facts.filter((f) => ids.has(f.seriesId));
    const rows = await reading.rows(
      user,
      mine.map((f) => f.id),
    );
    const out = new Map<number, Counts>(summaries.map((s) => [s.series.id, { read: 0, inProgress: 0, total: 0 }]));
    for (const f of mine) {
      const c = out.get(f.seriesId)!;
      c.total += 1;
      const r = rows.get(f.id);
      if (r?.completed) c.read += 1;
      else if (r) c.inProgress += 1;
    }
    return out;
  }

  /** Komga's read status of a series from its counts. */
  const readStatus = (k: Counts) =>
    k.total > 0 && k.read === k.total ? "READ" : k.read === 0 && k.inProgress === 0 ? "UNREAD" : "IN_PROGRESS";

  async function seriesList(c: Context, search: string | null, fallback: SeriesOrder = TITLE_ORDER) {
    const user = readerUser(c);
    const libraryIds = (c.req.query("library_id") ?? "").split(",").filter(Boolean);
    let all = libraryIds.length === 0 || libraryIds.includes(LIBRARY_ID) ? await apps.summaries() : [];
    const needle = (search ?? "").trim().toLowerCase();
    if (needle) all = all.filter((s) => s.series.title.toLowerCase().includes(needle));
    const counts = await countsFor(user, all);
    // Mihon's Unread / In progress / Read filters (`read_status`, repeated or comma-separated).
    const statuses = new Set((c.req.queries("read_status") ?? []).flatMap((v) => v.split(",")).filter(Boolean));
    if (statuses.size > 0) all = all.filter((s) => statuses.has(readStatus(counts.get(s.series.id)!)));
    const order = seriesOrder(c, fallback);
    const time = (s: SeriesSummary) =>
      order.key === "created" ? s.series.createdAt.getTime() : s.lastModified.getTime();
    // summaries() come by title; the sort is stable, so equal times keep that order.
    if (order.key !== "title") all = [...all].sort((a, b) => time(a) - time(b));
    if (order.descending) all = [...all].reverse();
    const page = springPage(all, pageQuery(c));
    return c.json({ ...page, content: page.content.map((s) => seriesDto(s, counts.get(s.series.id)!)) });
  }

  async function seriesBooks(user: string, seriesId: number) {
    const { series, files } = await apps.seriesFiles(user, seriesId);
    return { series, books: files.map((f, i) => ({ ...f, position: i + 1 })) };
  }

  async function book(user: string, bookId: number) {
    const { file } = await apps.file(user, bookId);
    const { series, books } = await seriesBooks(user, file.seriesId);
    const at = books.findIndex((b) => b.file.id === file.id);
    return { series, books, at };
  }

  const empty = (c: Context) => c.json(springPage([], { ...pageQuery(c), unpaged: c.req.query("unpaged") === "true" }));

  // ---- libraries, user, referential ----
  const library = () => libraryDto(services.scanSchedule.intervalSeconds);
  app.get(`${V1}/libraries`, (c) => c.json([library()]));
  app.get(`${V1}/libraries/:id`, (c) => {
    if (c.req.param("id") !== LIBRARY_ID) throw new AppError("not_found", "no such library");
    return c.json(library());
  });
  app.get(`${KOMGA}/api/v2/users/me`, (c) =>
    c.json({
      id: readerUser(c),
      email: readerUser(c),
      roles: ["ADMIN", "USER", "FILE_DOWNLOAD", "PAGE_STREAMING", "KOBO_SYNC", "KOREADER_SYNC"],
      sharedAllLibraries: true,
      sharedLibrariesIds: [],
      labelsAllow: [],
      labelsExclude: [],
      ageRestriction: null,
    }),
  );
  for (const p of ["collections", "readlists"]) app.get(`${V1}/${p}`, empty);
  for (const p of [
    "genres",
    "tags",
    "tags/series",
    "tags/book",
    "publishers",
    "languages",
    "age-ratings",
    "sharing-labels",
    "authors",
    "authors/names",
    "series/release-dates",
  ])
    app.get(`${V1}/${p}`, (c) => c.json([]));
  app.get(`${V1}/authors/roles`, (c) => c.json([]));
  app.get(`${KOMGA}/api/v2/authors`, empty);

  // ---- series ----
  app.get(`${V1}/series`, (c) => seriesList(c, c.req.query("search") ?? null));
  app.post(`${V1}/series/list`, async (c) => {
    // Komga reads the body as its search object: anything but a JSON object is 400.
    const body = asObject(await jsonBody(c));
    return seriesList(c, typeof body.fullTextSearch === "string" ? body.fullTextSearch : null);
  });
  app.get(`${V1}/series/new`, (c) => seriesList(c, null, { key: "created", descending: true }));
  app.get(`${V1}/series/latest`, (c) => seriesList(c, null, { key: "modified", descending: true }));
  app.get(`${V1}/series/updated`, (c) => seriesList(c, null, { key: "modified", descending: true }));
  app.get(`${V1}/series/:id`, async (c) => {
    const s = await apps.seriesSummary(komgaId(c.req.param("id"), "series_not_found"));
    return c.json(seriesDto(s, (await countsFor(readerUser(c), [s])).get(s.series.id)!));
  });
  app.get(`${V1}/series/:id/thumbnail`, async (c) => {
    const s = await apps.seriesSummary(komgaId(c.req.param("id"), "series_not_found"));
    if (s.coverFileId === null) throw new AppError("file_not_found", "the series has no file to show");
    return sendThumbnail(c, await apps.thumbnail(s.coverFileId, c.req.header("if-none-match")));
  });
  app.get(`${V1}/series/:id/books`, async (c) => {
    const user = readerUser(c);
    const { series, books } = await seriesBooks(user, komgaId(c.req.param("id"), "series_not_found"));
    const dtos = books.map((b) => bookDto(b.file, series, b.position, b.progress));
    const direction = (c.req.query("sort") ?? "").toLowerCase().includes("desc") ? -1 : 1;
    return c.json(springPage(direction < 0 ? dtos.reverse() : dtos, pageQuery(c)));
  });
  app.get(`${V1}/series/:id/collections`, (c) => c.json([]));
  app.post(`${V1}/series/:id/read-progress`, async (c) => {
    const user = readerUser(c);
    const { books } = await seriesBooks(user, komgaId(c.req.param("id"), "series_not_found"));
    for (const b of books) await reading.set(user, b.file.id, { completed: true }, "komga");
    return c.body(null, 204);
  });
  app.delete(`${V1}/series/:id/read-progress`, async (c) => {
    const user = readerUser(c);
    const { books } = await seriesBooks(user, komgaId(c.req.param("id"), "series_not_found"));
    for (const b of books) await reading.clear(user, b.file.id);
    return c.body(null, 204);
  });

  // Mihon's Komga tracker: Komga's TachiyomiReadProgressV2Dto and its update, and the older v1
  // (TachiyomiReadProgressDto, `lastBookRead` counting books from 1) that earlier trackers call.
  // Books are numbered 1…n in reading order, so a book's index and its numberSort are the same.
  async function tachiyomiCounts(c: Context) {
    const { books } = await seriesBooks(readerUser(c), komgaId(c.req.param("id"), "series_not_found"));
    const read = books.filter((b) => b.progress.completed).length;
    const inProgress = books.filter((b) => !b.progress.completed && b.progress.updatedAt).length;
    const leading = books.findIndex((b) => !b.progress.completed);
    return {
      booksCount: books.length,
      booksReadCount: read,
      booksUnreadCount: books.length - read - inProgress,
      booksInProgressCount: inProgress,
      lastRead: leading === -1 ? books.length : leading,
    };
  }
  async function markUpTo(c: Context, field: "lastBookNumberSortRead" | "lastBookRead") {
    const user = readerUser(c);
    const body = (await jsonBody(c)) as Record<string, unknown> | null;
    const upTo = body && typeof body === "object" ? body[field] : undefined;
    if (typeof upTo !== "number" || !Number.isFinite(upTo) || upTo < 0)
      throw new AppError("invalid_field", `${field} is a number from 0`, { field });
    const { books } = await seriesBooks(user, komgaId(c.req.param("id"), "series_not_found"));
    for (const b of books)
      if (b.position <= upTo && !b.progress.completed) await reading.set(user, b.file.id, { completed: true }, "komga");
    return c.body(null, 204);
  }
  app.get(`${KOMGA}/api/v2/series/:id/read-progress/tachiyomi`, async (c) => {
    const { lastRead, ...counts } = await tachiyomiCounts(c);
    return c.json({ ...counts, lastReadContinuousNumberSort: lastRead, maxNumberSort: counts.booksCount });
  });
  app.put(`${KOMGA}/api/v2/series/:id/read-progress/tachiyomi`, (c) => markUpTo(c, "lastBookNumberSortRead"));
  app.get(`${V1}/series/:id/read-progress/tachiyomi`, async (c) => {
    const { lastRead, ...counts } = await tachiyomiCounts(c);
    return c.json({ ...counts, lastReadContinuousIndex: lastRead });
  });
  app.put(`${V1}/series/:id/read-progress/tachiyomi`, (c) => markUpTo(c, "lastBookRead"));

  // ---- books ----
  const allBooks = async (c: Context, search: string | null) => {
    const user = readerUser(c);
    const needle = (search ?? "").trim().toLowerCase();
    const out: ReturnType<typeof bookDto>[] = [];
    for (const s of await apps.summaries()) {
      if (needle && !s.series.title.toLowerCase().includes(needle)) continue;
      const { series, books } = await seriesBooks(user, s.series.id);
      for (const b of books) out.push(bookDto(b.file, series, b.position, b.progress));
    }
    return c.json(springPage(out, pageQuery(c)));
  };
  app.get(`${V1}/books`, (c) => allBooks(c, c.req.query("search") ?? null));
  app.post(`${V1}/books/list`, async (c) => {
    const body = asObject(await jsonBody(c));
    return allBooks(c, typeof body.fullTextSearch === "string" ? body.fullTextSearch : null);
  });
  app.get(`${V1}/books/ondeck`, async (c) => {
    const user = readerUser(c);
    const entries = await reading.continueReading(user, { limit: 100 });
    const dtos = [];
    for (const e of entries) {
      const { series, books, at } = await book(user, e.file.id);
      dtos.push(bookDto(books[at]!.file, series, at + 1, books[at]!.progress));
    }
    return c.json(springPage(dtos, pageQuery(c)));
  });
  app.get(`${V1}/books/latest`, async (c) => {
    const user = readerUser(c);
    const q = pageQuery(c);
    const { items } = await apps.recent(user, q.unpaged ? 500 : Math.min(500, (q.page + 1) * q.size));
    const dtos = [];
    for (const i of items) {
      const { series, books, at } = await book(user, i.file.id);
      dtos.push(bookDto(books[at]!.file, series, at + 1, books[at]!.progress));
    }
    return c.json(springPage(dtos, q));
  });
  app.get(`${V1}/books/:id`, async (c) => {
    const { series, books, at } = await book(readerUser(c), komgaId(c.req.param("id"), "file_not_found"));
    return c.json(bookDto(books[at]!.file, series, at + 1, books[at]!.progress));
  });
  for (const [p, step] of [
    ["next", 1],
    ["previous", -1],
  ] as const) {
    app.get(`${V1}/books/:id/${p}`, async (c) => {
      const { series, books, at } = await book(readerUser(c), komgaId(c.req.param("id"), "file_not_found"));
      const other = books[at + step];
      if (!other) throw new AppError("file_not_found", `no ${p} book in the series`);
      return c.json(bookDto(other.file, series, other.position, other.progress));
    });
  }
  app.get(`${V1}/books/:id/thumbnail`, async (c) =>
    sendThumbnail(c, await apps.thumbnail(komgaId(c.req.param("id"), "file_not_found"), c.req.header("if-none-match"))),
  );
  app.get(`${V1}/books/:id/file`, async (c) =>
    sendFile(c, await apps.download(komgaId(c.req.param("id"), "file_not_found"))),
  );
  app.get(`${V1}/books/:id/file/*`, async (c) =>
    sendFile(c, await apps.download(komgaId(c.req.param("id"), "file_not_found"))),
  );
  app.get(`${V1}/books/:id/readlists`, (c) => c.json([]));
  app.get(`${V1}/books/:id/pages`, async (c) => {
    const p = await apps.pages(komgaId(c.req.param("id"), "file_not_found"));
    return c.json(
      p.pages.map((x) => ({
        number: x.index,
        fileName: x.name,
        mediaType: mediaTypeOf(x.name),
        width: x.width,
        height: x.height,
        sizeBytes: null,
        size: "",
      })),
    );
  });
  const pageRoute = async (c: Context) => {
    const raw = c.req.param("n") ?? "";
    if (!/^\d{1,6}$/.test(raw)) throw new AppError("page_number_invalid", "pages count from 1");
    const n = Number(raw) + (c.req.query("zero_based") === "true" ? 1 : 0);
    const user = readerUser(c);
    const id = komgaId(c.req.param("id"), "file_not_found");
    try {
      return sendPage(c, await apps.page(user, id, n, { ifNoneMatch: c.req.header("if-none-match") }));
    } catch (e) {
      // Komga answers 400 "Page number does not exist" for a page outside a book it has; an unknown
      // book stays 404.
      if (e instanceof AppError && e.code === "page_not_found") throw new AppError("page_number_invalid", e.message);
      throw e;
    }
  };
  app.get(`${V1}/books/:id/pages/:n`, pageRoute);
  app.get(`${V1}/books/:id/pages/:n/thumbnail`, pageRoute);
  app.patch(`${V1}/books/:id/read-progress`, async (c) => {
    const user = readerUser(c);
    const { file } = await apps.file(user, komgaId(c.req.param("id"), "file_not_found"));
    const body = (await jsonBody(c)) as { page?: unknown; completed?: unknown } | null;
    // Komga's rule: a book whose last page is the page read is completed, whatever `completed` says.
    const input =
      body && typeof body === "object" && body.page === file.pageCount && body.completed !== true
        ? { ...body, completed: true }
        : body;
    await reading.set(user, file.id, input as never, "komga");
    return c.body(null, 204);
  });
  app.delete(`${V1}/books/:id/read-progress`, async (c) => {
    await reading.clear(readerUser(c), komgaId(c.req.param("id"), "file_not_found"));
    return c.body(null, 204);
  });
}
