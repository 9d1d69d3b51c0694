/**
 * Demo seeding on first start (DEMO_LIBRARY). One real generation (a few seconds) serves every
 * assertion about what the demo records; the other cases never generate.
 */
import { mkdirSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { Open } from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import { compareLabels, type Label } from "../src/domain/labels.ts";
import { seedDemoLibraryIfEmpty } from "../src/services/series/demo-service.ts";
import { expectJson, type RestMap, type RestUnits } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const HARBOR = "Harbor of Paper Cranes";
const LANTERNS = "Lanterns of the Salt Road";
const MOSS = "Moss & Meteor";
const SKY = "Skyline Greenhouse";
const CLOCK = "The Clockmaker's Apprentice";

const range = (a: number, b: number): string[] => Array.from({ length: b - a + 1 }, (_, i) => String(a + i));
const pad = (n: string, w: number) => n.padStart(w, "0");
const byLabel = (a: string, b: string) => compareLabels(a as Label, b as Label);

interface Numbering {
  path: string;
  kind: string;
  volume: string | null;
  chapter: string | null;
  part: number | null;
  tagSource: string | null;
}

const book = (series: string, n: number, comicInfo: boolean): Numbering => ({
  path: `${series}/${series} v${pad(String(n), 2)}.cbz`,
  kind: "book",
  volume: String(n),
  chapter: null,
  part: null,
  tagSource: comicInfo ? "comicinfo" : "filename",
});

const chapter = (series: string, c: string, options: { part?: number; comicInfo?: boolean } = {}): Numbering => {
  const [whole, fraction] = c.split(".");
  const tag = `c${pad(whole ?? "", 3)}${fraction ? `.${fraction}` : ""}`;
  return {
    path: `${series}/${series} - ${tag}${options.part ? ` (part ${options.part})` : ""}.cbz`,
    kind: "chapter",
    volume: null,
    chapter: c,
    part: options.part ?? null,
    tagSource: options.comicInfo ? "comicinfo" : "filename",
  };
};

const clockChapters = [...range(0, 10), "10.5", ...range(11, 24)];

/** What the demo writes, file by file, with the numbering the scan must read from it. */
const EXPECTED_FILES: Record<string, Numbering[]> = {
  [LANTERNS]: [1, 2, 3, 4].map((n) => book(LANTERNS, n, n <= 3)),
  // Every fourth chapter carries ComicInfo (its Number repeats the file name's chapter).
  [CLOCK]: clockChapters.map((c, i) => chapter(CLOCK, c, { comicInfo: i % 4 === 0 })),
  [HARBOR]: [
    ...[1, 2, 3].map((n) => book(HARBOR, n, n === 1)),
    ...range(25, 40)
      .filter((c) => c !== "28")
      .flatMap((c) =>
        c === "36" ? [chapter(HARBOR, c, { part: 1 }), chapter(HARBOR, c, { part: 2 })] : [chapter(HARBOR, c)],
      ),
    chapter(HARBOR, "40.5"),
  ],
  [MOSS]: [...[1, 2].map((n) => book(MOSS, n, false)), ...range(7, 20).map((c) => chapter(MOSS, c))],
  [SKY]: range(1, 12).map((c) => ({
    path: `${SKY}/${SKY} - Episode ${pad(c, 2)}.cbz`,
    kind: "chapter",
    volume: null,
    chapter: c,
    part: null,
    tagSource: "filename",
  })),
};

const HARBOR_MAP = [
  { volume: "1", chapters: range(1, 8) },
  { volume: "2", chapters: range(9, 16) },
  { volume: "3", chapters: range(17, 24) },
  { volume: "4", chapters: range(25, 32) },
  { volume: "5", chapters: [...range(33, 40), "40.5"] },
];

/** Everything a repeated generation or seeding would disturb: rows and the files on disk. */
async function state(app: App, libraryRoot: string) {
  const { db } = app.ctx;
  const disk: Record<string, number> = {};
  for (const folder of await readdir(libraryRoot)) {
    for (const name of await readdir(path.join(libraryRoot, folder))) {
      disk[`${folder}/${name}`] = (await stat(path.join(libraryRoot, folder, name))).mtimeMs;
    }
  }
  return {
    series: await db.series.findMany({ orderBy: { id: "asc" } }),
    files: await db.libraryFile.findMany({ orderBy: { id: "asc" } }),
    volumes: await db.volumeSlot.findMany({ orderBy: { id: "asc" } }),
    chapters: await db.chapterSlot.findMany({ orderBy: { id: "asc" } }),
    sources: await db.mapSource.findMany({ orderBy: { id: "asc" } }),
    entries: await db.mapEntry.findMany({ orderBy: { id: "asc" } }),
    disk,
  };
}

describe("first start with an empty library and DEMO_LIBRARY on", () => {
  let app: TestApp;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    app = await createTestApp({ demo: true });
    for (const s of await app.ctx.db.series.findMany()) ids[s.folder] = s.id;
  });
  afterAll(async () => {
    await app.dispose();
  });

  it("creates the five demo series with their statuses, book counts, form and webtoon flag", async () => {
    const list = await expectJson<Record<string, unknown>[]>(await app.api("/api/manga"), 200);
    expect(
      list.map((s) => [s.title, s.folder, s.status, s.known_book_count, s.form, s.webtoon, s.language, s.monitored]),
    ).toEqual([
      [HARBOR, HARBOR, "finished", 5, "books", false, "en", true],
      [LANTERNS, LANTERNS, "finished", 4, "books", false, "en", true],
      [MOSS, MOSS, "paused", null, "chapters", false, "en", true],
      [SKY, SKY, "running", null, "chapters", true, "en", true],
      [CLOCK, CLOCK, "running", null, "chapters", false, "en", true],
    ]);
    expect((await readdir(app.config.libraryRoot)).sort()).toEqual([HARBOR, LANTERNS, MOSS, SKY, CLOCK].sort());
  });

  it("records every file written, in its series, with the numbering and page count of the archive", async () => {
    const rows = await app.ctx.db.libraryFile.findMany({ orderBy: { path: "asc" } });
    expect(rows).toHaveLength(78);
    for (const [folder, expected] of Object.entries(EXPECTED_FILES)) {
      const mine = rows.filter((r) => r.seriesId === ids[folder]);
      expect(
        mine.map((r) => ({
          path: r.path,
          kind: r.kind,
          volume: r.volume,
          chapter: r.chapter,
          part: r.part,
          tagSource: r.tagSource,
        })),
      ).toEqual([...expected].sort((a, b) => (a.path < b.path ? -1 : 1)));
      // The recorded files are exactly the archives in the folder.
      expect((await readdir(path.join(app.config.libraryRoot, folder))).map((n) => `${folder}/${n}`).sort()).toEqual(
        mine.map((r) => r.path).sort(),
      );
    }
    for (const r of rows) {
      // A book the scan finds was placed there by hand: a hand import; chapters are scanned files.
      expect({ state: r.state, origin: r.origin }).toEqual({
        state: "active",
        origin: r.kind === "book" ? "import" : "scan",
      });
      const abs = path.join(app.config.libraryRoot, r.path);
      expect(Number(r.size)).toBe(statSync(abs).size);
      // Page count checked against the archive itself, read by another zip reader.
      const dir = await Open.file(abs);
      expect(r.pageCount).toBe(dir.files.filter((f) => f.path.endsWith(".jpg")).length);
    }
    expect(rows.find((r) => r.path === `${SKY}/${SKY} - Episode 01.cbz`)?.pageCount).toBe(3);
  });

  it("records the slots the demo knows: volumes up to the book count, chapter 0 and decimals, split and extra chapters", async () => {
    const slots = async (folder: string) => {
      const seriesId = ids[folder];
      const volumes = (await app.ctx.db.volumeSlot.findMany({ where: { seriesId } }))
        .map((v) => v.number)
        .sort(byLabel);
      const chapters = (await app.ctx.db.chapterSlot.findMany({ where: { seriesId } }))
        .sort((a, b) => byLabel(a.number, b.number))
        .map((c) => (c.parts === 1 && !c.extra ? c.number : { number: c.number, parts: c.parts, extra: c.extra }));
      return { volumes, chapters };
    };
    expect(await slots(LANTERNS)).toEqual({ volumes: ["1", "2", "3", "4"], chapters: [] });
    expect(await slots(CLOCK)).toEqual({ volumes: [], chapters: clockChapters });
    expect(await slots(HARBOR)).toEqual({
      volumes: ["1", "2", "3", "4", "5"],
      chapters: [
        ...range(1, 35),
        { number: "36", parts: 2, extra: false },
        ...range(37, 40),
        { number: "40.5", parts: 1, extra: true },
      ],
    });
    expect(await slots(MOSS)).toEqual({ volumes: ["1", "2"], chapters: range(1, 20) });
    expect(await slots(SKY)).toEqual({ volumes: [], chapters: range(1, 12) });
    expect(await app.ctx.db.chapterSlot.count({ where: { monitored: false } })).toBe(0);
  });

  it("saves the operator map of the mapped series at revision 1, and no map anywhere else", async () => {
    expect(await expectJson(await app.api(`/api/manga/${ids[HARBOR]}/chapter-map`), 200)).toEqual({
      series_id: ids[HARBOR],
      revision: 1,
      state: "exact",
      entries: HARBOR_MAP,
      readings: [],
      suggestions: [],
      conflicts: [],
    });
    for (const folder of [LANTERNS, MOSS, SKY, CLOCK]) {
      const other = await expectJson<RestMap>(await app.api(`/api/manga/${ids[folder]}/chapter-map`), 200);
      expect({ folder, revision: other.revision, entries: other.entries, state: other.state }).toEqual({
        folder,
        revision: 0,
        entries: [],
        state: "none",
      });
    }
    const sources = await app.ctx.db.mapSource.findMany();
    expect(sources.map((s) => ({ seriesId: s.seriesId, kind: s.kind, name: s.name, revision: s.revision }))).toEqual([
      { seriesId: ids[HARBOR], kind: "operator", name: "operator", revision: 1 },
    ]);
  });

  it("shows the mapped series as the demo intends: books 1–3 on disk, book 4 missing chapter 28, book 5 complete from chapters", async () => {
    const body = await expectJson<RestUnits>(await app.api(`/api/manga/${ids[HARBOR]}/units`), 200);
    expect(body.map).toBe("exact");
    const books = body.units
      .filter((u) => u.kind === "book")
      .map((u) => [u.number, u.owned, u.coverage, u.plan, u.problems]);
    expect(books).toEqual([
      ["1", true, null, "book on disk", []],
      ["2", true, null, "book on disk", []],
      ["3", true, null, "book on disk", []],
      ["4", false, null, "in part", ["missing chapters: 28"]],
      ["5", false, "covered_by_chapters", "assemble when its chapters are complete", []],
    ]);
    const extra = body.units.find((u) => u.kind === "chapter" && u.number === "40.5");
    expect(extra).toMatchObject({ owned: true, extra: true });
  });

  it("does not generate again on a second start on the same data dir and library", async () => {
    const before = await state(app, app.config.libraryRoot);
    // A second start: createApp seeds when the library is empty; a regeneration would also throw
    // because the demo folders exist.
    const again = await createApp(app.config, { migrate: false });
    try {
      expect(await state(again, app.config.libraryRoot)).toEqual(before);
      expect(await seedDemoLibraryIfEmpty(again.ctx, again.services)).toBe(false);
      expect(await state(again, app.config.libraryRoot)).toEqual(before);
    } finally {
      await again.close();
    }
  });
});

describe("starts that never generate the demo", () => {
  it("creates nothing with DEMO_LIBRARY=0", async () => {
    const app = await createTestApp({ env: { DEMO_LIBRARY: "0" } });
    try {
      expect(app.config.demoLibrary).toBe(false);
      expect(await app.ctx.db.series.count()).toBe(0);
      expect(await app.ctx.db.libraryFile.count()).toBe(0);
      expect(await readdir(app.config.libraryRoot)).toEqual([]);
    } finally {
      await app.dispose();
    }
  });

  it("never writes over a library root that already holds a folder, even one named like a demo series", async () => {
    const base = await createTestApp({ listen: false });
    await base.close();
    const own = path.join(base.config.libraryRoot, MOSS);
    mkdirSync(own);
    writeFileSync(path.join(own, "mine.cbz"), "the operator's own bytes");
    try {
      const app = await createApp({ ...base.config, demoLibrary: true }, { migrate: false });
      try {
        expect(await readdir(base.config.libraryRoot)).toEqual([MOSS]);
        expect(await readdir(own)).toEqual(["mine.cbz"]);
        expect(readFileSync(path.join(own, "mine.cbz"), "utf8")).toBe("the operator's own bytes");
        // Skipped entirely: no demo series, no scan of the operator's folder either.
        expect(await app.ctx.db.series.count()).toBe(0);
        expect(await app.ctx.db.libraryFile.count()).toBe(0);
      } finally {
        await app.close();
      }
    } finally {
      rmSync(base.dir, { recursive: true, force: true });
    }
  });

  it("does not seed when the database already has a series, even with an empty root", async () => {
    const base = await createTestApp({ listen: false });
    await base.close();
    try {
      const first = await createApp(base.config, { migrate: false });
      await first.ctx.db.series.create({ data: { title: "Kept", folder: "Kept" } });
      await first.close();

      const app = await createApp({ ...base.config, demoLibrary: true }, { migrate: false });
      try {
        expect(await readdir(base.config.libraryRoot)).toEqual([]);
        expect((await app.ctx.db.series.findMany()).map((s) => s.folder)).toEqual(["Kept"]);
      } finally {
        await app.close();
      }
    } finally {
      rmSync(base.dir, { recursive: true, force: true });
    }
  });
});
