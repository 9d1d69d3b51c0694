/**
 * The Wanted pass of one series: loads the units (coverage without estimates), the offers of its active
 * source mappings, its live and degraded downloads, the health of its mappings and its back-off; asks
 * the planner (domain/wanted.ts); writes the ledger and the back-off; queues the downloads (recovery
 * replacements included) and wakes the pipeline; hands the wanted books no source offers to the book
 * channel (Prowlarr + qBittorrent) when one is registered and enabled.
 */
import { parseStoredVerdict, verdictCondemns } from "../../domain/conformity.ts";
import { buildCoverageIndex } from "../../domain/coverage.ts";
import { LIVE_JOB_STATES } from "../../domain/download-jobs.ts";
import { labelEquals, parseLabel, type Label } from "../../domain/labels.ts";
import { resumableReplacement } from "../../domain/replacement-groups.ts";
import { seriesForm } from "../../domain/series-form.ts";
import {
  activeOf,
  planWanted,
  queuesUntried,
  type DegradedFile,
  type LedgerDetail,
  type LedgerEntry,
  type PlanInput,
  type PlannedDownload,
  type WantedSlot,
} from "../../domain/wanted.ts";
import { AppError } from "../../errors.ts";
import type { BookChannel } from "../../providers/provider.ts";
import { blocklistRepo } from "../../repositories/blocklist-repo.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import { sourceSlotRepo } from "../../repositories/source-slot-repo.ts";
import { torrentRepo } from "../../repositories/torrent-repo.ts";
import { wantedRepo } from "../../repositories/wanted-repo.ts";
import { sourceRepo } from "../../repositories/source-repo.ts";
import type { AppContext } from "../context.ts";
import { wantedLedgerViews, type WantedLedgerView } from "./wanted-ledger-views.ts";
import { downloadLanguages, reconciledOffers, slotSyncChanged, syncSourceSlots } from "./source-slots.ts";

/** Degraded and failed downloads of a mapping in this window count against its health. */
const HEALTH_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export type { WantedEntryView, WantedLedgerView, WantedOfLibrary, WantedOfSeries } from "./wanted-ledger-views.ts";
export { WANTED_LIST_LIMIT } from "./wanted-ledger-views.ts";

export interface WantedPassResult extends WantedLedgerView {
  queued: number;
}

const lab = (v: string | null): Label | null => (v === null ? null : parseLabel(v));

export function wantedService(ctx: AppContext, deps: { kick(): void }) {
  const repo = wantedRepo(ctx.db);
  const views = wantedLedgerViews(ctx);
  let bookChannel: BookChannel | undefined;
  let translationFallback:
    | ((
        seriesId: number,
        pass: { entries: LedgerEntry[]; slots: WantedSlot[]; offers: PlanInput["offers"]; nativeLanguages: string[] },
      ) => Promise<void>)
    | undefined;
  /** A condition a pass runs on, checked under the series' pass lock (see runPass). */
  type PassWhen = () => Promise<boolean>;
  /** The pass under way per series, and the one more pass asked for while it runs. */
  interface PassSlot {
    current: Promise<WantedPassResult>;
    follow: Promise<WantedPassResult> | null;
    followForce: boolean;
    /** The follow-up's conditions; null once a request without one joined it (it runs then). */
    followWhen: PassWhen[] | null;
  }
  const running = new Map<number, PassSlot>();
  const anyHolds = async (when: readonly PassWhen[]) => {
    for (const w of when) if (await w()) return true;
    return false;
  };

  /** Runs a pass in the series' slot; the slot is freed when it ends with no follow-up asked for. */
  function startPass(
    seriesId: number,
    slot: PassSlot,
    force: boolean,
    when: PassWhen[] | null,
  ): Promise<WantedPassResult> {
    const p: Promise<WantedPassResult> = passLock
      .run([String(seriesId)], async () => {
        // Conditions are read under the lock: a pass that ran meanwhile may have settled them.
        if (when !== null && !(await anyHolds(when))) return { ...(await views.ledgerOf(seriesId)), queued: 0 };
        return pass(seriesId, force);
      })
      .finally(() => {
        if (slot.current === p && slot.follow === null && running.get(seriesId) === slot) running.delete(seriesId);
      });
    slot.current = p;
    return p;
  }
  // One pass per series at a time across instances too: a second pass plans after the first has
  // queued, so it finds those downloads already queued instead of queueing them again.
  const passLock = ctx.cluster.keyedLock("wanted");

  /** New downloads: the workers wake, subscribers see them queued, the series page refetches. */
  function announceQueued(seriesId: number, created: readonly { id: number; pagesTotal: number | null }[]): void {
    if (created.length === 0) return;
    deps.kick();
    for (const row of created)
      ctx.events.downloads.publish({
        downloadId: row.id,
        seriesId,
        state: "queued",
        pagesDone: 0,
        pagesTotal: row.pagesTotal,
        error: null,
      });
    ctx.events.publish("series_changed", seriesId);
  }

  async function planInput(seriesId: number, force: boolean): Promise<PlanInput> {
    // The downloads before the library: a download that publishes while the pass reads is either
    // still live here or its file is in the snapshot (its file commits before it is published). The
    // other order could miss both and queue the chapter a second time.
    const downloads = await ctx.repos.downloads.planFacts(seriesId);
    const snapshot = await loadSnapshot(ctx.db, seriesId);
    if (!snapshot) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    const index = buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series), estimates: false });
    const seriesOn = snapshot.series.monitored;
    const slots: WantedSlot[] = [
      // `wanted` is the coverage index's decision: the same one the map dry run shows.
      ...index.chapters.map((c) => ({
        kind: "chapter" as const,
        number: c.number,
        wanted: c.wanted,
        monitored: seriesOn && c.monitored,
        owned: c.onDisk,
        coverage: c.coverage,
        parts: c.parts,
        partsOnDisk: c.partsOnDisk,
      })),
      ...index.books.map((b) => ({
        kind: "book" as const,
        number: b.number,
        wanted: b.wanted,
        monitored: seriesOn && b.monitored,
        owned: b.owned,
        coverage: b.coverage,
        parts: 1,
        partsOnDisk: [],
      })),
    ];
    // A chapter partly on disk: the source of its part files, when they all came from one source.
    const byFile = new Map(downloads.filter((d) => d.fileId !== null).map((d) => [d.fileId!, d]));
    for (const slot of slots) {
      if (slot.kind !== "chapter" || slot.owned || slot.partsOnDisk.length === 0) continue;
      const files = snapshot.files.filter(
        (x) => x.kind === "chapter" && x.part !== null && x.chapter !== null && labelEquals(x.chapter, slot.number),
      );
      const sources = files.map((x) => byFile.get(x.id));
      const first = sources[0];
      if (
        first?.sourceMappingId != null &&
        sources.every((d) => d?.sourceMappingId === first.sourceMappingId && d.scanlator === first.scanlator)
      )
        slot.partsFrom = {
          mappingId: first.sourceMappingId,
          scanlator: first.scanlator,
          fileIds: files.map((x) => x.id),
        };
    }
    const languages = await downloadLanguages(ctx, snapshot.series.language);
    const unlisted = await sourceSlotRepo(ctx.db).unlistedKeys(seriesId);
    for (const slot of slots) if (unlisted.has(`${slot.kind}:${slot.number}`)) slot.unlisted = true;
    const placed = (await reconciledOffers(ctx, seriesId, languages)).releases.filter((o) => o.providerEnabled);
    const [mappings, state, blocked, torrentBooks] = await Promise.all([
      sourceRepo(ctx.db).mappingsWithPriority(seriesId, true),
      repo.state(seriesId),
      blocklistRepo(ctx.db).keysOf(seriesId),
      torrentRepo(ctx.db).nativeBooksInFlight(seriesId),
    ]);
    const since = Date.now() - HEALTH_WINDOW_MS;
    // A release degraded for strips alone condemns nothing once the series is marked a webtoon.
    const readsInPages = !snapshot.series.webtoon;
    const degradedNow = (d: (typeof downloads)[number]) =>
      d.state === "degraded" && verdictCondemns(parseStoredVerdict(d.verdict), readsInPages);
    const health = (id: number, st: "degraded" | "failed") =>
      downloads.filter(
        (d) =>
          d.sourceMappingId === id &&
          (st === "degraded" ? degradedNow(d) : d.state === st) &&
          d.updatedAt.getTime() >= since,
      ).length;
    const live = downloads.filter((d) => (LIVE_JOB_STATES as readonly string[]).includes(d.state));
    const kindOf = (k: string) => (k === "volume" ? ("volume" as const) : ("chapter" as const));

    // Recovery: active files whose download was judged degraded (the audit's `degraded` flag) or flagged later.
    const bad = downloads.filter((d) => d.fileId !== null && (d.needsReplacement || degradedNow(d)));
    const activeFiles = await ctx.repos.files.activeAmong(bad.map((d) => d.fileId!));
    const activeIds = new Set(snapshot.files.map((x) => x.id));
    const degradedFiles: DegradedFile[] = bad
      .filter((d) => activeFiles.has(d.fileId!))
      .map((d) => {
        const number = (d.kind === "volume" ? lab(d.volume) : lab(d.chapter)) ?? ("0" as Label);
        // A part of a split chapter: the chapter's parts and its active part files are replaced together.
        const split = d.kind !== "volume" && d.part !== null;
        const siblings = split
          ? snapshot.files
              .filter((x) => x.kind === "chapter" && x.part !== null && x.chapter === number)
              .map((x) => x.id)
          : [];
        return {
          fileId: d.fileId!,
          slot: {
            kind: d.kind === "volume" ? ("book" as const) : ("chapter" as const),
            number,
            wanted: false,
            monitored: true,
            owned: true,
            coverage: null,
            parts: split ? Math.max(2, index.chapters.find((c) => c.number === number)?.parts ?? 1) : 1,
            partsOnDisk: [],
          },
          siblingFileIds: siblings,
          resume: split ? resumableReplacement(number, downloads, activeIds) : null,
          mappingId: d.sourceMappingId,
          replacing: live.some(
            (l) =>
              l.replacesFileId === d.fileId || (l.replacesFileIds ?? "").split(/[[\],]/).includes(String(d.fileId)),
          ),
        };
      });

    return {
      slots,
      // Offers as the reconciliation places them (a split part carries its chapter and part).
      offers: placed.flatMap((o) => {
        const p = o.placement;
        if (p.kind === "unplaced") return [];
        return [
          {
            mappingId: o.mappingId,
            kind: p.kind,
            chapter: p.kind === "chapter" ? p.number : null,
            volume: p.kind === "volume" ? p.number : o.volume,
            part: p.kind === "chapter" ? p.part : null,
            language: o.language,
            scanlator: o.scanlator,
            externalId: o.externalId,
            title: o.title ?? null,
            pageCount: o.pageCount,
            uploadedAt: o.uploadedAt?.getTime() ?? null,
          },
        ];
      }),
      // Higher first: the provider's priority, then the mapping's (−1000…1000) within it.
      mappings: mappings.map((m) => ({
        id: m.id,
        priority: m.provider.priority * 10_000 + m.priority,
        degraded: health(m.id, "degraded"),
        failed: health(m.id, "failed"),
      })),
      degraded: downloads
        .filter((d) => degradedNow(d) && d.sourceMappingId !== null && d.externalId !== null)
        .map((d) => ({
          mappingId: d.sourceMappingId!,
          externalId: d.externalId!,
          kind: kindOf(d.kind),
          chapter: lab(d.chapter),
          volume: lab(d.volume),
        })),
      blocked: blocked.map((b) => ({ mappingId: b.sourceMappingId, externalId: b.externalId })),
      failed: downloads
        .filter(
          (d) =>
            d.state === "failed" &&
            d.sourceMappingId !== null &&
            d.externalId !== null &&
            d.updatedAt.getTime() >= since,
        )
        .map((d) => ({ mappingId: d.sourceMappingId!, externalId: d.externalId! })),
      active: [
        ...live.map((d) => ({
          kind: kindOf(d.kind),
          chapter: lab(d.chapter),
          volume: lab(d.volume),
          part: d.part,
          downloadId: d.id,
        })),
        // A book a torrent is bringing in is on its way too: a source's copy of it would be a second one.
        ...torrentBooks.map((b) => ({ kind: "volume" as const, chapter: null, volume: lab(b), part: null })),
      ],
      languages,
      maxDownloads: ctx.config.downloads.maxPerPass,
      backoff: { emptyPasses: state?.emptyPasses ?? 0, nextPassAt: state?.nextPassAt?.getTime() ?? null },
      now: Date.now(),
      force,
      degradedFiles,
    };
  }

  /** Queues planned downloads in one transaction. */
  function createDownloads(seriesId: number, downloads: readonly PlannedDownload[]) {
    return ctx.repos.downloads.createAll(
      downloads.map((d) => ({
        seriesId,
        sourceMappingId: d.mappingId,
        kind: d.kind,
        volume: d.volume,
        chapter: d.chapter,
        part: d.part,
        language: d.language,
        scanlator: d.scanlator,
        externalId: d.externalId,
        state: "queued",
        pagesTotal: d.pageCount,
        replacesFileId: d.replacesFileId ?? null,
        replacementGroup: d.replacementGroup ?? null,
        replacesFileIds: d.replacesFileIds ? JSON.stringify(d.replacesFileIds) : null,
      })),
    );
  }

  async function pass(seriesId: number, force: boolean): Promise<WantedPassResult> {
    if (!(await ctx.repos.series.get(seriesId)))
      throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    // What the sources list becomes slots first, so the pass plans for them at once.
    const synced = await syncSourceSlots(ctx, seriesId);
    const input = await planInput(seriesId, force);
    const plan = planWanted(input);
    const now = new Date(input.now);
    const created = await createDownloads(seriesId, plan.downloads);
    const idsBySlot = new Map<string, number[]>();
    plan.downloads.forEach((d, i) =>
      idsBySlot.set(`${d.slot.kind}:${d.slot.number}`, [
        ...(idsBySlot.get(`${d.slot.kind}:${d.slot.number}`) ?? []),
        created[i]!.id,
      ]),
    );
    const ledger = plan.ledger.map((e) => {
      // The downloads this pass queued, or those it found under way: the ledger's reader says what became of them.
      const ids =
        e.reason === "queued" || e.reason === "replacing"
          ? idsBySlot.get(`${e.kind}:${e.number}`)
          : e.reason === "already_queued"
            ? activeOf(e, input.active).flatMap((a) => (a.downloadId === undefined ? [] : [a.downloadId]))
            : undefined;
      return ids && ids.length > 0 ? { ...e, detail: { ...e.detail, downloadIds: ids } } : e;
    });
    await repo.write(
      seriesId,
      ledger,
      {
        emptyPasses: plan.backoff.emptyPasses,
        nextPassAt: plan.backoff.nextPassAt === null ? null : new Date(plan.backoff.nextPassAt),
      },
      now,
    );
    if (created.length === 0 && slotSyncChanged(synced)) ctx.events.publish("series_changed", seriesId);
    announceQueued(seriesId, created);
    await handToBookChannel(
      seriesId,
      ledger.filter((e) => e.kind === "book" && (e.reason === "no_offer" || e.reason === "no_longer_listed")),
    );
    // The translation fallback runs after the normal sources (it never fails the pass).
    await translationFallback?.(seriesId, {
      entries: ledger,
      slots: input.slots,
      offers: input.offers,
      nativeLanguages: input.languages,
    }).catch((e: unknown) =>
      ctx.log(`wanted: translation fallback for series ${seriesId} failed: ${(e as Error).message}`),
    );
    return { ...(await views.ledgerOf(seriesId)), queued: created.length };
  }

  async function handToBookChannel(
    seriesId: number,
    books: { kind: string; number: Label; detail: LedgerDetail }[],
  ): Promise<void> {
    if (!bookChannel || books.length === 0) return;
    try {
      if (!(await bookChannel.enabled())) return;
      const outcomes = await bookChannel.fetchBooks(
        seriesId,
        books.map((b) => b.number),
      );
      for (const o of outcomes) {
        const entry = books.find((b) => b.number === o.book);
        if (entry)
          await repo.patchDetail(seriesId, "book", o.book, {
            ...entry.detail,
            bookChannel: { outcome: o.outcome, detail: o.detail },
          });
      }
    } catch (e) {
      ctx.log(`wanted: book channel for series ${seriesId} failed: ${(e as Error).message}`);
    }
  }

  return {
    /**
     * One Wanted pass. While one is under way for the series, the request is answered by one more
     * pass after it (shared by every request made meanwhile), never by the pass under way: that
     * one may have read the series before the change that asked for a pass (a block, a link).
     * `force` (an operator's run, a replacement after a degraded download) ignores the back-off.
     * `when`: the pass runs only if this holds once the series' pass lock is held (a download's end
     * asks for a pass when none is under way for the series; two ending at once both see none,
     * and the second one's check must come after the first one's pass). A pass without a
     * condition shares the follow-up with those with one, and then runs whatever they say.
     */
    runPass(seriesId: number, options: { force?: boolean; when?: PassWhen } = {}): Promise<WantedPassResult> {
      const force = options.force ?? false;
      const when = options.when ? [options.when] : null;
      const under = running.get(seriesId);
      if (under) {
        under.followForce ||= force;
        if (under.follow === null) under.followWhen = when;
        else under.followWhen = under.followWhen && when ? [...under.followWhen, ...when] : null;
        under.follow ??= under.current
          .catch(() => undefined)
          .then(() => {
            const followForce = under.followForce;
            const followWhen = under.followWhen;
            under.follow = null;
            under.followForce = false;
            under.followWhen = null;
            return startPass(seriesId, under, followForce, followWhen);
          });
        return under.follow;
      }
      const slot: PassSlot = {
        current: Promise.resolve(null as never),
        follow: null,
        followForce: false,
        followWhen: null,
      };
      running.set(seriesId, slot);
      return startPass(seriesId, slot, force, when);
    },
    ledger: views.ledgerOf,
    ofLibrary: views.ofLibrary,
    /**
     * Whether a pass now would try a release that has not failed lately (`queuesUntried`): after a
     * download fails for good, the pass is brought forward only then.
     */
    async triesAnotherRelease(seriesId: number): Promise<boolean> {
      const input = await planInput(seriesId, false);
      return queuesUntried(planWanted(input), input.failed ?? []);
    },
    /** The facts a pass plans from (the operator's view of one slot's offers reads them). */
    planFacts: (seriesId: number) => planInput(seriesId, true),
    /** Queues downloads the operator chose by hand, and wakes the workers. */
    async queueByHand(seriesId: number, downloads: readonly PlannedDownload[]): Promise<number[]> {
      const created = await createDownloads(seriesId, downloads);
      announceQueued(seriesId, created);
      return created.map((r) => r.id);
    },
    /** Waits for the passes under way (a shutdown lets them end before the database closes). */
    async settle(): Promise<void> {
      while (running.size > 0)
        await Promise.allSettled(
          [...running.values()].flatMap((r) => (r.follow ? [r.current, r.follow] : [r.current])),
        );
    },
    useBookChannel(channel: BookChannel | undefined): void {
      bookChannel = channel;
    },
    bookChannel: () => bookChannel,
    useTranslationFallback(fn: typeof translationFallback): void {
      translationFallback = fn;
    },
  };
}

export type WantedService = ReturnType<typeof wantedService>;
