/**
 * The blocklist, as users of the *arr apps know it: a download cancelled with "block", or a failed
 * or cancelled one blocked afterwards, puts its release (source mapping + the source's release id) on the list,
 * and the Wanted pass, a slot's Search and the recovery of degraded files never choose it again
 * (domain/wanted.ts). Other releases of the same source still can be. Removing an entry lifts the
 * block. Picking a blocked release by hand in the Interactive search still queues it: the operator's
 * choice wins, as it does for a release that came out degraded.
 */
import { isBlockable, LIVE_JOB_STATES, type JobState } from "../../domain/download-jobs.ts";
import { AppError } from "../../errors.ts";
import { blocklistRepo, type BlockedReleaseRow } from "../../repositories/blocklist-repo.ts";
import type { AppContext } from "../context.ts";
import type { DownloadPipeline } from "./download-pipeline.ts";
import type { DownloadService, DownloadView } from "./download-service.ts";
import type { WantedService } from "./wanted-service.ts";

export interface BlockedReleaseView {
  id: number;
  seriesId: number;
  seriesTitle: string;
  sourceMappingId: number;
  providerName: string;
  externalId: string;
  kind: "chapter" | "volume";
  volume: string | null;
  chapter: string | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  downloadId: number | null;
  createdAt: Date;
}

function view(row: BlockedReleaseRow): BlockedReleaseView {
  return {
    id: row.id,
    seriesId: row.seriesId,
    seriesTitle: row.series.title,
    sourceMappingId: row.sourceMappingId,
    providerName: row.sourceMapping.provider.name,
    externalId: row.externalId,
    kind: row.kind === "volume" ? "volume" : "chapter",
    volume: row.volume,
    chapter: row.chapter,
    part: row.part,
    language: row.language,
    scanlator: row.scanlator,
    downloadId: row.downloadId,
    createdAt: row.createdAt,
  };
}

export function blocklistService(
  ctx: AppContext,
  deps: {
    pipeline: Pick<DownloadPipeline, "cancel">;
    downloads: Pick<DownloadService, "get">;
    wanted: Pick<WantedService, "runPass">;
  },
) {
  const repo = blocklistRepo(ctx.db);

  /** The download's release, or why it cannot be blocked (checked before anything changes). */
  async function releaseOf(downloadId: number, withCancel: boolean) {
    const row = await ctx.repos.downloads.get(downloadId);
    if (!row) throw new AppError("download_not_found", `download ${downloadId} does not exist`);
    const state = row.state as JobState;
    if (row.sourceMappingId === null || row.externalId === null)
      throw new AppError("download_not_blockable", `download ${downloadId} names no release of a linked source`, {
        state,
      });
    // Blocking again answers the entry there is (not "blocked" here: isBlockable's third argument).
    if (!withCancel && !isBlockable(state, true, false))
      throw new AppError(
        "download_not_blockable",
        LIVE_JOB_STATES.includes(state)
          ? `download ${downloadId} is ${state}: cancel it with block instead`
          : state === "degraded"
            ? `download ${downloadId} is degraded: its release is blocked already`
            : `download ${downloadId} is ${state}: its file is in the library (the audit retires it and rejects its source)`,
        { state },
      );
    return { ...row, sourceMappingId: row.sourceMappingId, externalId: row.externalId };
  }

  async function add(row: Awaited<ReturnType<typeof releaseOf>>): Promise<BlockedReleaseView> {
    const entry = await repo.add({
      seriesId: row.seriesId,
      sourceMappingId: row.sourceMappingId,
      externalId: row.externalId,
      kind: row.kind,
      volume: row.volume,
      chapter: row.chapter,
      part: row.part,
      language: row.language,
      scanlator: row.scanlator,
      downloadId: row.id,
    });
    return view(entry);
  }

  /** Looks for another release at once, as an operator's Wanted run does (in the background). */
  function searchAgain(seriesId: number): void {
    deps.wanted
      .runPass(seriesId, { force: true })
      .catch((e: unknown) => ctx.log(`wanted: pass after a block in series ${seriesId}: ${(e as Error).message}`));
  }

  return {
    /** Newest first (at most 500); of one series, or of all. */
    async list(seriesId?: number): Promise<BlockedReleaseView[]> {
      if (seriesId !== undefined && !(await ctx.repos.series.get(seriesId)))
        throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      return (await repo.list(seriesId)).map(view);
    },

    /** Cancels a download and, with `block`, blocks its release (nothing changes when either is refused). */
    async cancel(downloadId: number, block: boolean): Promise<DownloadView> {
      if (!block) return deps.pipeline.cancel(downloadId);
      const row = await releaseOf(downloadId, true);
      await deps.pipeline.cancel(downloadId);
      await add(row);
      searchAgain(row.seriesId);
      // Read again: the answer says the release is blocked now.
      return deps.downloads.get(downloadId);
    },

    /** Blocks the release of a failed or cancelled download. */
    async block(downloadId: number): Promise<BlockedReleaseView> {
      const entry = await add(await releaseOf(downloadId, false));
      searchAgain(entry.seriesId);
      return entry;
    },

    /** Lifts a block: the release may be chosen again by the next Wanted pass. */
    async remove(id: number): Promise<void> {
      if (!(await repo.remove(id))) throw new AppError("blocked_release_not_found", `no blocked release ${id}`);
    },
  };
}

export type BlocklistService = ReturnType<typeof blocklistService>;
