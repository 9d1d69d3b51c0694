import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  foreignPage,
  slowPage,
  startFakeSuwayomi,
  truncatedPage,
  type FakePage,
  type FakeSuwayomi,
} from "../../test/fakes/suwayomi-server.ts";
import { ProviderError } from "./provider.ts";
import { SuwayomiClient } from "./suwayomi-client.ts";
import { chapterNumbering, floatLabel, SuwayomiProvider } from "./suwayomi.ts";

describe("floatLabel / chapterNumbering (pure)", () => {
  it("carries floats as exact decimal labels", () => {
    expect(floatLabel(4.5)).toBe("4.5");
    expect(floatLabel(0)).toBe("0");
    expect(floatLabel(-1)).toBeNull();
    expect(floatLabel(Number.NaN)).toBeNull();
    expect(floatLabel(10.100000001)).toBe("10.1");
    // A Kotlin Float 10.1 serialised as a double.
    expect(floatLabel(Math.fround(10.1))).toBe("10.1");
    expect(floatLabel(Math.fround(10.15))).toBe("10.15");
    expect(floatLabel(1000.25)).toBe("1000.25");
    expect(floatLabel(12)).toBe("12");
  });

  it("takes volume and part only from the name", () => {
    expect(chapterNumbering(10, "Vol.2 Ch.10")).toEqual({ number: "10", volume: "2", part: null });
    expect(chapterNumbering(10, "Chapter 10")).toEqual({ number: "10", volume: null, part: null });
    expect(chapterNumbering(Math.fround(10.1), "Ch.10.1 part 2")).toEqual({ number: "10.1", volume: null, part: 2 });
    // The name's chapter disagrees with the number: the float wins, the name's part is not trusted.
    expect(chapterNumbering(11, "Ch.10 part 2")).toEqual({ number: "11", volume: null, part: null });
    expect(chapterNumbering(-1, "Oneshot")).toEqual({ number: null, volume: null, part: null });
    expect(chapterNumbering(0, "Chapter 0: Prologue")).toEqual({ number: "0", volume: null, part: null });
    // A pack name gives no single volume.
    expect(chapterNumbering(3, "Vol.1-2 Ch.3").volume).toBeNull();
  });
});

describe("SuwayomiProvider against a Suwayomi-compatible server", () => {
  let fake: FakeSuwayomi;
  let provider: SuwayomiProvider;
  let other: http.Server;
  let otherUrl: string;
  let otherHits = 0;
  let pages: FakePage[];

  beforeAll(async () => {
    pages = await drawnChapter(4, 7);
    other = http.createServer((_req, res) => {
      otherHits++;
      res.end("x");
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const p = pages as [FakePage, FakePage, FakePage, FakePage];
    fake = await startFakeSuwayomi({
      auth: { username: "reader", password: "s3cret" },
      works: [
        fakeWork({
          id: 7,
          title: "Blue Harbor",
          chapters: [
            fakeChapter({ id: 70, chapterNumber: 0, name: "Chapter 0: Prologue", pages }),
            fakeChapter({ id: 71, chapterNumber: 4.5, name: "Ch.4.5", scanlator: "Team A", pages }),
            fakeChapter({ id: 72, chapterNumber: 10, name: "Vol.2 Ch.10", scanlator: "Team A", pages }),
            fakeChapter({
              id: 73,
              chapterNumber: 10,
              name: "Vol.2 Ch.10",
              scanlator: "Team B",
              pages,
              pageCountKnown: false,
            }),
            fakeChapter({ id: 74, chapterNumber: -1, name: "Oneshot", pages }),
            fakeChapter({
              id: 75,
              chapterNumber: 11,
              name: "Ch.11",
              pages: [p[0], flakyPage(p[1], 2), slowPage(p[2], 300), truncatedPage(p[3])],
            }),
            fakeChapter({
              id: 76,
              chapterNumber: 12,
              name: "Ch.12",
              pages: [p[0], foreignPage(p[1], `${otherUrl}/evil.jpg`)],
            }),
          ],
        }),
        fakeWork({
          id: 11,
          title: "Grey Tide Extras",
          chapterListErrors: ["HTTP error 503", "Chapter list parse failure"],
          chapters: [fakeChapter({ id: 110, chapterNumber: 1, pages })],
        }),
        fakeWork({
          id: 10,
          title: "Grey Tide",
          chapters: [
            fakeChapter({
              id: 100,
              chapterNumber: 1,
              pages,
              sourceErrors: ["HTTP error 503", "timeout", "HTTP error 404", "Chapter not found"],
            }),
          ],
        }),
        fakeWork({ id: 8, title: "Blue Harbor Side Stories", thumbnailUrl: "https://cdn.example/cover.jpg" }),
        fakeWork({ id: 9, title: "Red Cliff" }),
      ],
    });
    const client = new SuwayomiClient({
      baseUrl: fake.url,
      auth: { kind: "basic", username: "reader", password: "s3cret" },
      timeoutMs: 2000,
    });
    const [source] = await client.sources("en");
    provider = new SuwayomiProvider(client, source!);
  });
  afterAll(async () => {
    await fake.close();
    await new Promise<void>((r) => other.close(() => r()));
  });

  it("lists sources by language with LongString ids as strings", async () => {
    expect(provider.source).toEqual({ id: "2499283573021220255", name: "MangaDex", lang: "en" });
    expect(provider.name).toBe("suwayomi:2499283573021220255");
    expect(await provider.client.sources("fr")).toEqual([]);
  });

  it("searches one source, never another language", async () => {
    const works = await provider.search("blue harbor");
    expect(works.map((w) => [w.sourceId, w.title, w.language, w.sourceName])).toEqual([
      ["7", "Blue Harbor", "en", "MangaDex"],
      ["8", "Blue Harbor Side Stories", "en", "MangaDex"],
    ]);
    expect(await provider.search("blue", { language: "fr" })).toEqual([]);
  });

  it("gives a cover as an absolute URL on the Suwayomi server, not Suwayomi's relative proxy path", async () => {
    const works = await provider.search("blue harbor");
    expect(works.map((w) => w.thumbnailUrl)).toEqual([null, `${fake.url}/api/v1/manga/8/thumbnail`]);
  });

  it("lists chapters with exact numbers, volumes from names, two scanlators for one number", async () => {
    const chapters = await provider.listChapters("7");
    expect(chapters.map((c) => [c.externalId, c.number, c.volume, c.scanlator, c.pageCount])).toEqual([
      ["70", "0", null, null, 4],
      ["71", "4.5", null, "Team A", 4],
      ["72", "10", "2", "Team A", 4],
      ["73", "10", "2", "Team B", null],
      ["74", null, null, null, 4],
      ["75", "11", null, null, 4],
      ["76", "12", null, null, 2],
    ]);
    expect(chapters[1]?.uploadedAt).toBeInstanceOf(Date);
    expect(chapters.every((c) => c.language === "en")).toBe(true);
  });

  it("fetches pages from the Suwayomi origin, 1-based", async () => {
    const ch = await provider.pages("7", "70");
    expect(ch.count).toBe(4);
    const page = await ch.fetch(2);
    expect(page.index).toBe(2);
    expect(page.bytes.equals(pages[1]!.bytes)).toBe(true);
    expect(page.contentType).toBe("image/jpeg");
    expect(fake.requests).toContain("GET /api/v1/manga/7/chapter/1/page/1");
    await expect(ch.fetch(5)).rejects.toMatchObject({ transient: false });
  });

  it("classifies 500s and truncated bodies as transient, then succeeds", async () => {
    const ch = await provider.pages("7", "75");
    await expect(ch.fetch(2)).rejects.toMatchObject({ name: "ProviderError", transient: true, status: 500 });
    await expect(ch.fetch(2)).rejects.toMatchObject({ transient: true });
    expect((await ch.fetch(2)).bytes.length).toBe(pages[1]!.bytes.length);
    await expect(ch.fetch(4)).rejects.toMatchObject({ transient: true });
  });

  it("times out slow pages (transient) and honours the caller's abort", async () => {
    const slowClient = new SuwayomiClient({
      baseUrl: fake.url,
      auth: { kind: "basic", username: "reader", password: "s3cret" },
      timeoutMs: 100,
    });
    const slow = new SuwayomiProvider(slowClient, provider.source);
    const ch = await slow.pages("7", "75");
    const err = await ch.fetch(3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ transient: true });
    const ac = new AbortController();
    const pending = (await provider.pages("7", "75")).fetch(3, ac.signal);
    ac.abort(new Error("cancelled by operator"));
    await expect(pending).rejects.toThrow("cancelled by operator");
  });

  it("refuses a page on another origin before fetching anything", async () => {
    await expect(provider.pages("7", "76")).rejects.toMatchObject({ name: "ProviderError", transient: false });
    expect(otherHits).toBe(0);
  });

  it("refuses a chapter of another manga and malformed ids", async () => {
    await expect(provider.pages("9", "70")).rejects.toMatchObject({ transient: false });
    await expect(provider.listChapters("abc")).rejects.toMatchObject({ transient: false });
    await expect(provider.listChapters("999")).rejects.toMatchObject({ transient: false });
  });

  it("answers 401 as a non-transient failure without credentials", async () => {
    const anon = new SuwayomiClient({ baseUrl: fake.url, auth: { kind: "none" } });
    await expect(anon.sources()).rejects.toMatchObject({ transient: false, status: 401 });
    const wrong = new SuwayomiClient({
      baseUrl: fake.url,
      auth: { kind: "basic", username: "reader", password: "nope" },
    });
    await expect(wrong.sources()).rejects.toMatchObject({ transient: false, status: 401 });
  });

  it("treats GraphQL 5xx/429 as transient and a refused connection as transient", async () => {
    fake.setFailure({ target: "graphql", status: 503, times: 1 });
    await expect(provider.listChapters("7")).rejects.toMatchObject({ transient: true, status: 503 });
    fake.setFailure({ target: "graphql", status: 429, times: 1 });
    await expect(provider.search("blue")).rejects.toMatchObject({ transient: true, status: 429 });
    fake.setFailure(null);
    expect((await provider.listChapters("7")).length).toBe(7);
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const dead = new SuwayomiClient({ baseUrl: `http://127.0.0.1:${port}`, auth: { kind: "none" } });
    await expect(dead.sources()).rejects.toMatchObject({ transient: true });
  });

  it("tells the source site's passing failures (reported as GraphQL errors with 200) from lasting ones", async () => {
    await expect(provider.pages("10", "100")).rejects.toMatchObject({ transient: true });
    await expect(provider.pages("10", "100")).rejects.toMatchObject({ transient: true });
    await expect(provider.pages("10", "100")).rejects.toMatchObject({ transient: false });
    await expect(provider.pages("10", "100")).rejects.toMatchObject({ transient: false });
    expect((await provider.pages("10", "100")).count).toBe(4);
  });

  it("never takes the stale list Suwayomi answers beside the error of a failed chapter refresh", async () => {
    await expect(provider.listChapters("11")).rejects.toMatchObject({
      transient: true,
      message: expect.stringContaining("HTTP error 503"),
    });
    await expect(provider.listChapters("11")).rejects.toMatchObject({ transient: false });
    expect((await provider.listChapters("11")).map((c) => c.externalId)).toEqual(["110"]);
  });

  it("sends LongString values as strings: Suwayomi refuses a JSON number for one", async () => {
    const search = `mutation S($input: FetchSourceMangaInput!) { fetchSourceManga(input: $input) { hasNextPage } }`;
    const input = { type: "SEARCH", page: 1, query: "blue" };
    await expect(
      provider.client.gql(search, { input: { ...input, source: Number(provider.source.id) } }),
    ).rejects.toMatchObject({ transient: false, message: expect.stringContaining("LongString") });
    await expect(provider.client.gql(search, { input: { ...input, source: provider.source.id } })).resolves.toEqual({
      fetchSourceManga: { hasNextPage: false },
    });
  });

  it("refuses a page larger than the cap without keeping it", async () => {
    const small = new SuwayomiProvider(
      new SuwayomiClient({
        baseUrl: fake.url,
        auth: { kind: "basic", username: "reader", password: "s3cret" },
        maxPageBytes: 1000,
      }),
      provider.source,
    );
    await expect((await small.pages("7", "70")).fetch(1)).rejects.toMatchObject({
      transient: false,
      message: expect.stringContaining("larger than 1000"),
    });
  });

  it("lists chapters from a Suwayomi before 2.3 (no fetchMangaAndChapters) through fetchChapters, asking once", async () => {
    const old = await startFakeSuwayomi({
      schema: "v2.2",
      works: [fakeWork({ id: 7, title: "Blue Harbor", chapters: [fakeChapter({ id: 90, chapterNumber: 1, pages })] })],
    });
    try {
      const client = new SuwayomiClient({ baseUrl: old.url, auth: { kind: "none" } });
      const p = new SuwayomiProvider(client, provider.source);
      expect((await p.listChapters("7")).map((c) => [c.externalId, c.number])).toEqual([["90", "1"]]);
      expect((await p.listChapters("7")).length).toBe(1);
      expect(old.requests).toEqual([
        "POST /api/graphql fetchMangaAndChapters",
        "POST /api/graphql fetchChapters",
        "POST /api/graphql fetchChapters",
      ]);
      // A manga it does not know stays an error, not a fallback loop.
      await expect(p.listChapters("999")).rejects.toMatchObject({ transient: false });
    } finally {
      await old.close();
    }
  });

  it("refuses credentials in the URL and non-http schemes", () => {
    expect(() => new SuwayomiClient({ baseUrl: "http://u:p@127.0.0.1:1", auth: { kind: "none" } })).toThrow(
      ProviderError,
    );
    expect(() => new SuwayomiClient({ baseUrl: "file:///etc", auth: { kind: "none" } })).toThrow(ProviderError);
  });
});
