/**
 * The indexer/torrent channel for whole books (Prowlarr + qBittorrent), optional and off by
 * default. `fetchBooks` searches the series title, keeps releases that name the series and number
 * the wanted books, takes the smallest torrent covering some of them (again until none is left),
 * adds it to qBittorrent under our category and tag with automatic management off, and records a
 * TorrentJob with the books it was taken for. `poll` follows our jobs: a completed torrent has
 * only its requested books imported (book-channel-import.ts); the retention action runs only
 * after that import succeeded.
 *
 * Job states: added → downloading → completed → importing → imported → removed, or failed; a
 * requested book no file is named for (or several are) sends the job to `awaiting_assignment` until
 * an operator assigns it a file of the torrent (`assign`, through `assigning`) or owns the book
 * otherwise. Each move is conditional on the state read, so overlapping polls cannot import twice.
 */
import { asLabel, invalidField } from "../input.ts";
import { labelEquals, type Label } from "../../domain/labels.ts";
import {
  assignmentRefusal,
  describeFiles,
  withoutBook,
  type PendingBook,
  type TorrentFileView,
} from "../../domain/torrent-assignment.ts";
import { AppError } from "../../errors.ts";
import type { Publication } from "../../library/publication.ts";
import { ProviderError, type BookChannel } from "../../providers/provider.ts";
import { isBroken, isComplete, isSeeded, type QbtClient, type QbtTorrent } from "../../providers/qbittorrent.ts";
import { torrentRepo, type TorrentJobRow, type TorrentState } from "../../repositories/torrent-repo.ts";
import {
  stageForeignBooks,
  stageForeignFile,
  translationsImported,
  type ForeignTranslations,
} from "./book-channel-foreign.ts";
import { importBookFile, importTorrentBooks, localFileOf, placeOf } from "./book-channel-import.ts";
import {
  indexerSettingsStore,
  isActive,
  prowlarrReady,
  qbittorrentReady,
  type IndexerConfig,
  type IndexerSettingsView,
  type Retention,
  type IndexerSettingsInput,
} from "./book-channel-settings.ts";
import type { AppContext } from "../context.ts";
import { libraryFolderState } from "../../library/library-root.ts";
import { bookGrabber, messageOf, type BookResult } from "./book-channel-grab.ts";

export type { TorrentJobRow } from "../../repositories/torrent-repo.ts";
export type { IndexerSettingsView } from "./book-channel-settings.ts";

/** A torrent job's files as an operator assigns them. */
export interface TorrentFilesView {
  job: TorrentJobRow;
  files: TorrentFileView[];
}

/** Dismissing a torrent job; with removeFromClient the torrent (ours) is removed from the client with its files. */
export interface DismissInput {
  removeFromClient?: boolean | null;
}

/** Assigning files of a torrent to the books waiting in it: each file and book at most once. */
export interface AssignInput {
  assignments: readonly { file: string; book: string }[];
}

/** One file of the torrent for one book. */
export interface TorrentAssignment {
  file: string;
  book: Label;
}

/** Whether one outside service answers the saved settings. */
export interface ConnectionCheck {
  status: "ok" | "failed" | "off";
  /** Why it failed or is off; null when it answered. */
  detail: string | null;
}

export interface IndexerCheck {
  /** `indexers`: how many of Prowlarr's indexers are enabled. */
  prowlarr: ConnectionCheck & { indexers: number | null };
  qbittorrent: ConnectionCheck & { version: string | null };
}

/** One outside service asked with the saved settings: its answer, or why there is none. */
async function probe<T>(
  ready: boolean,
  offDetail: string,
  ask: () => Promise<T>,
): Promise<ConnectionCheck & { answer: T | null }> {
  if (!ready) return { status: "off", detail: offDetail, answer: null };
  try {
    return { status: "ok", detail: null, answer: await ask() };
  } catch (e) {
    return { status: "failed", detail: messageOf(e), answer: null };
  }
}

export function bookChannelService(
  ctx: AppContext,
  publication: Pick<Publication, "publish">,
  translations?: ForeignTranslations,
) {
  const settings = indexerSettingsStore(ctx);
  const jobs = torrentRepo(ctx.db);
  const { grab, torrentClient, indexer } = bookGrabber(ctx, settings, jobs);
  let polling: Promise<void> | null = null;
  /** Jobs whose assignment runs in this process now: a poll leaves their `assigning` state alone. */
  const assigningNow = new Set<number>();

  const fetchBooks = (seriesId: number, books: readonly Label[]) => grab(seriesId, books, { kind: "native" });

  /**
   * Foreign books for the translation fallback (docs/rules.md, "Translation fallback" 6): a result must name
   * the series, number the books and carry a marker of one of the ordered source languages; the torrent's
   * books are staged as translation sources on completion, never published.
   */
  async function fetchForeignBooks(
    seriesId: number,
    books: readonly Label[],
    sources: readonly string[],
  ): Promise<BookResult[]> {
    if (sources.length === 0 || !translations)
      return [...new Set(books)].map((book) => ({
        book,
        outcome: "disabled",
        detail: "no source language or no translation service",
      }));
    return grab(seriesId, books, { kind: "translation", sources });
  }

  async function fail(job: TorrentJobRow, from: TorrentState, e: unknown, imported?: number[]): Promise<void> {
    const error = messageOf(e);
    ctx.log(`book channel: torrent job ${job.id}: ${error}`);
    await jobs.transition(job.id, from, "failed", { error, ...(imported ? { imported } : {}) });
  }

  /** The retention action, only ever for an imported job. */
  async function retain(
    job: TorrentJobRow,
    t: QbtTorrent | undefined,
    client: QbtClient,
    c: IndexerConfig,
  ): Promise<void> {
    const retention = (job.retention ?? c.qbittorrent.retention) as Retention;
    if (retention === "keep_seeding") return;
    // A translation torrent is kept until every translation made from it is imported.
    if (job.purpose === "translation" && !(await translationsImported(ctx, job))) return;
    if (t && retention === "remove_when_seeded" && !isSeeded(t)) return;
    // The torrent was fetched for the library only; its copies are in the library now.
    if (t) await client.delete([job.infoHash], true);
    if (await jobs.transition(job.id, "imported", "removed"))
      ctx.log(`book channel: torrent job ${job.id}: removed from the client (${retention})`);
  }

  async function step(
    job: TorrentJobRow,
    t: QbtTorrent | undefined,
    client: QbtClient,
    c: IndexerConfig,
  ): Promise<void> {
    let state = job.state;
    if (state === "imported") return retain(job, t, client, c);
    if (state === "assigning") {
      // Found by a poll while no assignment runs here: interrupted (a restart). Published books are
      // owned, so they leave the pending list below; the rest waits for the operator again.
      if (!assigningNow.has(job.id)) await jobs.transition(job.id, "assigning", "awaiting_assignment");
      return;
    }
    if (!t) return fail(job, state, new Error(`the torrent ${job.infoHash} is no longer in the client`));
    if (state === "awaiting_assignment") return settle(job, t, client, c);
    if (state === "added" || state === "downloading") {
      if (isBroken(t))
        return fail(job, state, new Error(`qBittorrent reports the torrent ${job.infoHash} as ${t.state}`));
      if (!isComplete(t)) {
        if (state === "added") await jobs.transition(job.id, "added", "downloading");
        return;
      }
      if (!(await jobs.transition(job.id, state, "completed", { contentPath: t.contentPath }))) return;
      state = "completed";
    }
    // The books are copied into the library: while its folder is missing or an empty mount point (an
    // unmounted disk), the finished torrent waits, as queued downloads do (library-root.ts).
    if ((await libraryFolderState(ctx)) !== "present") return waitForLibrary(job, state);
    // "importing" found here was interrupted (a restart): import again, owned books are skipped.
    if (!(await jobs.transition(job.id, state, "importing"))) return;
    const mount = c.qbittorrent.mount;
    let outcome: Awaited<ReturnType<typeof importTorrentBooks>>;
    try {
      if (!mount)
        throw new AppError("invalid_field", "qbittorrent.mount is not configured", { field: "qbittorrent.mount" });
      const files = await client.files(job.infoHash);
      outcome =
        job.purpose === "translation"
          ? await stageForeignBooks(ctx, translations, job, t, files, mount)
          : await importTorrentBooks(ctx, publication, job, t, files, mount);
    } catch (e) {
      // The client briefly unreachable is no reason to give the torrent up: import again next poll.
      if (e instanceof ProviderError && e.transient) {
        await jobs.transition(job.id, "importing", "completed");
        throw e;
      }
      return fail(job, "importing", e);
    }
    if (outcome.waitingForLibrary) return waitForLibrary(job, "importing", outcome.imported);
    if (outcome.failed.length > 0)
      return fail(job, "importing", new Error(outcome.failed.join("; ")), outcome.imported);
    if (outcome.pending.length > 0) {
      const moved = await jobs.transition(job.id, "importing", "awaiting_assignment", {
        imported: outcome.imported,
        pending: outcome.pending,
        error: null,
      });
      if (!moved) return;
      ctx.log(
        `book channel: torrent job ${job.id}: imported ${outcome.imported.length} file(s); needs_explicit_assignment: ${outcome.pending
          .map((p) => `book ${p.book} (${p.reason})`)
          .join(", ")}`,
      );
      ctx.events.publish("series_changed", job.seriesId);
      return;
    }
    if (!(await jobs.transition(job.id, "importing", "imported", { imported: outcome.imported, error: null }))) return;
    ctx.log(`book channel: torrent job ${job.id}: imported ${outcome.imported.length} file(s)`);
    await retain({ ...job, state: "imported" }, t, client, c);
  }

  /** A finished torrent stays `completed` until the library folder is back; the next poll imports it. */
  async function waitForLibrary(job: TorrentJobRow, from: TorrentState, imported?: number[]): Promise<void> {
    if (from !== "completed" && !(await jobs.transition(job.id, from, "completed", imported ? { imported } : {})))
      return;
    ctx.log(`book channel: torrent job ${job.id}: waits for the library folder ${ctx.config.libraryRoot} to import`);
  }

  /** The books still waiting in this job: those owned meanwhile (another source) wait for nothing. */
  async function stillPending(job: TorrentJobRow): Promise<PendingBook[]> {
    const left: PendingBook[] = [];
    for (const p of job.pending) if ((await jobs.ownedBook(job.seriesId, p.book)) === null) left.push(p);
    return left;
  }

  /** A job awaiting an assignment whose books were all owned otherwise is done: imported, then retention. */
  async function settle(job: TorrentJobRow, t: QbtTorrent, client: QbtClient, c: IndexerConfig): Promise<void> {
    const left = await stillPending(job);
    if (left.length === job.pending.length) return;
    if (left.length > 0) {
      await jobs.transition(job.id, "awaiting_assignment", "awaiting_assignment", { pending: left });
      return;
    }
    if (!(await jobs.transition(job.id, "awaiting_assignment", "imported", { pending: [] }))) return;
    ctx.log(`book channel: torrent job ${job.id}: every book waiting for an assignment is owned`);
    ctx.events.publish("series_changed", job.seriesId);
    await retain({ ...job, state: "imported", pending: [] }, t, client, c);
  }

  async function jobOf(id: number): Promise<TorrentJobRow> {
    const job = await jobs.get(id);
    if (!job) throw new AppError("torrent_job_not_found", `torrent job ${id} does not exist`);
    return job;
  }

  /** The torrent's files as the client lists them now, with the book each is named for. */
  async function filesOf(job: TorrentJobRow, c: IndexerConfig): Promise<TorrentFileView[]> {
    if (!isActive(c)) throw new AppError("indexer_not_active", "the indexer/torrent channel is off or not configured");
    const series = await ctx.repos.series.get(job.seriesId);
    if (!series) throw new AppError("series_not_found", `series ${job.seriesId} does not exist`);
    return describeFiles(await torrentClient(c).files(job.infoHash), series.title);
  }

  /** The assignments' rules: 1 to 1000, each file and book at most once, books exact labels. */
  function assignmentsOf(input: AssignInput): TorrentAssignment[] {
    const list = input.assignments;
    if (list.length === 0) return invalidField("assignments", "a non-empty list of { file, book }");
    if (list.length > 1000) return invalidField("assignments", "at most 1000 assignments");
    const out = list.map((x, i) => {
      if (x.file.length === 0 || x.file.length > 4096)
        return invalidField(`assignments[${i}].file`, "the name of a file of the torrent, as listed");
      return { file: x.file, book: asLabel(x.book, `assignments[${i}].book`) };
    });
    out.forEach((a, i) => {
      if (out.findIndex((b) => b.file === a.file) !== i)
        invalidField(`assignments[${i}].file`, "a file can be assigned to one book only");
      if (out.findIndex((b) => labelEquals(b.book, a.book)) !== i)
        invalidField(`assignments[${i}].book`, "a book can be assigned one file only");
    });
    return out;
  }

  async function runPoll(): Promise<void> {
    const c = await settings.load();
    if (!isActive(c)) return;
    const open = (await jobs.open()).filter(
      (j) => !(j.state === "imported" && (j.retention ?? c.qbittorrent.retention) === "keep_seeding"),
    );
    if (open.length === 0) return;
    const client = torrentClient(c);
    let infos: QbtTorrent[];
    try {
      infos = await client.info(open.map((j) => j.infoHash));
    } catch (e) {
      ctx.log(`book channel: poll: ${messageOf(e)}`);
      return;
    }
    for (const job of open) {
      try {
        await step(
          job,
          infos.find((t) => t.hash === job.infoHash),
          client,
          c,
        );
      } catch (e) {
        // The client went away mid-step: the job keeps its state and the next poll retries.
        ctx.log(`book channel: torrent job ${job.id}: ${messageOf(e)}`);
      }
    }
  }

  const channel: BookChannel = {
    enabled: async () => isActive(await settings.load()),
    fetchBooks,
    poll() {
      polling ??= runPoll().finally(() => {
        polling = null;
      });
      return polling;
    },
  };

  translations?.useForeignBooks?.(fetchForeignBooks);
  return {
    ...channel,
    fetchForeignBooks,
    settings: (): Promise<IndexerSettingsView> => settings.load().then(settings.view),
    updateSettings: (input: IndexerSettingsInput): Promise<IndexerSettingsView> => settings.update(input),
    /**
     * Asks Prowlarr and qBittorrent, with the saved settings, whether they answer: Prowlarr lists its
     * indexers, qBittorrent logs in and says its version. An upstream failure is the check's answer
     * (`failed`, with the reason), never an error of this service; `off` when not enabled or not set up.
     */
    async check(): Promise<IndexerCheck> {
      const c = await settings.load();
      const [p, q] = await Promise.all([
        probe(prowlarrReady(c), "not enabled, or its URL or API key is missing", () => indexer(c).enabledIndexers()),
        probe(qbittorrentReady(c), "not enabled, or its URL, user name or password is missing", () =>
          torrentClient(c).version(),
        ),
      ]);
      return {
        prowlarr: { status: p.status, detail: p.detail, indexers: p.answer },
        qbittorrent: { status: q.status, detail: q.detail, version: q.answer },
      };
    },
    /**
     * Retry of a failed torrent job: back to `added`, so the next poll looks at the torrent again
     * (imports it when it is complete in the client; fails again, saying why, when it is gone).
     */
    async retry(id: number): Promise<TorrentJobRow> {
      const job = await jobs.get(id);
      if (!job) throw new AppError("torrent_job_not_found", `torrent job ${id} does not exist`);
      if (job.state !== "failed" || !(await jobs.transition(id, "failed", "added", { error: null })))
        throw new AppError("torrent_job_not_retryable", `torrent job ${id} is ${job.state}`, { state: job.state });
      ctx.log(`book channel: torrent job ${id}: retried by the operator`);
      ctx.events.publish("series_changed", job.seriesId);
      void channel.poll().catch((e: unknown) => ctx.log(`book channel: poll after a retry: ${messageOf(e)}`));
      return (await jobs.get(id))!;
    },

    /**
     * Dismisses a failed (or finished) torrent job: it is no longer followed, its books become
     * searchable again (the same torrent is never taken again); with `remove_from_client` the torrent
     * (ours: our category) is removed from the client with its files.
     */
    async dismiss(id: number, input: DismissInput = {}): Promise<TorrentJobRow> {
      const job = await jobs.get(id);
      if (!job) throw new AppError("torrent_job_not_found", `torrent job ${id} does not exist`);
      const remove = input.removeFromClient === true;
      if (!["failed", "imported", "removed", "awaiting_assignment"].includes(job.state))
        throw new AppError("torrent_job_not_dismissable", `torrent job ${id} is ${job.state}`, { state: job.state });
      if (remove && job.state !== "removed") {
        const c = await settings.load();
        if (isActive(c)) await torrentClient(c).delete([job.infoHash], true);
      }
      if (!(await jobs.transition(id, job.state, "dismissed")))
        throw new AppError("torrent_job_not_dismissable", `torrent job ${id} changed meanwhile`);
      ctx.log(
        `book channel: torrent job ${id}: dismissed by the operator${remove ? " (removed from the client)" : ""}`,
      );
      ctx.events.publish("series_changed", job.seriesId);
      return (await jobs.get(id))!;
    },

    /** A job's files with the book each is named for and whether it may be assigned. */
    async files(id: number): Promise<TorrentFilesView> {
      const job = await jobOf(id);
      return { job, files: await filesOf(job, await settings.load()) };
    },

    /**
     * Explicit assignment: files of a torrent awaiting one are imported as the books waiting in it
     * (checked first, all or nothing: a refused assignment changes nothing), through the same hardened
     * import as an automatic one. A book owned meanwhile is only taken off the list. When a file fails
     * its import (an unreadable archive, …) its book keeps waiting and the error says why; the books
     * imported before it stay imported. With no book left waiting the job is imported (retention follows).
     */
    async assign(id: number, input: AssignInput): Promise<TorrentJobRow> {
      const wanted = assignmentsOf(input);
      const job = await jobOf(id);
      const c = await settings.load();
      if (job.state !== "awaiting_assignment")
        throw new AppError("torrent_job_not_awaiting_assignment", `torrent job ${id} is ${job.state}`, {
          state: job.state,
        });
      const files = await filesOf(job, c);
      for (const a of wanted) {
        const refusal = assignmentRefusal(job, files, a.file, a.book);
        if (refusal) throw new AppError(refusal.code, refusal.detail);
      }
      const mount = c.qbittorrent.mount;
      if (!mount)
        throw new AppError("invalid_field", "qbittorrent.mount is not configured", { field: "qbittorrent.mount" });
      const client = torrentClient(c);
      const [torrent] = await client.info([job.infoHash]);
      if (!torrent)
        throw new AppError(
          "torrent_job_not_awaiting_assignment",
          `the torrent ${job.infoHash} is no longer in the client`,
        );
      const series = await ctx.repos.series.get(job.seriesId);
      if (!series) throw new AppError("series_not_found", `series ${job.seriesId} does not exist`);
      if (job.purpose === "translation" && !translations)
        throw new AppError("invalid_field", "a translation torrent but the translation service is not wired");

      if (!(await jobs.transition(id, "awaiting_assignment", "assigning")))
        throw new AppError("torrent_job_not_awaiting_assignment", `torrent job ${id} changed meanwhile`);
      assigningNow.add(id);
      let pending = job.pending;
      const imported = [...job.imported];
      let failure: unknown = null;
      try {
        const place = await placeOf(torrent, mount);
        for (const a of wanted) {
          if ((await jobs.ownedBook(series.id, a.book)) === null) {
            const local = localFileOf(place, a.file);
            if (job.purpose === "translation") {
              const staged = await stageForeignFile(ctx, translations!, job, series, a.book, local, place, null);
              if ("id" in staged) imported.push(staged.id);
            } else imported.push(await importBookFile(ctx, publication, job, series, a.book, local, place));
            ctx.log(`book channel: torrent job ${id}: ${JSON.stringify(a.file)} assigned to book ${a.book}`);
          }
          pending = withoutBook(pending, a.book);
        }
      } catch (e) {
        failure = e;
      } finally {
        const next = pending.length === 0 ? "imported" : "awaiting_assignment";
        await jobs.transition(id, "assigning", next, { imported, pending, error: null });
        assigningNow.delete(id);
      }
      ctx.events.publish("series_changed", job.seriesId);
      if (failure !== null) {
        ctx.log(`book channel: torrent job ${id}: assignment failed: ${messageOf(failure)}`);
        throw failure;
      }
      // The retention action of a finished job runs with the poll, as for an automatic import.
      if (pending.length === 0)
        void channel.poll().catch((e: unknown) => ctx.log(`book channel: poll after an assignment: ${messageOf(e)}`));
      return (await jobs.get(id))!;
    },

    /** Torrent jobs, newest first; of one series when given (404 for an unknown series). */
    async jobs(seriesId?: number): Promise<TorrentJobRow[]> {
      if (seriesId !== undefined && !(await ctx.repos.series.get(seriesId)))
        throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      return jobs.list(seriesId);
    },
  };
}

export type BookChannelService = ReturnType<typeof bookChannelService>;
