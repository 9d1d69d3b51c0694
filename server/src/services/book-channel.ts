/**
 * The indexer/torrent channel for whole books (Prowlarr + qBittorrent), optional and off by
 * default. `fetchBooks` searches the series title, keeps releases that name the series and number
 * the wanted books, takes the smallest torrent covering some of them (again until none is left),
 * adds it to qBittorrent under our category and tag with automatic management off, and records a
 * TorrentJob with the books it was taken for. `poll` follows our jobs: a completed torrent has
 * only its requested books imported (book-channel-import.ts); the retention action runs only
 * after that import succeeded.
 *
 * Job states: added → downloading → completed → importing → imported → removed, or failed; each
 * move is conditional on the state read, so overlapping polls cannot import twice.
 */
import type { Label } from "../domain/labels.ts";
import { AppError } from "../errors.ts";
import type { Publication } from "../library/publication.ts";
import { ProviderError, type BookChannel, type BookChannelOutcome } from "../providers/provider.ts";
import { prowlarrClient } from "../providers/prowlarr.ts";
import { isComplete, isSeeded, qbittorrentClient, type QbtClient, type QbtTorrent } from "../providers/qbittorrent.ts";
import { torrentRepo, type TorrentJobRow, type TorrentState } from "../repositories/torrent-repo.ts";
import { candidates, covered, foreignCandidates, nativeOnly, pickNext, type Candidate } from "./book-channel-select.ts";
import { stageForeignBooks, translationsImported, type ForeignTranslations } from "./book-channel-foreign.ts";
import { importTorrentBooks } from "./book-channel-import.ts";
import {
  indexerSettingsStore,
  isActive,
  type IndexerConfig,
  type IndexerSettingsView,
  type Retention,
} from "./book-channel-settings.ts";
import type { AppContext } from "./context.ts";

export type { TorrentJobRow } from "../repositories/torrent-repo.ts";
export type { IndexerSettingsView } from "./book-channel-settings.ts";

type BookResult = { book: Label; outcome: BookChannelOutcome; detail: string };

/** In progress: the books of these jobs are on their way and are not searched again. */
const IN_FLIGHT: readonly TorrentState[] = ["added", "downloading", "completed", "importing"];

const messageOf = (e: unknown) => (e instanceof AppError ? `${e.code}: ${e.message}` : (e as Error).message);

export function bookChannelService(
  ctx: AppContext,
  publication: Pick<Publication, "publish">,
  translations?: ForeignTranslations,
) {
  const settings = indexerSettingsStore(ctx);
  const jobs = torrentRepo(ctx.db);
  // One client per configuration, so its session cookie is reused between calls.
  let qbt: { key: string; client: QbtClient } | null = null;
  let polling: Promise<void> | null = null;

  function torrentClient(c: IndexerConfig): QbtClient {
    const q = c.qbittorrent;
    const key = JSON.stringify([q.url, q.username, c.qbittorrentPassword]);
    if (qbt?.key !== key)
      qbt = {
        key,
        client: qbittorrentClient({
          url: q.url ?? "",
          username: q.username ?? "",
          password: c.qbittorrentPassword ?? "",
        }),
      };
    return qbt.client;
  }

  function indexer(c: IndexerConfig) {
    return prowlarrClient({ url: c.prowlarr.url ?? "", apiKey: c.prowlarrApiKey ?? "", log: ctx.log });
  }

  type Purpose = { kind: "native" } | { kind: "translation"; sources: readonly string[] };

  /** Searches the indexer and adds torrents for the wanted books of one purpose (native books, or foreign ones to translate). */
  async function grab(seriesId: number, books: readonly Label[], purpose: Purpose): Promise<BookResult[]> {
    const c = await settings.load();
    const wanted = [...new Set(books)];
    if (!isActive(c))
      return wanted.map((book) => ({
        book,
        outcome: "disabled",
        detail: "the indexer/torrent channel is off or not configured",
      }));
    const series = await ctx.repos.series.get(seriesId);
    if (!series) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    const results = new Map<Label, Omit<BookResult, "book">>();

    const existing = await jobs.list(seriesId);
    for (const job of existing.filter((j) => IN_FLIGHT.includes(j.state) && j.purpose === purpose.kind)) {
      for (const b of job.books)
        if (wanted.includes(b))
          results.set(b, { outcome: "already_grabbed", detail: `torrent job ${job.id}: "${job.title}"` });
    }
    let remaining = wanted.filter((b) => !results.has(b));
    if (remaining.length > 0) {
      const prowlarr = indexer(c);
      const client = torrentClient(c);
      const known = new Set(existing.map((j) => j.infoHash));
      const errors: string[] = [];
      try {
        const found = await prowlarr.search(series.title);
        let pool: (Candidate<(typeof found)[number]> & { language?: string })[] =
          purpose.kind === "native"
            ? nativeOnly(series.title, series.language, candidates(series.title, found))
            : foreignCandidates(series.title, purpose.sources, series.originalLanguage ?? null, found);
        pool = pool.filter((x) => !(x.release.infoHash && known.has(x.release.infoHash)));
        for (let pick = pickNext(pool, remaining); pick !== null; pick = pickNext(pool, remaining)) {
          const chosen = pick;
          pool = pool.filter((x) => x !== chosen);
          const { release } = chosen;
          try {
            const source = await prowlarr.torrentOf(release);
            if (known.has(source.infoHash)) continue;
            const q = c.qbittorrent;
            const { duplicate, torrent } = await client.add(source, {
              savePath: q.savePath,
              category: q.category,
              tag: q.tag,
            });
            if (duplicate && torrent.category !== q.category)
              throw new Error(
                `the client already holds ${source.infoHash} outside the category "${q.category}": not taken over`,
              );
            const take = covered(chosen, remaining);
            const job = await jobs.create({
              seriesId,
              infoHash: source.infoHash,
              title: release.title,
              indexer: release.indexer,
              books: take,
              retention: q.retention,
              ...(purpose.kind === "translation"
                ? { purpose: "translation" as const, sourceLanguage: chosen.language ?? "" }
                : {}),
            });
            known.add(source.infoHash);
            ctx.log(
              `book channel: series ${seriesId}: added "${release.title}" (${source.infoHash}) for ${purpose.kind} books ${take.join(", ")} as job ${job.id}`,
            );
            for (const b of take)
              results.set(b, { outcome: "grabbed", detail: `"${release.title}" (${source.infoHash})` });
            remaining = remaining.filter((b) => !take.includes(b));
          } catch (e) {
            errors.push(`"${release.title}": ${prowlarr.scrub(messageOf(e))}`);
          }
        }
      } catch (e) {
        errors.push(prowlarr.scrub(messageOf(e)));
      }
      for (const e of errors) ctx.log(`book channel: series ${seriesId}: ${e}`);
      for (const b of remaining) {
        results.set(
          b,
          errors.length > 0
            ? { outcome: "failed", detail: errors.join("; ") }
            : { outcome: "no_result", detail: "no indexer result names this book of the series" },
        );
      }
    }
    return wanted.map((book) => ({ book, ...(results.get(book) as Omit<BookResult, "book">) }));
  }

  const fetchBooks = (seriesId: number, books: readonly Label[]) => grab(seriesId, books, { kind: "native" });

  /**
   * Foreign books for the translation fallback (spec rule 6): a result must name the series, number
   * the books and carry a marker of one of the ordered source languages; the torrent's books are
   * staged as translation sources on completion, never published.
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
    if (!t) return fail(job, state, new Error(`the torrent ${job.infoHash} is no longer in the client`));
    if (state === "added" || state === "downloading") {
      if (!isComplete(t)) {
        if (state === "added") await jobs.transition(job.id, "added", "downloading");
        return;
      }
      if (!(await jobs.transition(job.id, state, "completed", { contentPath: t.contentPath }))) return;
      state = "completed";
    }
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
    if (outcome.failed.length > 0)
      return fail(job, "importing", new Error(outcome.failed.join("; ")), outcome.imported);
    const note = outcome.notFound.length > 0 ? `books not in the torrent: ${outcome.notFound.join(", ")}` : null;
    if (!(await jobs.transition(job.id, "importing", "imported", { imported: outcome.imported, error: note }))) return;
    ctx.log(
      `book channel: torrent job ${job.id}: imported ${outcome.imported.length} file(s)${note ? `; ${note}` : ""}`,
    );
    await retain({ ...job, state: "imported" }, t, client, c);
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
    updateSettings: (body: unknown): Promise<IndexerSettingsView> => settings.update(body),
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
    async dismiss(id: number, body: unknown): Promise<TorrentJobRow> {
      const job = await jobs.get(id);
      if (!job) throw new AppError("torrent_job_not_found", `torrent job ${id} does not exist`);
      const o = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
      const remove = o.remove_from_client === true || o.removeFromClient === true;
      if (!["failed", "imported", "removed"].includes(job.state))
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

    /** Torrent jobs, newest first; of one series when given (404 for an unknown series). */
    async jobs(seriesId?: number): Promise<TorrentJobRow[]> {
      if (seriesId !== undefined && !(await ctx.repos.series.get(seriesId)))
        throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      return jobs.list(seriesId);
    },
  };
}

export type BookChannelService = ReturnType<typeof bookChannelService>;
