/**
 * Shared set-up of the pipeline tests: a real app (fast retries and polling), a series with chapter
 * slots, Suwayomi works on the fake server linked as source mappings with their offers, and a
 * provider lookup over the real SuwayomiProvider that counts pages in flight.
 */
import type { ChapterPages, SourceProvider } from "../src/providers/provider.ts";
import { SuwayomiClient } from "../src/providers/suwayomi-client.ts";
import { SuwayomiProvider } from "../src/providers/suwayomi.ts";
import type { ProviderLookup } from "../src/services/acquisition/download-pipeline.ts";
import { expectJson } from "./fixtures.ts";
import type { FakeSuwayomi, FakeWork } from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

export const FAST_ENV = { DOWNLOAD_RETRY_BASE_MS: "40", DOWNLOAD_RETRY_CAP_MS: "200", DOWNLOAD_POLL_MS: "30" };

export function pipelineApp(env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({ env: { ...FAST_ENV, ...env } });
}

export async function seriesWithSlots(
  app: TestApp,
  title: string,
  chapters: string[],
  over: { webtoon?: boolean } = {},
): Promise<number> {
  const s = await expectJson<{ id: number }>(
    await app.api("/api/manga", { method: "POST", json: { title, ...over } }),
    201,
  );
  await app.ctx.db.chapterSlot.createMany({ data: chapters.map((number) => ({ seriesId: s.id, number })) });
  return s.id;
}

/** A Provider row per fake work's source name, a mapping per work, an offer per numbered chapter. */
export async function linkWork(
  app: TestApp,
  seriesId: number,
  work: FakeWork,
  options: { providerName: string; priority?: number },
): Promise<number> {
  const provider = await app.ctx.db.provider.upsert({
    where: { name: options.providerName },
    create: { name: options.providerName, kind: "suwayomi", priority: options.priority ?? 0 },
    update: {},
  });
  const mapping = await app.ctx.db.sourceMapping.create({
    data: { seriesId, providerId: provider.id, sourceId: String(work.id), language: "en" },
  });
  for (const c of work.chapters) {
    if (c.chapterNumber < 0) continue;
    await app.ctx.db.offer.create({
      data: {
        seriesId,
        sourceMappingId: mapping.id,
        kind: "chapter",
        chapter: String(c.chapterNumber),
        language: "en",
        scanlator: c.scanlator,
        externalId: String(c.id),
        pageCount: c.pages.length,
        uploadedAt: new Date(c.uploadDate),
      },
    });
  }
  return mapping.id;
}

export interface Counting {
  lookup: ProviderLookup;
  /**
   * Most page fetches in flight at once, per download and overall; most downloads fetching at once;
   * most fetched pages whose buffer was not given back yet (`release`), all downloads together.
   */
  peak: { perDownload: number; overall: number; downloads: number; held: number };
  /** Pages fetched so far, all downloads together. */
  fetched(): number;
  /** Fetched pages not given back now (a failed download's pages are never given back: they are collected). */
  held(): number;
}

/** Every mapping served by one SuwayomiProvider on the fake; page fetches counted. */
export function fakeLookup(app: TestApp, fake: FakeSuwayomi): Counting {
  const provider = new SuwayomiProvider(new SuwayomiClient({ baseUrl: fake.url, auth: { kind: "none" } }), {
    id: "1",
    name: "MangaDex",
    lang: "en",
  });
  /** Most pages in flight in one download and overall; most downloads with a page in flight at once. */
  const peak = { perDownload: 0, overall: 0, downloads: 0, held: 0 };
  let overall = 0;
  let downloads = 0;
  let held = 0;
  let fetched = 0;
  const counted: SourceProvider = {
    kind: provider.kind,
    name: provider.name,
    search: (t, o) => provider.search(t, o),
    listChapters: (s, o) => provider.listChapters(s, o),
    async pages(sourceId, externalId, options): Promise<ChapterPages> {
      const inner = await provider.pages(sourceId, externalId, options);
      let mine = 0;
      return {
        count: inner.count,
        async fetch(index, signal) {
          if (mine === 0) downloads += 1;
          mine += 1;
          overall += 1;
          peak.perDownload = Math.max(peak.perDownload, mine);
          peak.overall = Math.max(peak.overall, overall);
          peak.downloads = Math.max(peak.downloads, downloads);
          try {
            const page = await inner.fetch(index, signal);
            fetched += 1;
            held += 1;
            peak.held = Math.max(peak.held, held);
            let given = false;
            return {
              ...page,
              release() {
                if (!given) held -= 1;
                given = true;
                page.release?.();
              },
            };
          } finally {
            mine -= 1;
            overall -= 1;
            if (mine === 0) downloads -= 1;
          }
        },
      };
    },
  };
  return {
    peak,
    fetched: () => fetched,
    held: () => held,
    lookup: {
      async forMapping(id) {
        const m = await app.ctx.db.sourceMapping.findUnique({ where: { id } });
        return m
          ? {
              provider: counted,
              mapping: {
                id: m.id,
                seriesId: m.seriesId,
                providerId: m.providerId,
                sourceId: m.sourceId,
                language: m.language,
              },
            }
          : null;
      },
    },
  };
}

/** Polls until `check` holds (the workers run in the background). */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  check: (v: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `until` for a probe that answers `undefined` until what it waits for is there, then that value. */
export const untilFound = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> =>
  until(what, probe, (v) => v !== undefined, timeoutMs) as Promise<T>;

export const downloadsOf = (app: TestApp, seriesId: number) =>
  app.ctx.db.download.findMany({ where: { seriesId }, orderBy: { id: "asc" } });
export const settled = (rows: { state: string }[]) =>
  rows.length > 0 && rows.every((r) => ["published", "degraded", "failed", "cancelled"].includes(r.state));

/** A series' Wanted ledger as GET /api/manga/{id}/wanted answers it (the fields these suites read). */
export interface RestWantedLedger {
  last_pass_at: string | null;
  next_pass_at: string | null;
  empty_passes: number;
  entries: { number: string; reason: string }[];
}

/** The ledger once a pass has run: linking answers before the pass it starts. */
export const firstPassLedger = (app: TestApp, seriesId: number) =>
  until(
    "the first pass's ledger",
    async () => expectJson<RestWantedLedger>(await app.api(`/api/manga/${seriesId}/wanted`), 200),
    (l) => l.last_pass_at !== null,
  );
