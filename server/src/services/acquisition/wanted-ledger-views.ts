/**
 * Reading the Wanted ledger: a series' ledger as the last pass wrote it, and every series' entries
 * in one list (the Wanted page). Each entry also says, when read, what became of the downloads it
 * names (domain `ledgerDownloads`), so a chapter fetched since the pass does not read "Queued".
 */
import { ledgerDownloads, type LedgerDownloads } from "../../domain/download-jobs.ts";
import { WANTED_REASONS, type LedgerDetail, type WantedReason } from "../../domain/wanted.ts";
import { AppError } from "../../errors.ts";
import { wantedRepo } from "../../repositories/wanted-repo.ts";
import type { AppContext } from "../context.ts";

export interface WantedEntryView {
  kind: "chapter" | "book";
  number: string;
  reason: WantedReason;
  detail: LedgerDetail & { downloadIds?: number[]; bookChannel?: { outcome: string; detail: string } };
  /** What became of the entry's downloads since the pass (read now, not stored). */
  downloads: LedgerDownloads | null;
  updatedAt: Date;
}

export interface WantedLedgerView {
  seriesId: number;
  lastPassAt: Date | null;
  nextPassAt: Date | null;
  emptyPasses: number;
  entries: WantedEntryView[];
}

/** A ledger entry among every series' (the library's Wanted list). */
export interface WantedOfSeries {
  seriesId: number;
  seriesTitle: string;
  entry: WantedEntryView;
}

export interface WantedOfLibrary {
  /** Entries matching the filter, before the limit. */
  total: number;
  entries: WantedOfSeries[];
}

/** At most this many entries answer the library's Wanted list (the default, and the bound of `limit`). */
export const WANTED_LIST_LIMIT = { default: 500, max: 5000 } as const;

/** A stored ledger entry's detail (an unreadable one reads as empty). */
export function parseLedgerDetail(text: string): WantedEntryView["detail"] {
  try {
    return JSON.parse(text) as WantedEntryView["detail"];
  } catch {
    return { offers: 0, usable: 0, blocked: 0, languages: [] };
  }
}

export function wantedLedgerViews(ctx: AppContext) {
  const repo = wantedRepo(ctx.db);

  /** Stored ledger rows as their view, with what became of their downloads (one statement for all). */
  async function entryViews<
    R extends { kind: string; number: string; reason: string; detail: string; updatedAt: Date },
  >(rows: readonly R[]): Promise<{ row: R; entry: WantedEntryView }[]> {
    const parsed = rows.map((r) => ({ row: r, detail: parseLedgerDetail(r.detail) }));
    const states = await ctx.repos.downloads.statesOf(parsed.flatMap((p) => p.detail.downloadIds ?? []));
    return parsed.map(({ row: r, detail }) => ({
      row: r,
      entry: {
        kind: r.kind === "book" ? ("book" as const) : ("chapter" as const),
        number: r.number,
        reason: r.reason as WantedReason,
        detail,
        downloads: ledgerDownloads((detail.downloadIds ?? []).flatMap((id) => states.get(id) ?? [])),
        updatedAt: r.updatedAt,
      },
    }));
  }

  /** Reading order within a series: chapters, then books, each by number. */
  const readingOrder = (a: { kind: string; number: string }, b: { kind: string; number: string }) =>
    a.kind === b.kind
      ? parseFloat(a.number) - parseFloat(b.number) || a.number.localeCompare(b.number)
      : a.kind === "chapter"
        ? -1
        : 1;

  async function ledgerOf(seriesId: number): Promise<WantedLedgerView> {
    if (!(await ctx.repos.series.get(seriesId)))
      throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    const [state, rows] = await Promise.all([repo.state(seriesId), repo.entries(seriesId)]);
    const entries = (await entryViews(rows)).map((v) => v.entry).sort(readingOrder);
    return {
      seriesId,
      lastPassAt: state?.lastPassAt ?? null,
      nextPassAt: state?.nextPassAt ?? null,
      emptyPasses: state?.emptyPasses ?? 0,
      entries,
    };
  }

  /**
   * Every series' ledger entries (those with one of `reasons` when given), by series title and then
   * reading order, at most `limit` of them; `total` counts them all.
   */
  async function ofLibrary(filter: { reasons?: readonly string[]; limit?: number } = {}): Promise<WantedOfLibrary> {
    const reasons = filter.reasons && filter.reasons.length > 0 ? [...new Set(filter.reasons)] : null;
    for (const r of reasons ?? [])
      if (!(WANTED_REASONS as readonly string[]).includes(r))
        throw new AppError("invalid_field", `unknown Wanted reason ${JSON.stringify(r)}`, { field: "reason" });
    const limit = filter.limit ?? WANTED_LIST_LIMIT.default;
    if (!Number.isInteger(limit) || limit < 1 || limit > WANTED_LIST_LIMIT.max)
      throw new AppError("invalid_field", `limit must be an integer from 1 to ${WANTED_LIST_LIMIT.max}`, {
        field: "limit",
      });
    const rows = (await repo.entriesOfLibrary(reasons)).sort(
      (a, b) => a.series.title.localeCompare(b.series.title) || a.seriesId - b.seriesId || readingOrder(a, b),
    );
    // Only the entries answered read their downloads' states.
    const shown = await entryViews(rows.slice(0, limit));
    return {
      total: rows.length,
      entries: shown.map(({ row, entry }) => ({ seriesId: row.seriesId, seriesTitle: row.series.title, entry })),
    };
  }

  return { ledgerOf, ofLibrary };
}
