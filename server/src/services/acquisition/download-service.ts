/**
 * Downloads on their way into the library: the conformity judgement of a fetched chapter before it
 * is packaged (docs/rules.md, "Content conformity of downloads"), and the list the API shows. A degraded download stays
 * out of the library — judging writes nothing to disk — and is marked as needing a replacement
 * from another source (the search for one comes later; the state is exposed now).
 *
 * The series' shape the judgement uses (its median page aspect, or a webtoon never judged for
 * strips) comes from series-page-shape.ts.
 */
import {
  judgeChapter,
  parseStoredVerdict,
  verdictJson,
  type ConformityFigures,
  type ConformityReason,
  type ConformityVerdict,
} from "../../domain/conformity.ts";
import {
  isBlockable,
  isCancellable,
  JOB_STATES as DOWNLOAD_STATES,
  type JobState as DownloadState,
} from "../../domain/download-jobs.ts";
import { AppError, isAppError } from "../../errors.ts";
import type { DownloadRow as Download } from "../../repositories/download-repo.ts";
import { statsOfPages, type PageStats } from "../../library/page-stats.ts";
import type { AppContext } from "../context.ts";
import { activeDownloads, activeImports } from "../../repositories/audit-repo.ts";
import { downloadClaimKey } from "./download-pipeline-job.ts";
import { seriesPageShape } from "./series-page-shape.ts";

/** The download states are the job machine's (domain/download-jobs.ts). */
export { JOB_STATES as DOWNLOAD_STATES, type JobState as DownloadState } from "../../domain/download-jobs.ts";
/** States before packaging: the pages may still be judged. */
export const JUDGEABLE_STATES: readonly DownloadState[] = ["queued", "fetching", "judging"];

export interface DownloadView {
  id: number;
  seriesId: number;
  kind: "chapter" | "volume";
  volume: string | null;
  chapter: string | null;
  part: number | null;
  language: string;
  state: DownloadState;
  needsReplacement: boolean;
  verdict: { reasons: ConformityReason[]; figures: ConformityFigures } | null;
  error: string | null;
  createdAt: Date;
  /** Pipeline progress: attempts started, pages fetched of the total, the back-off end. */
  attempts: number;
  pagesDone: number;
  pagesTotal: number | null;
  nextAttemptAt: Date | null;
  cancelRequested: boolean;
  /** The operator may still cancel it (decided by the job machine). */
  cancellable: boolean;
  providerName: string | null;
  externalId: string | null;
  scanlator: string | null;
  fileId: number | null;
  replacesFileId: number | null;
  /** The operator blocked its release (the blocklist). */
  blocked: boolean;
  /** The operator may block its release now (domain/download-jobs.ts isBlockable). */
  blockable: boolean;
}

/** A row with, when loaded, its mapping's provider (the name shown in the queue). */
export type DownloadRow = Download & {
  sourceMapping?: { provider: { name: string }; blockedReleases?: { externalId: string }[] } | null;
};

export function downloadView(row: DownloadRow): DownloadView {
  const stored = parseStoredVerdict(row.verdict);
  const state = (DOWNLOAD_STATES as readonly string[]).includes(row.state) ? (row.state as DownloadState) : "failed";
  const blocked = (row.sourceMapping?.blockedReleases ?? []).some((b) => b.externalId === row.externalId);
  return {
    id: row.id,
    seriesId: row.seriesId,
    kind: row.kind === "volume" ? "volume" : "chapter",
    volume: row.volume,
    chapter: row.chapter,
    part: row.part,
    language: row.language,
    state,
    needsReplacement: row.needsReplacement,
    verdict: stored ? { reasons: stored.reasons, figures: stored.figures } : null,
    error: row.error,
    createdAt: row.createdAt,
    attempts: row.attempts,
    pagesDone: row.pagesDone,
    pagesTotal: row.pagesTotal,
    nextAttemptAt: row.nextAttemptAt,
    cancelRequested: row.cancelRequested,
    cancellable: isCancellable(state, row.cancelRequested),
    providerName: row.sourceMapping?.provider.name ?? null,
    externalId: row.externalId,
    scanlator: row.scanlator,
    fileId: row.fileId,
    replacesFileId: row.replacesFileId,
    blocked,
    blockable: isBlockable(state, row.sourceMappingId !== null && row.externalId !== null, blocked),
  };
}

export function downloadService(ctx: AppContext) {
  const store = ctx.repos.downloads;
  const shapes = seriesPageShape(ctx);

  /** Stores the verdict (judging → degraded | publishing) and says so. */
  async function record(row: Download, verdict: ConformityVerdict, attempt?: number): Promise<ConformityVerdict> {
    const degraded = verdict.verdict === "degraded";
    const written = await store.transition(
      row.id,
      "judging",
      {
        state: degraded ? "degraded" : "publishing",
        verdict: verdictJson(verdict),
        needsReplacement: degraded,
        error: null,
      },
      attempt,
    );
    if (!written) throw new AppError("download_not_judgeable", `download ${row.id} changed state while it was judged`);
    if (degraded) {
      const f = verdict.figures;
      ctx.log(
        `download ${row.id} (series ${row.seriesId}) degraded: ${verdict.reasons.join(", ")} — ${f.blackCards}/${f.pages} black cards, median aspect ${f.medianAspect?.toFixed(2) ?? "?"}`,
      );
    }
    ctx.events.publish("series_changed", row.seriesId);
    return verdict;
  }
  // Downloads being judged by this process: a second judge() of the same one is refused, not raced.
  const judging = new Set<number>();

  async function requireRow(id: number): Promise<Download> {
    const row = await store.get(id);
    if (!row) throw new AppError("download_not_found", `download ${id} does not exist`);
    return row;
  }

  return {
    /**
     * Judges the fetched pages of a download before packaging: degraded (kept out of the library,
     * needs a replacement) or passed on to `publishing`. A page that is no readable image fails the
     * download (state `failed`, the coded error recorded) and the error is rethrown.
     */
    async judge(
      downloadId: number,
      pages: readonly Buffer[],
    ): Promise<{ download: DownloadView; verdict: ConformityVerdict }> {
      if (judging.has(downloadId))
        throw new AppError("download_not_judgeable", `download ${downloadId} is being judged already`);
      judging.add(downloadId);
      // Held while it is judged here, so no instance's recovery pass takes the row over meanwhile.
      const claim = downloadClaimKey(downloadId);
      let claimed = false;
      try {
        if (!(claimed = await ctx.cluster.claimAlone(claim)))
          throw new AppError("download_not_judgeable", `download ${downloadId} is being worked on`);
        const row = await requireRow(downloadId);
        if (!(JUDGEABLE_STATES as readonly string[]).includes(row.state)) {
          throw new AppError(
            "download_not_judgeable",
            `download ${downloadId} is ${row.state}: only ${JUDGEABLE_STATES.join(", ")} downloads are judged`,
            {
              state: row.state,
            },
          );
        }
        if (pages.length === 0) throw new AppError("bad_request", "a download without pages cannot be judged");
        if (!(await store.transition(row.id, row.state, { state: "judging" }))) {
          throw new AppError("download_not_judgeable", `download ${downloadId} changed state while it was read`);
        }
        const shape = await shapes.of(row.seriesId, row.id);

        let stats: Awaited<ReturnType<typeof statsOfPages>>;
        try {
          stats = await statsOfPages(pages, 2, ctx.config.archiveLimits);
        } catch (e) {
          const err = isAppError(e) ? e : new AppError("image_unreadable", "a page could not be measured");
          await store.transition(row.id, "judging", { state: "failed", error: `${err.code}: ${err.message}` });
          ctx.events.publish("series_changed", row.seriesId);
          throw err;
        }

        const verdict = await record(row, judgeChapter(stats, shape));
        return { download: downloadView(await requireRow(row.id)), verdict };
      } finally {
        judging.delete(downloadId);
        if (claimed) await ctx.cluster.release([claim]);
      }
    },

    /**
     * The verdict of a download whose pages were measured while they were fetched (the pipeline):
     * fetching → judging → degraded | publishing, from the page statistics alone, written only while
     * `attempt` is the row's (a row taken over by another instance is not judged by the old attempt).
     */
    async judgeStats(downloadId: number, stats: readonly PageStats[], attempt?: number): Promise<ConformityVerdict> {
      if (judging.has(downloadId))
        throw new AppError("download_not_judgeable", `download ${downloadId} is being judged already`);
      judging.add(downloadId);
      try {
        const row = await requireRow(downloadId);
        if (stats.length === 0) throw new AppError("bad_request", "a download without pages cannot be judged");
        if (
          !(JUDGEABLE_STATES as readonly string[]).includes(row.state) ||
          !(await store.transition(row.id, row.state, { state: "judging" }, attempt))
        )
          throw new AppError("download_not_judgeable", `download ${downloadId} is ${row.state}`, { state: row.state });
        return await record(row, judgeChapter([...stats], await shapes.of(row.seriesId, row.id)), attempt);
      } finally {
        judging.delete(downloadId);
      }
    },

    /** The downloads of a series, newest first. */
    async list(seriesId: number): Promise<DownloadView[]> {
      if (!(await ctx.repos.series.get(seriesId)))
        throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      return (await ctx.repos.downloads.viewRowsOfSeries(seriesId)).map(downloadView);
    },

    async get(id: number): Promise<DownloadView> {
      return downloadView(await ctx.repos.downloads.viewRow((await requireRow(id)).id));
    },
  };
}

export type DownloadService = ReturnType<typeof downloadService>;

/**
 * Moving a series' files waits for its downloads and imports (a torrent's books being imported, a
 * translation being published): they may publish into the same series.
 */
export async function requireNoActiveDownload(ctx: AppContext, seriesId: number): Promise<void> {
  const [active, imports] = await Promise.all([activeDownloads(ctx.db, seriesId), activeImports(ctx.db, seriesId)]);
  if (active > 0)
    throw new AppError(
      "download_active",
      `${active} download(s) of this series are under way: try again when they end`,
      {
        active_downloads: active,
      },
    );
  if (imports > 0)
    throw new AppError(
      "download_active",
      `${imports} import(s) into this series are under way: try again when they end`,
      {
        active_imports: imports,
      },
    );
}
