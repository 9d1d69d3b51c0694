/**
 * The content check of fresh downloads as an outside checker probes it, from an empty service and
 * through the public API only, with a Suwayomi-compatible server on 127.0.0.1 serving generated
 * pages: a series created by POST, two sources linked; the preferred source serves a chapter of
 * every page format and shape (PNG, WebP, GIF, AVIF, CMYK, progressive and greyscale JPEG, a page
 * stored sideways with its EXIF rotation, a landscape spread), three black pages (too few to judge),
 * black "chapter not available" cards above 15 %, and a chapter with a page that is no image. The
 * first two arrive from it; the cards are degraded and the broken chapter failed, and both come
 * from the other source. A webtoon series keeps the strip slices a paged series would refuse.
 */
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blackCard, drawnPage, stripSlices } from "../src/library/test-pages.ts";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakePage,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7201", name: "Night Harbor", lang: "en" };
const B: FakeSource = { id: "7202", name: "Day Harbor", lang: "en" };
const page = (bytes: Buffer, contentType = "image/jpeg"): FakePage => ({ bytes, contentType });
const size = { width: 400, height: 580 };

interface RestDownload {
  chapter: string | null;
  state: string;
  provider_name: string | null;
  error: string | null;
  verdict: { reasons: string[]; figures: { cards_judged: boolean; black_cards: number } } | null;
}

/** A near-black card with one line of white text, as a source puts in place of a missing page. */
const noticeCard = () =>
  sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="580"><rect width="100%" height="100%" fill="#070707"/>` +
        `<text x="200" y="290" font-family="DejaVu Sans" font-size="22" fill="#fff" text-anchor="middle">chapter not available</text></svg>`,
    ),
  )
    .jpeg({ quality: 70 })
    .toBuffer();

/** Starts like a JPEG and ends like one, but its middle is no image: the decoder refuses it. */
const brokenPage = () =>
  Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 251)),
    Buffer.from([0xff, 0xd9]),
  ]);

let fake: FakeSuwayomi;
let app: TestApp;

beforeAll(async () => {
  const d = await drawnPage(3, size);
  const formats = [
    page(await sharp(d).png().toBuffer(), "image/png"),
    page(await sharp(d).webp().toBuffer(), "image/webp"),
    page(await sharp(d).gif().toBuffer(), "image/gif"),
    page(await sharp(d).avif().toBuffer(), "image/avif"),
    page(await sharp(d).toColourspace("cmyk").jpeg().toBuffer()),
    page(await sharp(d).jpeg({ progressive: true }).toBuffer()),
    page(await sharp(d).toColourspace("b-w").jpeg().toBuffer()),
    page(await sharp(d).rotate(90).jpeg().withMetadata({ orientation: 8 }).toBuffer()),
    page(await sharp(d).resize(800, 580, { fit: "fill" }).jpeg().toBuffer()),
  ];
  const black = await Promise.all([1, 2, 3].map(async (s) => page(await blackCard(s, "pure", size))));
  const card = page(await noticeCard());
  const slices = (await stripSlices(9, 6, { width: 400, height: 400 * 18 })).map((b) => page(b));
  const workA = fakeWork({
    id: 951,
    title: "Lantern Quay",
    source: A,
    chapters: [
      fakeChapter({ chapterNumber: 1, pages: formats }),
      fakeChapter({ chapterNumber: 2, pages: black }),
      // 4 of 20 (20 %) are cards: degraded.
      fakeChapter({ chapterNumber: 3, pages: [...(await drawnChapter(16, 3)), card, card, card, card] }),
      fakeChapter({ chapterNumber: 4, pages: [...(await drawnChapter(4, 4)), page(brokenPage())] }),
    ],
  });
  const workB = fakeWork({
    id: 952,
    title: "Lantern Quay",
    source: B,
    chapters: await Promise.all(
      [1, 2, 3, 4].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(6, 60 + n) })),
    ),
  });
  const strip = fakeWork({
    id: 953,
    title: "Long Quay",
    source: A,
    chapters: [fakeChapter({ chapterNumber: 1, pages: slices })],
  });
  const tall = fakeWork({
    id: 954,
    title: "Tall Quay",
    source: A,
    chapters: [fakeChapter({ chapterNumber: 1, pages: slices })],
  });
  fake = await startFakeSuwayomi({ works: [workA, workB, strip, tall], sources: [A, B] });
  app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });
  await expectJson(
    await app.api("/api/settings/sources", {
      method: "PUT",
      json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
    }),
    200,
  );
  await expectJson(await app.api("/api/providers/suwayomi/sources?lang=en"), 200);
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

async function link(id: number, title: string, source: FakeSource, priority: number): Promise<void> {
  const found = await expectJson<{ works: { source_id: string; title: string }[] }>(
    await app.api(`/api/manga/${id}/sources/search`, { method: "POST", json: { provider: source.id } }),
    200,
  );
  const work = found.works.find((w) => w.title === title)!;
  await expectJson(
    await app.api(`/api/manga/${id}/sources`, {
      method: "POST",
      json: { provider: source.id, source_id: work.source_id, language: "en", priority },
    }),
    201,
  );
}

const downloads = async (id: number) => expectJson<RestDownload[]>(await app.api(`/api/manga/${id}/downloads`), 200);
const owned = async (id: number) =>
  (await expectJson<{ units: { number: string; owned: boolean }[] }>(await app.api(`/api/manga/${id}/units`), 200))
    .units;

describe("the content check of fresh downloads (REST, from an empty service)", () => {
  it("keeps every page format and too few black pages, replaces cards and a broken chapter from the other source", async () => {
    const series = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Lantern Quay" } }),
      201,
    );
    await link(series.id, "Lantern Quay", A, 10);
    await link(series.id, "Lantern Quay", B, 0);

    const units = await until(
      "chapters 1–4 on disk",
      () => owned(series.id),
      (u) => ["1", "2", "3", "4"].every((n) => u.some((x) => x.number === n && x.owned)),
      60_000,
    );
    expect(units.filter((u) => u.owned).map((u) => u.number)).toEqual(["1", "2", "3", "4"]);
    // A file is on disk a moment before its download row reads published.
    const rows = await until(
      "downloads settled",
      () => downloads(series.id),
      (r) => r.every((x) => ["published", "degraded", "failed"].includes(x.state)),
      60_000,
    );
    const outcome = (n: string) =>
      rows
        .filter((r) => r.chapter === n)
        .map((r) => `${r.provider_name === `suwayomi:${A.id}` ? "A" : "B"} ${r.state}`)
        .sort();
    expect(outcome("1")).toEqual(["A published"]);
    expect(outcome("2")).toEqual(["A published"]);
    expect(outcome("3")).toEqual(["A degraded", "B published"]);
    // The preferred source's broken chapter is not fetched again while the other source has it.
    expect(outcome("4")).toEqual(["A failed", "B published"]);
    const of = (n: string, state: string) => rows.find((r) => r.chapter === n && r.state === state)!;
    expect(of("2", "published").verdict?.figures).toMatchObject({ black_cards: 3, cards_judged: false });
    expect(of("3", "degraded").verdict?.reasons).toEqual(["black_cards"]);
    expect(of("4", "failed").error).toMatch(/^image_unreadable: page 5: /);
  });

  it("a webtoon keeps its strip slices", async () => {
    const series = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Long Quay", webtoon: true } }),
      201,
    );
    await link(series.id, "Long Quay", A, 0);
    const rows = await until(
      "the slices published",
      () => downloads(series.id),
      (r) => r.some((x) => x.state === "published"),
      60_000,
    );
    expect(rows.map((r) => r.state)).toEqual(["published"]);
    expect(rows[0]!.verdict).toMatchObject({ reasons: [] });
  });

  it("a series marked a webtoon after its strips were degraded gets them from the same source", async () => {
    const series = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Tall Quay" } }),
      201,
    );
    await link(series.id, "Tall Quay", A, 0);
    const degraded = await until(
      "the slices degraded",
      () => downloads(series.id),
      (r) => r.some((x) => x.state === "degraded"),
      60_000,
    );
    expect(degraded.map((r) => [r.state, r.verdict?.reasons])).toEqual([["degraded", ["strip_slices"]]]);
    // Nothing else is on offer: the chapter waits, it is not fetched again as it is.
    await expectJson(await app.api(`/api/manga/${series.id}/wanted/run`, { method: "POST" }), 200);
    expect((await downloads(series.id)).map((r) => r.state)).toEqual(["degraded"]);

    await expectJson(await app.api(`/api/manga/${series.id}`, { method: "PATCH", json: { webtoon: true } }), 200);
    await expectJson(await app.api(`/api/manga/${series.id}/wanted/run`, { method: "POST" }), 200);
    const rows = await until(
      "the slices published",
      () => downloads(series.id),
      (r) => r.some((x) => x.state === "published"),
      60_000,
    );
    expect(rows.map((r) => r.state).sort()).toEqual(["degraded", "published"]);
    expect((await owned(series.id)).find((u) => u.number === "1")?.owned).toBe(true);
  });
});
