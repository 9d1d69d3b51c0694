/**
 * A library folder that went away (an unmounted disk or share) is never made again by a write: the
 * queued downloads wait for it, a new series is refused with `library_root_missing`, the health
 * says so, and once the folder is back the downloads go on into it. A first start makes the folder;
 * a later start without it (the disk mounted after the service started) does not. From an empty
 * service, through the public API and a Suwayomi-compatible server on 127.0.0.1.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, rename } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { createSeries, expectJson, expectProblem, linkSources, useSuwayomi, type RestUnits } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakePage,
  type FakeSuwayomi,
  type FakeWork,
} from "./fakes/suwayomi-server.ts";
import { createApp } from "../src/app.ts";
import { createTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

const SOURCE = { id: "5151", name: "Harbor Scans", lang: "en" };

describe("a library folder that went away", () => {
  let app: TestApp;
  let fake: FakeSuwayomi;
  beforeAll(async () => {
    const pages = await drawnChapter(6, 11);
    fake = await startFakeSuwayomi({
      sources: [SOURCE],
      works: [
        fakeWork({
          id: 71,
          title: "Lantern Row",
          source: SOURCE,
          chapters: [1, 2, 3].map((n) => fakeChapter({ chapterNumber: n, pages })),
        }),
      ],
    });
    app = await createTestApp({ env: FAST_ENV });
    await useSuwayomi(app, fake.url);
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("a first start makes it (nothing recorded yet)", () => {
    expect(existsSync(app.config.libraryRoot)).toBe(true);
  });

  it("is not made again: downloads wait for it, a new series is refused, and both go on once it is back", async () => {
    const root = app.config.libraryRoot;
    const id = await createSeries(app, "Lantern Row");
    const aside = `${root}-unmounted`;
    await rename(root, aside);

    // Linking runs the first pass: the three chapters are queued, and stay queued.
    await linkSources(app, id, [[SOURCE.id, 71, 0, "en"]]);
    const downloads = async () =>
      expectJson<{ chapter: string; state: string }[]>(await app.api(`/api/manga/${id}/downloads`), 200);
    await until("three downloads queued", downloads, (d) => d.length === 3);
    // Several looks of the pipeline (DOWNLOAD_POLL_MS is 30 ms here).
    await new Promise((r) => setTimeout(r, 600));
    expect((await downloads()).map((d) => d.state)).toEqual(["queued", "queued", "queued"]);
    expect(fake.requests.some((r) => r.includes("/page/"))).toBe(false);
    expect(existsSync(root)).toBe(false);

    const problem = await expectProblem(
      await app.api("/api/manga", { method: "POST", json: { title: "Paper Moon" } }),
      503,
      "library_root_missing",
    );
    expect(problem.detail).toContain(root);
    expect(existsSync(root)).toBe(false);
    const gql = await app.gql<unknown>(`mutation { createSeries(input: { title: "Paper Moon" }) { id } }`);
    expect(gql.errors?.[0]?.extensions?.code).toBe("library_root_missing");
    expect(existsSync(root)).toBe(false);
    const list = await expectJson<{ title: string }[]>(await app.api("/api/manga"), 200);
    expect(list.map((s) => s.title)).toEqual(["Lantern Row"]);
    // A scan asked for is refused too: it would read the library as emptied.
    await expectProblem(await app.api("/api/library/scan", { method: "POST" }), 503, "library_root_missing");
    const scan = await app.gql<unknown>(`mutation { scanLibrary { added } }`);
    expect(scan.errors?.[0]?.extensions?.code).toBe("library_root_missing");
    expect(existsSync(root)).toBe(false);

    const health = await expectJson<{ checks: { code: string }[] }>(await app.api("/api/system/health"), 200);
    expect(health.checks.map((c) => c.code)).toContain("library_root_missing");

    // The disk is back: the queued downloads go on into it.
    await rename(aside, root);
    await until("the three chapters published", downloads, (d) => d.every((x) => x.state === "published"), 30_000);
    const units = await expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
    expect(units.units.filter((u) => u.kind === "chapter" && u.owned).map((u) => u.number)).toEqual(["1", "2", "3"]);
    expect((await readdir(path.join(root, "Lantern Row"))).filter((f) => f.endsWith(".cbz"))).toHaveLength(3);
    await expectJson(await app.api("/api/manga", { method: "POST", json: { title: "Paper Moon" } }), 201);
  });

  it("is not made again by a later start (a disk mounted after the service started)", async () => {
    const root = app.config.libraryRoot;
    const aside = `${root}-unmounted`;
    await app.close();
    await rename(root, aside);
    try {
      const again = await createApp(app.config, { migrate: false, seedDemo: false });
      try {
        expect(existsSync(root)).toBe(false);
        const port = await again.listen();
        const res = await fetch(`http://127.0.0.1:${port}/api/system/health`, {
          headers: { "x-api-key": TEST_API_KEY },
        });
        const health = await expectJson<{ checks: { code: string }[] }>(res, 200);
        expect(health.checks.map((c) => c.code)).toContain("library_root_missing");
      } finally {
        await again.close();
      }
      expect(existsSync(root)).toBe(false);
    } finally {
      await rename(aside, root);
    }
  });
});

describe("a library folder that is an empty mount point", () => {
  let app: TestApp;
  let fake: FakeSuwayomi;
  let work: FakeWork;
  let pages: FakePage[];
  beforeAll(async () => {
    pages = await drawnChapter(6, 21);
    work = fakeWork({
      id: 72,
      title: "Tide Clock",
      source: SOURCE,
      chapters: [1, 2].map((n) => fakeChapter({ chapterNumber: n, pages })),
    });
    fake = await startFakeSuwayomi({ sources: [SOURCE], works: [work] });
    app = await createTestApp({ env: FAST_ENV });
    await useSuwayomi(app, fake.url);
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("holds the downloads while it has no series folder and files are recorded; they go on once the folders are back", async () => {
    const root = app.config.libraryRoot;
    const id = await createSeries(app, "Tide Clock");
    await linkSources(app, id, [[SOURCE.id, 72, 0, "en"]]);
    const downloads = async () =>
      expectJson<{ chapter: string; state: string }[]>(await app.api(`/api/manga/${id}/downloads`), 200);
    await until("two chapters published", downloads, (d) => d.length === 2 && d.every((x) => x.state === "published"));

    // The disk goes away under a mount point that stays: the folder is there, empty of series.
    const aside = `${root}-elsewhere`;
    await mkdir(aside);
    await rename(path.join(root, "Tide Clock"), path.join(aside, "Tide Clock"));
    work.chapters.push(fakeChapter({ chapterNumber: 3, pages }));
    // A refresh of the series' sources runs its Wanted pass (an operator's refresh).
    await expectJson(await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }), 200);
    await until("chapter 3 queued", downloads, (d) => d.some((x) => x.chapter === "3"));
    await new Promise((r) => setTimeout(r, 600));
    expect((await downloads()).find((x) => x.chapter === "3")?.state).toBe("queued");
    expect((await readdir(root)).filter((n) => !n.startsWith("."))).toEqual([]);
    const health = await expectJson<{ checks: { code: string; message: string }[] }>(
      await app.api("/api/system/health"),
      200,
    );
    expect(health.checks.map((c) => c.code)).toContain("library_root_empty");
    // A new series is refused too: its folder on the bare mount point would make the library look
    // mounted again, and the scheduled scan would then mark every recorded file missing.
    const problem = await expectProblem(
      await app.api("/api/manga", { method: "POST", json: { title: "Paper Moon" } }),
      503,
      "library_root_empty",
    );
    expect(problem.detail).toContain(root);
    const gql = await app.gql<unknown>(`mutation { createSeries(input: { title: "Paper Moon" }) { id } }`);
    expect(gql.errors?.[0]?.extensions?.code).toBe("library_root_empty");
    expect((await readdir(root)).filter((n) => !n.startsWith("."))).toEqual([]);
    const list = await expectJson<{ title: string }[]>(await app.api("/api/manga"), 200);
    expect(list.map((s) => s.title)).toEqual(["Tide Clock"]);

    // The disk is back.
    await rename(path.join(aside, "Tide Clock"), path.join(root, "Tide Clock"));
    await until("chapter 3 published", downloads, (d) => d.every((x) => x.state === "published"), 30_000);
    expect((await readdir(path.join(root, "Tide Clock"))).filter((f) => f.endsWith(".cbz"))).toHaveLength(3);
    const after = await expectJson<{ checks: { code: string }[] }>(await app.api("/api/system/health"), 200);
    expect(after.checks.map((c) => c.code)).not.toContain("library_root_empty");
    await expectJson(await app.api("/api/manga", { method: "POST", json: { title: "Paper Moon" } }), 201);
  });
});
