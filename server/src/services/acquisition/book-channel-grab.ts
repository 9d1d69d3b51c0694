/**
 * The search half of the book channel: finds releases at the indexer for wanted books of one
 * purpose (native books, or foreign ones to translate), adds the chosen torrents to qBittorrent and
 * records their jobs. book-channel.ts follows the jobs from there.
 */
import { AppError } from "../../errors.ts";
import type { Label } from "../../domain/labels.ts";
import type { BookChannelOutcome } from "../../providers/provider.ts";
import { prowlarrClient } from "../../providers/prowlarr.ts";
import { qbittorrentClient, type QbtClient } from "../../providers/qbittorrent.ts";
import type { TorrentRepo, TorrentState } from "../../repositories/torrent-repo.ts";
import { candidates, covered, foreignCandidates, nativeOnly, pickNext, type Candidate } from "./book-channel-select.ts";
import { isActive, type IndexerConfig, type IndexerSettingsStore } from "./book-channel-settings.ts";
import type { AppContext } from "../context.ts";

export type BookResult = { book: Label; outcome: BookChannelOutcome; detail: string };

/**
 * In progress: the books of these jobs are on their way and are not searched again (a book waiting
 * for an assignment waits for the operator, who may dismiss the job to search again).
 */
const IN_FLIGHT: readonly TorrentState[] = [
  "added",
  "downloading",
  "completed",
  "importing",
  "awaiting_assignment",
  "assigning",
];

export const messageOf = (e: unknown) => (e instanceof AppError ? `${e.code}: ${e.message}` : (e as Error).message);

export type Purpose = { kind: "native" } | { kind: "translation"; sources: readonly string[] };

export function bookGrabber(ctx: AppContext, settings: IndexerSettingsStore, jobs: TorrentRepo) {
  // One client per configuration, so its session cookie is reused between calls.
  let qbt: { key: string; client: QbtClient } | null = null;

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

  return { grab, torrentClient, indexer };
}
