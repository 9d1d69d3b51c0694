/**
 * Content conformity of fresh downloads, end to end: the real service on a real database judges
 * generated pages (drawn pages, dark night scenes, black cards with JPEG noise, webtoon strips and
 * their slices), the rows say degraded or publishing, nothing reaches the library root, and REST
 * and GraphQL list the same downloads.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  blackCard,
  darkPanelsPage,
  drawnPages,
  nightPage,
  stripPage,
  stripSlices,
  type CardKind,
} from "../src/library/test-pages.ts";
import { appErrorOf, expectJson, expectProblem } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let paged: number;
let webtoon: number;
/** 43 pages that are not cards: drawn pages and 5 dark but drawn ones. */
let notCards: Buffer[];
/** 8 black cards of every kind. */
let cards: Buffer[];
/** A 7,200 px strip cut in thirds, three times: 9 slices of aspect 3. */
let slices: Buffer[];

interface RestDownload {
  id: number;
  series_id: number;
  kind: string;
  volume: string | null;
  chapter: string | null;
  part: number | null;
  language: string;
  state: string;
  needs_replacement: boolean;
  verdict: { reasons: string[]; figures: Record<string, unknown> } | null;
  error: string | null;
  created_at: string;
}

beforeAll(async () => {
  app = await createTestApp();
  const create = async (json: object) =>
    (await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json }), 201)).id;
  paged = await create({ title: "Paged Series" });
  webtoon = await create({ title: "Strip Series", webtoon: true });
  const dark = await Promise.all([
    nightPage(1),
    nightPage(2),
    nightPage(3, { sparse: true }),
    darkPanelsPage(1),
    darkPanelsPage(2),
  ]);
  notCards = [...(await drawnPages(38, 100)), ...dark];
  const kinds: CardKind[] = ["pure", "noisy", "notice", "dark-grey", "noisy", "notice", "pure", "noisy"];
  cards = await Promise.all(kinds.map((k, i) => blackCard(i + 1, k)));
  slices = (await Promise.all([1, 2, 3].map((seed) => stripSlices(seed, 3, { width: 800, height: 7200 })))).flat();
});
afterAll(() => app.dispose());

async function newDownload(
  seriesId: number,
  over: { chapter?: string; state?: string; verdict?: string } = {},
): Promise<number> {
  const row = await app.ctx.db.download.create({
    data: {
      seriesId,
      kind: "chapter",
      chapter: over.chapter ?? "1",
      language: "en",
      state: over.state ?? "fetching",
      verdict: over.verdict ?? null,
    },
  });
  return row.id;
}

/** Every file and folder under the library root (dot-folders included) with size and mtime. */
function libraryTree(): string[] {
  const root = app.config.libraryRoot;
  return readdirSync(root, { recursive: true })
    .map((rel) => {
      const st = statSync(path.join(root, String(rel)));
      return `${String(rel)} ${st.isDirectory() ? "dir" : `${st.size} ${st.mtimeMs}`}`;
    })
    .sort();
}

async function row(id: number) {
  return app.ctx.db.download.findUniqueOrThrow({ where: { id } });
}

/** Cards among the pages: notices open and close a chapter. */
function withCards(pages: Buffer[], cardPages: Buffer[]): Buffer[] {
  const half = Math.ceil(cardPages.length / 2);
  return [...cardPages.slice(0, half), ...pages, ...cardPages.slice(half)];
}

describe("black cards", () => {
  it("7 of 50 pages (14 %) pass on to publishing; 8 of 50 (16 %) are degraded and kept out of the library", async () => {
    const before = libraryTree();
    const ok = await newDownload(paged, { chapter: "14" });
    const bad = await newDownload(paged, { chapter: "16" });

    const r14 = await app.services.downloads.judge(ok, withCards(notCards.slice(0, 43), cards.slice(0, 7)));
    expect(r14.verdict).toMatchObject({
      verdict: "ok",
      reasons: [],
      figures: { pages: 50, blackCards: 7, blackShare: 0.14, cardsJudged: true },
    });
    expect(await row(ok)).toMatchObject({ state: "publishing", needsReplacement: false, error: null });

    const r16 = await app.services.downloads.judge(bad, withCards(notCards.slice(0, 42), cards));
    expect(r16.verdict).toMatchObject({
      verdict: "degraded",
      reasons: ["black_cards"],
      figures: { pages: 50, blackCards: 8, blackShare: 0.16 },
    });
    const stored = await row(bad);
    expect(stored).toMatchObject({ state: "degraded", needsReplacement: true, fileId: null });
    expect(JSON.parse(stored.verdict ?? "null")).toEqual({
      version: 1,
      reasons: ["black_cards"],
      figures: {
        pages: 50,
        blackCards: 8,
        blackShare: 0.16,
        cardsJudged: true,
        medianAspect: 1.45,
        readsInPages: true,
        seriesMedianAspect: 1.45,
        seriesAspectSource: "series",
        stripThreshold: 2.2,
        stripsJudged: true,
      },
    });
    expect(r16.download).toMatchObject({
      id: bad,
      state: "degraded",
      needsReplacement: true,
      verdict: { reasons: ["black_cards"] },
    });

    // Judging writes nothing: no page, no archive, no staging file under the library root.
    expect(libraryTree()).toEqual(before);
    expect(await app.ctx.db.libraryFile.count()).toBe(0);
  });

  it("dark but drawn pages (night scenes with highlights, dark panels) are not cards", async () => {
    const id = await newDownload(paged, { chapter: "20" });
    const dark = notCards.slice(38);
    expect(dark).toHaveLength(5);
    const r = await app.services.downloads.judge(id, [...dark, ...dark]);
    expect(r.verdict).toMatchObject({ verdict: "ok", figures: { pages: 10, blackCards: 0, blackShare: 0 } });
    expect((await row(id)).state).toBe("publishing");
  });

  it("fewer than 4 pages are not judged for cards", async () => {
    const id = await newDownload(paged, { chapter: "21" });
    const r = await app.services.downloads.judge(id, cards.slice(0, 3));
    expect(r.verdict).toMatchObject({
      verdict: "ok",
      figures: { pages: 3, blackCards: 3, blackShare: 1, cardsJudged: false },
    });
    expect((await row(id)).state).toBe("publishing");
  });
});

describe("strip slices", () => {
  it("are a webtoon's normal shape: tall strips and their slices pass", async () => {
    const strips = await Promise.all([stripPage(7, { height: 2400 }), stripPage(8, { height: 3200 })]);
    const id = await newDownload(webtoon, { chapter: "3" });
    const r = await app.services.downloads.judge(id, [...slices, ...strips]);
    expect(r.verdict).toMatchObject({
      verdict: "ok",
      reasons: [],
      figures: {
        pages: 11,
        medianAspect: 3,
        readsInPages: false,
        seriesMedianAspect: null,
        stripsJudged: false,
        stripThreshold: null,
      },
    });
    expect(await row(id)).toMatchObject({ state: "publishing", needsReplacement: false });
  });

  it("degrade a chapter of a series that reads in pages, against the series' earlier chapters", async () => {
    const before = libraryTree();
    const id = await newDownload(paged, { chapter: "30" });
    const r = await app.services.downloads.judge(id, slices);
    expect(r.verdict.reasons).toEqual(["strip_slices"]);
    // The earlier chapters of this series that passed had printed-page proportions.
    expect(r.verdict.figures).toMatchObject({
      medianAspect: 3,
      readsInPages: true,
      seriesMedianAspect: 1.45,
      seriesAspectSource: "series",
      stripThreshold: 2.2,
    });
    expect(await row(id)).toMatchObject({ state: "degraded", needsReplacement: true });
    expect(libraryTree()).toEqual(before);
  });

  it("without earlier chapters a paged series is judged against a printed page's proportions", async () => {
    const fresh = (
      await expectJson<{ id: number }>(
        await app.api("/api/manga", { method: "POST", json: { title: "Fresh Series" } }),
        201,
      )
    ).id;
    const id = await newDownload(fresh);
    const r = await app.services.downloads.judge(id, slices.slice(0, 4));
    expect(r.verdict).toMatchObject({
      reasons: ["strip_slices"],
      figures: { seriesMedianAspect: 1.45, seriesAspectSource: "nominal" },
    });
  });

  it("a series whose passed chapters have tall pages is not judged for strips; degraded chapters do not count", async () => {
    const tall = (
      await expectJson<{ id: number }>(
        await app.api("/api/manga", { method: "POST", json: { title: "Tall Pages" } }),
        201,
      )
    ).id;
    const figures = (medianAspect: number) => JSON.stringify({ version: 1, reasons: [], figures: { medianAspect } });
    await newDownload(tall, { chapter: "1", state: "published", verdict: figures(1.9) });
    await newDownload(tall, { chapter: "2", state: "publishing", verdict: figures(2.0) });
    await newDownload(tall, { chapter: "3", state: "degraded", verdict: figures(0.5) });
    const id = await newDownload(tall, { chapter: "4" });
    const r = await app.services.downloads.judge(id, slices.slice(0, 4));
    expect(r.verdict).toMatchObject({
      verdict: "ok",
      figures: { seriesMedianAspect: 1.95, seriesAspectSource: "series", stripsJudged: false },
    });
  });
});

describe("refusals and failures", () => {
  it("a page that is no image fails the download with its coded error", async () => {
    const id = await newDownload(paged, { chapter: "40" });
    const e = await appErrorOf(
      app.services.downloads.judge(id, [notCards[0] as Buffer, randomBytes(3000), notCards[1] as Buffer]),
    );
    expect(e.code).toBe("image_unreadable");
    expect(e.extra.page).toBe(2);
    const stored = await row(id);
    expect(stored).toMatchObject({ state: "failed", needsReplacement: false, verdict: null });
    expect(stored.error).toMatch(/^image_unreadable: page 2: /);
  });

  it("a page over the configured pixel limit fails it too", async () => {
    // No workers: on PostgreSQL a worker's first recovery sweep, running while the test writes its
    // `judging` row, would rightly take that unclaimed row for an interrupted download.
    const small = await createTestApp({ env: { IMAGE_MAX_PIXELS: "500000", INSTANCE_ROLE: "api" }, listen: false });
    try {
      const series = await small.services.series.create({ title: "Small" });
      const d = await small.ctx.db.download.create({
        data: { seriesId: series.id, kind: "chapter", chapter: "1", language: "en", state: "judging" },
      });
      expect((await appErrorOf(small.services.downloads.judge(d.id, notCards.slice(0, 2)))).code).toBe(
        "image_too_large",
      );
      expect(await small.ctx.db.download.findUniqueOrThrow({ where: { id: d.id } })).toMatchObject({ state: "failed" });
    } finally {
      await small.dispose();
    }
  });

  it("refuses an unknown download, one past judging, one being judged, and one without pages", async () => {
    expect((await appErrorOf(app.services.downloads.judge(999_999, notCards.slice(0, 4)))).code).toBe(
      "download_not_found",
    );
    for (const state of ["degraded", "publishing", "published", "failed"]) {
      const id = await newDownload(paged, { state });
      const e = await appErrorOf(app.services.downloads.judge(id, notCards.slice(0, 4)));
      expect(e.code).toBe("download_not_judgeable");
      expect(e.status).toBe(409);
      expect((await row(id)).state).toBe(state);
    }
    const id = await newDownload(paged, { chapter: "41" });
    const first = app.services.downloads.judge(id, notCards.slice(0, 6));
    expect((await appErrorOf(app.services.downloads.judge(id, notCards.slice(0, 6)))).code).toBe(
      "download_not_judgeable",
    );
    expect((await first).download.state).toBe("publishing");
    expect((await appErrorOf(app.services.downloads.judge(await newDownload(paged), []))).code).toBe("bad_request");
  });

  it("tells the library's subscribers after a verdict", async () => {
    const events = app.ctx.events.subscribe();
    const next = events.next();
    const id = await newDownload(webtoon, { chapter: "50" });
    await app.services.downloads.judge(id, notCards.slice(0, 4));
    expect((await next).value).toMatchObject({ kind: "series_changed", seriesId: webtoon });
    await events.return?.();
  });
});

/* ------------------------------------------------------------------------------------------ */
/* API                                                                                         */
/* ------------------------------------------------------------------------------------------ */

const GQL_DOWNLOADS = `query ($id: Int!) { downloads(seriesId: $id) {
  id seriesId kind volume chapter part language state needsReplacement error createdAt
  attempts pagesDone pagesTotal nextAttemptAt cancelRequested cancellable blocked blockable providerName externalId scanlator fileId replacesFileId
  verdict { reasons figures { pages blackCards blackShare maxBlackShare cardsJudged medianAspect readsInPages seriesMedianAspect seriesAspectSource stripThreshold stripsJudged } }
} }`;

type GqlDownload = Record<string, unknown> & {
  verdict: { reasons: string[]; figures: Record<string, unknown> } | null;
};
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const lower = (v: unknown) => (typeof v === "string" && /^[A-Z_]+$/.test(v) ? v.toLowerCase() : v);
/** A GraphQL download in the REST spelling: snake_case keys, enum names as the REST strings. */
function asRest(d: GqlDownload): RestDownload {
  const plain = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [snake(k), lower(v)]));
  const { verdict, ...rest } = d;
  return {
    ...plain(rest),
    verdict: verdict && { reasons: verdict.reasons.map((r) => r.toLowerCase()), figures: plain(verdict.figures) },
  } as unknown as RestDownload;
}

describe("GET /api/manga/{id}/downloads and GraphQL downloads", () => {
  it("list a series' downloads newest first, with state, replacement need and verdict; both agree", async () => {
    const list = await expectJson<RestDownload[]>(await app.api(`/api/manga/${paged}/downloads`), 200);
    const rows = await app.ctx.db.download.findMany({
      where: { seriesId: paged },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    expect(list.map((d) => d.id)).toEqual(rows.map((r) => r.id));
    expect(list.length).toBeGreaterThan(8);
    for (let i = 1; i < list.length; i++)
      expect(Date.parse((list[i - 1] as RestDownload).created_at)).toBeGreaterThanOrEqual(
        Date.parse((list[i] as RestDownload).created_at),
      );

    const degraded = list.find((d) => d.chapter === "16");
    expect(degraded).toEqual({
      id: expect.any(Number),
      series_id: paged,
      kind: "chapter",
      volume: null,
      chapter: "16",
      part: null,
      language: "en",
      state: "degraded",
      needs_replacement: true,
      verdict: {
        reasons: ["black_cards"],
        figures: {
          pages: 50,
          black_cards: 8,
          black_share: 0.16,
          max_black_share: 0.15,
          cards_judged: true,
          median_aspect: 1.45,
          reads_in_pages: true,
          series_median_aspect: 1.45,
          series_aspect_source: "series",
          strip_threshold: 2.2,
          strips_judged: true,
        },
      },
      error: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      // Pipeline fields: a row judged directly was never fetched by the pipeline.
      attempts: 0,
      pages_done: 0,
      pages_total: null,
      next_attempt_at: null,
      cancel_requested: false,
      cancellable: false,
      blocked: false,
      blockable: false,
      provider_name: null,
      external_id: null,
      scanlator: null,
      file_id: null,
      replaces_file_id: null,
    });
    expect(list.find((d) => d.chapter === "30")).toMatchObject({
      state: "degraded",
      needs_replacement: true,
      verdict: { reasons: ["strip_slices"] },
    });
    expect(list.find((d) => d.chapter === "14")).toMatchObject({
      state: "publishing",
      needs_replacement: false,
      verdict: { reasons: [] },
    });
    expect(list.find((d) => d.chapter === "40")).toMatchObject({
      state: "failed",
      verdict: null,
      error: expect.stringMatching(/^image_unreadable/),
    });

    for (const id of [paged, webtoon]) {
      const rest = await expectJson<RestDownload[]>(await app.api(`/api/manga/${id}/downloads`), 200);
      const gql = await app.gql<{ downloads: GqlDownload[] }>(GQL_DOWNLOADS, { id });
      expect(gql.errors).toBeUndefined();
      expect(gql.data?.downloads.map(asRest)).toEqual(rest);
    }
  });

  it("answer series_not_found for an unknown series, in both", async () => {
    await expectProblem(await app.api("/api/manga/424242/downloads"), 404, "series_not_found");
    const gql = await app.gql(GQL_DOWNLOADS, { id: 424242 });
    expect(gql.errors?.[0]?.extensions?.code).toBe("series_not_found");
    await expectProblem(await app.api("/api/manga/abc/downloads"), 400, "bad_request");
  });

  it("need the API key", async () => {
    await expectProblem(
      await app.api(`/api/manga/${paged}/downloads`, { headers: { "x-api-key": "wrong" } }),
      401,
      "unauthenticated",
    );
  });
});
