/**
 * Reading progress per user and file (REST `GET/PUT /api/files/{id}/progress`, GraphQL
 * `fileProgress`/`setFileProgress`, and every reader app's API: OPDS page streaming, OPDS 2
 * progression, KOReader sync, the Komga-compatible API). One store, one set of rules:
 *
 * - `page` is 1-based, the page to open next (Komga's read progress); `completed` says the file was
 *   read to the end (a completed file's page is its last page).
 * - Progress follows the content (domain/reading-progress.ts): after every publication, retirement
 *   and scan the places left on files that left the library move to what holds their content now.
 *
 * Users: the service has one web user, `admin`; the API key (and the reader apps' credentials) act
 * for it. The store is keyed by user name so more users can come without a migration.
 */
import { AppError } from "../../errors.ts";
import { asId } from "../input.ts";
import { label, parseLabel } from "../../domain/labels.ts";
import {
  clampPage,
  followProgress,
  type LayoutEntry,
  type ProgressFile,
  type ProgressValue,
} from "../../domain/reading-progress.ts";
import type { Publication } from "../../library/publication.ts";
import { readingRepo, type ProgressRow, type ReaderFileRow } from "../../repositories/reading-repo.ts";
import type { AppContext } from "../context.ts";
import type { UnitsService } from "../series/units-service.ts";

/** The one web user; the API key and the reader apps' credentials act for it. */
export const ADMIN_USER = "admin";

/** The reading user behind an authenticated principal ("api-key" or a session's user name). */
export function readerUserOf(principal: string | null): string {
  if (!principal) throw new AppError("unauthenticated");
  return principal === "api-key" ? ADMIN_USER : principal;
}

export type ProgressDevice = "web" | "opds" | "opds2" | "koreader" | "komga";

export interface FileProgress {
  fileId: number;
  page: number;
  completed: boolean;
  pageCount: number;
  /** null: never opened (page 1, not completed). */
  updatedAt: Date | null;
  device: string | null;
}

/** What a reading app says about its place beyond the page, kept to give back to it. */
export interface ProgressExtra {
  /** KOReader's own position string. */
  koreaderProgress?: string | null;
  /** The app's name and id of the device (KOReader's device and device_id, OPDS 2's device). */
  deviceName?: string | null;
  deviceId?: string | null;
  /** KOReader's percentage, 0…1. */
  percentage?: number | null;
  /** When the place was taken (an OPDS 2 document's `modified`); now when absent. */
  at?: Date;
}

export interface ProgressInput {
  page?: unknown;
  completed?: unknown;
}

export interface ContinueEntry {
  file: ReaderFileRow;
  seriesTitle: string;
  progress: FileProgress;
}

const toProgressFile = (f: ReaderFileRow): ProgressFile => ({
  id: f.id,
  kind: f.kind,
  volume: f.volume === null ? null : parseLabel(f.volume),
  chapter: f.chapter === null ? null : parseLabel(f.chapter),
  chapterEnd: f.chapterEnd === null ? null : parseLabel(f.chapterEnd),
  part: f.part,
  pageCount: f.pageCount,
});

const toValue = (r: ProgressRow): ProgressValue => ({
  page: r.page,
  completed: r.completed,
  updatedAt: r.updatedAt.getTime(),
});

export function progressView(
  file: Pick<ReaderFileRow, "id" | "pageCount">,
  row: ProgressRow | null | undefined,
): FileProgress {
  if (!row)
    return { fileId: file.id, page: 1, completed: false, pageCount: file.pageCount, updatedAt: null, device: null };
  return {
    fileId: file.id,
    page: clampPage(row.page, file.pageCount),
    completed: row.completed,
    pageCount: file.pageCount,
    updatedAt: row.updatedAt,
    device: row.device,
  };
}

/** Validates `{ page, completed }` against the file's page count (Komga's rule: page required unless completed). */
export function checkProgressInput(input: ProgressInput, pageCount: number): { page: number; completed: boolean } {
  if (typeof input !== "object" || input === null) throw new AppError("bad_request", "send { page, completed }");
  const { page, completed } = input;
  if (completed !== undefined && completed !== null && typeof completed !== "boolean")
    throw new AppError("invalid_field", "completed must be true or false", { field: "completed" });
  const done = completed === true;
  if (page === undefined || page === null) {
    if (!done) throw new AppError("invalid_field", "page is required unless completed is true", { field: "page" });
    return { page: Math.max(1, pageCount), completed: true };
  }
  if (typeof page !== "number" || !Number.isSafeInteger(page) || page < 1)
    throw new AppError("invalid_field", "page is a whole number from 1 (the page to open next)", { field: "page" });
  if (page > Math.max(1, pageCount))
    throw new AppError("invalid_field", `page ${page} is past the last page (${pageCount})`, { field: "page" });
  return { page, completed: done };
}

export function readingService(ctx: AppContext, units: UnitsService) {
  const repo = readingRepo(ctx.db);

  async function activeFile(fileId: number): Promise<ReaderFileRow> {
    const f = Number.isSafeInteger(fileId) ? await repo.activeFile(fileId) : null;
    if (!f) throw new AppError("file_not_found", `no library file ${fileId} on disk`);
    return f;
  }

  /** Book layouts of the active books of a series (assembled: its provenance; otherwise its exact map entry). */
  async function layouts(seriesId: number, files: ReaderFileRow[]): Promise<Map<number, LayoutEntry[]>> {
    const byId = new Map(files.map((f) => [f.id, f]));
    const books = files.filter((f) => f.state === "active" && f.kind === "book");
    const out = new Map<number, LayoutEntry[]>();
    const provenance = await repo.assembledProvenance(books.map((b) => b.id));
    for (const [bookId, json] of provenance) {
      try {
        const p = JSON.parse(json) as { sources?: { fileId: number; chapter: string; part: number | null }[] };
        const entries = (p.sources ?? []).map((s) => ({
          chapter: label(s.chapter),
          part: s.part ?? null,
          pages: byId.get(s.fileId)?.pageCount ?? 0,
          fileId: s.fileId,
        }));
        if (entries.length > 0) out.set(bookId, entries);
      } catch {
        // An unreadable provenance gives no layout: the book is then matched like any other.
      }
    }
    const others = books.filter((b) => !out.has(b.id) && b.volume !== null);
    if (others.length === 0) return out;
    // Books the service did not assemble: their chapters from the exact map, each chapter's pages
    // from its latest chapter file (the best page count known for it).
    const view = await units.units(seriesId);
    const chapterFiles = files.filter((f) => f.kind === "chapter" && f.chapter !== null);
    for (const b of others) {
      const chapters = view.units.filter((u) => u.kind === "chapter" && u.book !== null && b.volume === u.book);
      const entries: LayoutEntry[] = [];
      for (const u of chapters) {
        const copies = chapterFiles
          .filter((f) => parseLabel(f.chapter!) === u.number)
          .sort((x, y) => (x.part ?? 0) - (y.part ?? 0) || y.id - x.id);
        const parts = [...new Map(copies.map((f) => [f.part ?? 0, f])).values()];
        if (parts.length === 0) entries.push({ chapter: u.number, part: null, pages: 0, fileId: null });
        for (const f of parts) entries.push({ chapter: u.number, part: f.part, pages: f.pageCount, fileId: null });
      }
      if (entries.length > 0) out.set(b.id, entries);
    }
    return out;
  }

  /**
   * Places written after the answer (page streaming: the page goes out while its place is stored),
   * chained per user and file so they land in order. Every read of the store waits for them first,
   * so whoever asks next sees them. Measured: the commit was most of a streamed page's time.
   */
  const inflight = new Map<string, Promise<unknown>>();
  const settled = async () => {
    if (inflight.size > 0) await Promise.allSettled([...inflight.values()]);
  };

  const service = {
    /** Stores a place after the caller has answered (see `inflight`); failures are logged. */
    setLater(user: string, fileId: number, input: ProgressInput, device: ProgressDevice): void {
      const key = `${user}\u0000${fileId}`;
      const next = (inflight.get(key) ?? Promise.resolve())
        .then(() => service.set(user, fileId, input, device))
        .catch((e: unknown) => ctx.log(`reading: storing the place in file ${fileId} failed: ${(e as Error).message}`));
      inflight.set(key, next);
      void next.finally(() => {
        if (inflight.get(key) === next) inflight.delete(key);
      });
    },

    /** Resolves when every place written after an answer is stored. */
    settled,

    async get(user: string, fileId: number): Promise<FileProgress> {
      await settled();
      const f = await activeFile(fileId);
      return progressView(f, await repo.progress(user, f.id));
    },

    async set(
      user: string,
      fileId: number,
      input: ProgressInput,
      device: ProgressDevice,
      extra: ProgressExtra = {},
    ): Promise<FileProgress> {
      const f = await activeFile(fileId);
      const v = checkProgressInput(input, f.pageCount);
      // Every write replaces the app's own facts: what another writer left describes an older place.
      const row = await repo.saveProgress(user, f.id, {
        page: v.page,
        completed: v.completed,
        device,
        koreaderProgress: extra.koreaderProgress ?? null,
        deviceName: extra.deviceName ?? null,
        deviceId: extra.deviceId ?? null,
        percentage: extra.percentage ?? null,
        updatedAt: extra.at ?? new Date(),
      });
      ctx.events.publish("series_changed", f.seriesId);
      return progressView(f, row);
    },

    /** Forgets the user's place in the file (Komga's "mark as unread"). */
    async clear(user: string, fileId: number): Promise<FileProgress> {
      await settled();
      const f = await activeFile(fileId);
      await repo.clearProgress(user, [f.id]);
      return progressView(f, null);
    },

    /** Places for many files at once (feeds and lists): one select. */
    async many(user: string, files: ReaderFileRow[]): Promise<Map<number, FileProgress>> {
      await settled();
      const rows = new Map(
        (
          await repo.progressFor(
            user,
            files.map((f) => f.id),
          )
        ).map((r) => [r.fileId, r]),
      );
      return new Map(files.map((f) => [f.id, progressView(f, rows.get(f.id))]));
    },

    /** Raw rows (null: never opened), for callers that must tell "no progress" from page 1. */
    rows: async (user: string, fileIds: number[]) =>
      settled().then(async () => new Map((await repo.progressFor(user, fileIds)).map((r) => [r.fileId, r]))),

    /**
     * Continue reading: files the user opened and has not finished, newest first; then, per series
     * whose last touched file is finished, the next file in reading order. `seriesId` narrows to one series.
     */
    async continueReading(user: string, options: { seriesId?: number; limit?: number } = {}): Promise<ContinueEntry[]> {
      await settled();
      // A series filter names a series, as every other one does: an unknown one is 404, not an empty list.
      if (options.seriesId !== undefined && !(await repo.series(options.seriesId)))
        throw new AppError("series_not_found", `series ${options.seriesId} does not exist`);
      // A limit is a positive integer, as REST reads it (asId); past 200 it is 200.
      const limit = Math.min(options.limit === undefined ? 20 : asId(options.limit, "limit"), 200);
      const recent = await repo.recentProgress(user, { seriesId: options.seriesId, take: 400 });
      const titles = new Map<number, string>();
      const title = async (seriesId: number) => {
        if (!titles.has(seriesId)) titles.set(seriesId, (await repo.series(seriesId))?.title ?? "");
        return titles.get(seriesId)!;
      };
      const out: ContinueEntry[] = [];
      const seenSeries = new Set<number>();
      for (const { progress, file } of recent) {
        if (out.length >= limit) break;
        if (seenSeries.has(file.seriesId)) continue;
        seenSeries.add(file.seriesId);
        if (!progress.completed) {
          out.push({ file, seriesTitle: await title(file.seriesId), progress: progressView(file, progress) });
          continue;
        }
        // The last touched file is finished: offer the next unfinished one in reading order.
        const order = await service.readingOrder(file.seriesId);
        const at = order.findIndex((f) => f.id === file.id);
        const rows = await service.rows(
          user,
          order.map((f) => f.id),
        );
        const next = order.slice(at + 1).find((f) => !rows.get(f.id)?.completed);
        if (next)
          out.push({
            file: next,
            seriesTitle: await title(next.seriesId),
            progress: progressView(next, rows.get(next.id)),
          });
      }
      return out;
    },

    /** The active files of a series in reading order (the units view's order; duplicates once). */
    async readingOrder(seriesId: number): Promise<ReaderFileRow[]> {
      const view = await units.units(seriesId);
      const files = new Map((await repo.filesOfSeries(seriesId)).map((f) => [f.id, f]));
      const out: ReaderFileRow[] = [];
      const seen = new Set<number>();
      for (const u of view.units) {
        const ids = [...u.fileIds].sort((a, b) => (files.get(a)?.part ?? 0) - (files.get(b)?.part ?? 0) || a - b);
        for (const id of ids) {
          const f = files.get(id);
          if (f && !seen.has(id)) {
            seen.add(id);
            out.push(f);
          }
        }
      }
      // Files the units view does not list (none today) still come last, never lost.
      for (const f of files.values()) if (!seen.has(f.id)) out.push(f);
      return out;
    },

    /** Moves the places left on files that left the series' library to what holds their content now. */
    async follow(seriesId: number): Promise<number> {
      await settled();
      const pending = await repo.pendingInSeries(seriesId);
      if (pending.length === 0) return 0;
      const files = await repo.filesOfSeries(seriesId, "any");
      const byId = new Map(files.map((f) => [f.id, f]));
      const active = files.filter((f) => f.state === "active");
      const bookLayouts = await layouts(seriesId, files);
      let moved = 0;
      for (const user of [...new Set(pending.map((p) => p.userName))]) {
        const mine = pending.filter((p) => p.userName === user && byId.has(p.fileId));
        const existing = new Map(
          (
            await repo.progressFor(
              user,
              active.map((f) => f.id),
            )
          ).map((r) => [r.fileId, toValue(r)] as const),
        );
        const moves = followProgress({
          pending: mine.map((p) => ({ file: toProgressFile(byId.get(p.fileId)!), progress: toValue(p) })),
          active: active.map(toProgressFile),
          existing,
          layouts: bookLayouts,
        });
        await repo.applyMoves(
          user,
          moves.map((m) => ({
            from: m.from,
            to: m.to,
            progress: m.progress && {
              page: m.progress.page,
              completed: m.progress.completed,
              updatedAt: new Date(m.progress.updatedAt),
            },
          })),
        );
        moved += moves.length;
      }
      if (moved > 0) ctx.log(`reading: progress of series ${seriesId} followed its content (${moved} move(s))`);
      return moved;
    },

    /** After a scan: every series holding places on files that left the library. */
    async followAll(): Promise<void> {
      for (const seriesId of await repo.seriesWithPending()) await service.follow(seriesId);
    },

    repo,
  };
  return service;
}

export type ReadingService = ReturnType<typeof readingService>;

/**
 * The publication, whose publications and retirements are followed by the progress step for the
 * series they touched (a failure of the step is logged; the file operation stands).
 */
export function publicationWithProgress(
  ctx: AppContext,
  publication: Publication,
  reading: () => ReadingService,
): Publication {
  const follow = async (seriesIds: Iterable<number>) => {
    for (const id of new Set(seriesIds)) {
      await reading()
        .follow(id)
        .catch((e: unknown) => ctx.log(`reading: following progress in series ${id} failed: ${(e as Error).message}`));
    }
  };
  return {
    ...publication,
    async publish(input) {
      const result = await publication.publish(input);
      await follow([input.seriesId]);
      return result;
    },
    async retire(fileIds, reason) {
      const retired = await publication.retire(fileIds, reason);
      const files = await reading().repo.filesByIds(retired.map((r) => r.fileId));
      await follow(files.map((f) => f.seriesId));
      return retired;
    },
  };
}

/** The scan, followed by the progress step for every series with places on files that left. */
export function scanWithProgress<S extends { scan(): Promise<unknown> }>(
  ctx: AppContext,
  scan: S,
  reading: () => ReadingService,
): S {
  return {
    ...scan,
    scan: (async () => {
      const result = await scan.scan();
      await reading()
        .followAll()
        .catch((e: unknown) => ctx.log(`reading: following progress after the scan failed: ${(e as Error).message}`));
      return result;
    }) as S["scan"],
  };
}
