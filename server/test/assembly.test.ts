/**
 * Book assembly over real HTTP and GraphQL on a real library (docs/rules.md, "Assembly"): the preview
 * and its confirmation, the archive it writes (name, page order, fresh names, stored entries,
 * ComicInfo valid against the v2.1 draft), the provenance, the chapter files moved to the recycle
 * bin, the units afterwards, every refusal code, split chapters, and the series action.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { openArchive } from "../src/library/archive-reader.ts";
import { stateDirs } from "../src/config.ts";
import {
  cbz,
  createSeriesWithFiles,
  expectJson,
  expectProblem,
  scanLibrary,
  unitOf,
  writeCbz,
  type RestUnits,
} from "./fixtures.ts";
import { createTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";
import { assertValidXml, COMICINFO_XSD_21 } from "./xmllint.ts";

const XSD = COMICINFO_XSD_21;

let app: TestApp;
let seq = 0;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.dispose();
});

interface RestPreview {
  volume: string;
  file_name: string;
  path: string;
  chapters: { number: string; file_ids: number[] }[];
  files: { id: number; path: string; sha256: string; size: number }[];
  confirmation: string;
}
interface RestResult {
  volume: string;
  file_id: number;
  path: string;
  sha256: string;
  page_count: number;
  retired: { file_id: number; recycle_entry_id: number; from: string; bin_path: string }[];
}
interface RestOutcome {
  volume: string;
  status: string;
  code: string | null;
  result: RestResult | null;
}

const post = (url: string, json?: unknown) => app.api(url, { method: "POST", json: json ?? {} });
const bookUrl = (id: number, volume: string, dry: boolean) =>
  `/api/manga/${id}/volumes/${volume}/assemble?dry_run=${dry}`;
const seriesUrl = (id: number, dry: boolean) => `/api/manga/${id}/assemble?dry_run=${dry}`;
const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);

/** A series with the given files (names relative to its folder), scanned, with an operator map. */
async function series(
  files: { name: string; pages: number }[],
  entries: { volume: string; chapters: string[] }[] | null,
  books: number[] = [],
) {
  const title = `Asm ${++seq}`;
  const s = await createSeriesWithFiles(app, title, { books, chapters: [] });
  const dir = path.join(app.config.libraryRoot, s.folder);
  for (const f of files) await writeCbz(path.join(dir, f.name.replace("$", title)), f.pages);
  await scanLibrary(app);
  if (entries)
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
      200,
    );
  const rows = await app.ctx.db.libraryFile.findMany({ where: { seriesId: s.id }, orderBy: { id: "asc" } });
  const idOf = (name: string) => {
    const row = rows.find((r) => r.path === `${s.folder}/${name.replace("$", title)}`);
    if (!row) throw new Error(`no file ${name}`);
    return row.id;
  };
  return { id: s.id, title, folder: s.folder, dir, idOf };
}

const ch = (n: number, pages = 3) => ({ name: `$ - c${String(n).padStart(3, "0")}.cbz`, pages });

/** The REST problem code and the GraphQL extensions.code of a preview, which must agree. */
async function refusalOf(id: number, volume: string): Promise<string> {
  const res = await post(bookUrl(id, volume, true));
  expect(res.status).toBe(409);
  const rest = ((await res.json()) as { code: string }).code;
  const g = await app.gql(`mutation($s:Int!,$v:String!){ previewBookAssembly(seriesId:$s, volume:$v){ fileName } }`, {
    s: id,
    v: volume,
  });
  expect(g.errors?.[0]?.extensions?.code).toBe(rest);
  return rest;
}

describe("single-book assembly", () => {
  it("builds <Series> - v<NNN> [<lang>].cbz from the chapters in order, publishes it with provenance and retires the chapter files", async () => {
    const s = await series(
      [ch(1, 3), ch(2, 2), ch(3, 4), ch(4, 1), ch(5, 2)],
      [
        { volume: "1", chapters: ["1", "2", "3", "4"] },
        { volume: "2", chapters: ["5", "6"] },
      ],
    );
    const chapterIds = [1, 2, 3, 4].map((n) => s.idOf(ch(n).name));
    // The pages the book must hold, in reading order.
    const expected: Buffer[] = [];
    for (const n of [1, 2, 3, 4]) {
      const a = await openArchive(path.join(s.dir, ch(n).name.replace("$", s.title)));
      for (const p of a.pages) expected.push(await a.readEntry(p.name));
      await a.close();
    }

    const p = await expectJson<RestPreview>(await post(bookUrl(s.id, "1", true)), 200);
    expect(p.file_name).toBe(`${s.title} - v001 [en].cbz`);
    expect(p.path).toBe(`${s.folder}/${s.title} - v001 [en].cbz`);
    expect(p.chapters).toEqual([1, 2, 3, 4].map((n, i) => ({ number: String(n), file_ids: [chapterIds[i]] })));
    expect(p.files.map((f) => f.id)).toEqual(chapterIds);
    // GraphQL previews the same plan.
    const g = await app.gql<{
      previewBookAssembly: { fileName: string; chapters: { number: string; fileIds: number[] }[] };
    }>(`mutation($s:Int!){ previewBookAssembly(seriesId:$s, volume:"1"){ fileName chapters { number fileIds } } }`, {
      s: s.id,
    });
    expect(g.data?.previewBookAssembly).toEqual({
      fileName: p.file_name,
      chapters: p.chapters.map((c) => ({ number: c.number, fileIds: c.file_ids })),
    });
    // The dry run changed nothing.
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId: s.id, state: "active" } })).toBe(5);

    const progress: { step: string; done: number; total: number }[] = [];
    const sub = app.ctx.events.subscribeAssembly();
    const collecting = (async () => {
      for await (const e of sub) {
        if (e.seriesId !== s.id) continue;
        progress.push({ step: e.step, done: e.done, total: e.total });
        if (e.step === "done" || e.step === "failed") break;
      }
    })();
    const r = await expectJson<RestResult>(
      await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
      200,
    );
    await collecting;
    expect(progress.map((x) => x.step)).toEqual([
      "hashing",
      "hashing",
      "hashing",
      "hashing",
      "writing",
      "writing",
      "writing",
      "writing",
      "publishing",
      "done",
    ]);
    expect(progress.filter((x) => x.step === "writing").map((x) => `${x.done}/${x.total}`)).toEqual([
      "1/4",
      "2/4",
      "3/4",
      "4/4",
    ]);

    expect(r.path).toBe(p.path);
    expect(r.page_count).toBe(10);
    expect(r.retired.map((x) => x.file_id)).toEqual(chapterIds);

    // The archive: fresh sequential names in reading order, the chapters' own bytes, stored.
    const out = await openArchive(path.join(app.config.libraryRoot, ...r.path.split("/")));
    expect(out.pages.map((x) => x.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `p${String(i + 1).padStart(4, "0")}.jpg`),
    );
    expect(out.pages.every((x) => x.compressedSize === x.size)).toBe(true);
    for (const [i, x] of out.pages.entries())
      expect((await out.readEntry(x.name)).equals(expected[i] as Buffer)).toBe(true);
    const xml = out.comicInfoXml ?? "";
    await out.close();
    await assertValidXml(XSD, [{ name: "ComicInfo.xml", xml }]);
    expect(xml).toContain("<Series>" + s.title + "</Series>");
    expect(xml).toContain("<Volume>1</Volume>");
    expect(xml).not.toContain("<Number>");
    expect(xml).toContain("<PageCount>10</PageCount>");
    expect(xml).toContain("<LanguageISO>en</LanguageISO>");
    expect(xml).toContain("<Manga>YesAndRightToLeft</Manga>");
    expect(xml).toContain('<Page Image="0" Type="FrontCover" Bookmark="Chapter 1" />');
    for (const [image, chapter] of [
      [3, 2],
      [5, 3],
      [9, 4],
    ])
      expect(xml).toContain(`<Page Image="${image}" Bookmark="Chapter ${chapter}" />`);
    expect(xml).toMatch(/<Notes>Assembled .*chapters 1, 2, 3, 4/);

    // Provenance, committed with the book.
    const release = await app.ctx.db.chapterRelease.findFirstOrThrow({ where: { fileId: r.file_id } });
    expect(release.kind).toBe("volume");
    const prov = JSON.parse(release.assembledFrom ?? "null") as Record<string, unknown>;
    expect(prov).toMatchObject({
      version: 1,
      volume: "1",
      chapters: ["1", "2", "3", "4"],
      pageCount: 10,
      language: "en",
    });
    expect((prov.files as { id: number; sha256: string }[]).map((f) => [f.id, f.sha256])).toEqual(
      p.files.map((f) => [f.id, f.sha256]),
    );

    // The chapter files went to the recycle bin; nothing was deleted.
    const rows = await app.ctx.db.libraryFile.findMany({ where: { id: { in: chapterIds } }, orderBy: { id: "asc" } });
    expect(rows.map((x) => x.state)).toEqual(["recycled", "recycled", "recycled", "recycled"]);
    const bin = await app.ctx.db.recycleEntry.findMany({ where: { fileId: { in: chapterIds } } });
    expect(bin.map((b) => b.reason)).toEqual(Array(4).fill("assembled into v001"));
    for (const b of bin)
      await expect(
        openArchive(path.join(stateDirs(app.config).recycleBin, ...b.binPath.split("/"))).then((a) => a.close()),
      ).resolves.toBeUndefined();

    // Units: the book is owned (a proven assembly) and its chapters are covered by it.
    const u = await units(s.id);
    expect(unitOf(u, "book", "1")).toMatchObject({ owned: true, file_ids: [r.file_id] });
    for (const n of ["1", "2", "3", "4"]) expect(unitOf(u, "chapter", n).coverage).toBe("covered_by_volume");
    expect(unitOf(u, "chapter", "5").file_ids).toEqual([s.idOf(ch(5).name)]);

    // The same confirmation cannot run twice: the book is owned now.
    await expectProblem(
      await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
      409,
      "assembly_book_owned",
    );
  });

  it("answers each refusal with its code over REST and GraphQL", async () => {
    const owned = await series([ch(1), ch(2)], [{ volume: "1", chapters: ["1", "2"] }], [1]);
    expect(await refusalOf(owned.id, "1")).toBe("assembly_book_owned");

    const noMap = await series([ch(1), ch(2)], null);
    // A book the series does not know at all is not refused but unknown: 404, as an unknown series.
    await expectProblem(await post(bookUrl(noMap.id, "1", true)), 404, "unit_not_found");
    const unknown = await app.gql(`mutation { previewBookAssembly(seriesId: ${noMap.id}, volume: "99") { fileName } }`);
    expect(unknown.errors?.[0]?.extensions?.code).toBe("unit_not_found");
    // Known (the edition has two books) but no map says what book 1 holds.
    await expectJson(await app.api(`/api/manga/${noMap.id}`, { method: "PATCH", json: { known_book_count: 2 } }), 200);
    expect(await refusalOf(noMap.id, "1")).toBe("assembly_map_not_exact");

    // Readings stored over time that disagree (the readings endpoint refuses a new contradiction).
    const ambiguous = await series([ch(1), ch(2), ch(3)], null);
    await app.ctx.db.mapSource.create({
      data: {
        seriesId: ambiguous.id,
        kind: "reading",
        name: "reading",
        entries: {
          create: [
            { volume: "1", chapters: '["1","2"]' },
            { volume: "2", chapters: '["2","3"]' },
          ],
        },
      },
    });
    expect(await refusalOf(ambiguous.id, "1")).toBe("assembly_ambiguous_map");

    const missing = await series([ch(1), ch(2), ch(4)], [{ volume: "1", chapters: ["1", "2", "3", "4"] }]);
    expect(await refusalOf(missing.id, "1")).toBe("assembly_missing_chapters");

    const part = await series(
      [ch(1), { name: "$ - c002 part 1.cbz", pages: 2 }],
      [{ volume: "1", chapters: ["1", "2"] }],
    );
    expect(await refusalOf(part.id, "1")).toBe("assembly_missing_part");
    // A missing part is never truncated: nothing was written.
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId: part.id, kind: "book" } })).toBe(0);
  });

  it("a chapter file that changed since the preview answers 409 assembly_changed_files and changes nothing", async () => {
    const s = await series([ch(1), ch(2)], [{ volume: "1", chapters: ["1", "2"] }]);
    const p = await expectJson<RestPreview>(await post(bookUrl(s.id, "1", true)), 200);
    await writeFile(path.join(s.dir, ch(2).name.replace("$", s.title)), await cbz(5));
    const problem = await expectProblem(
      await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
      409,
      "assembly_changed_files",
    );
    expect((problem as unknown as { file_ids: number[] }).file_ids).toEqual([s.idOf(ch(2).name)]);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId: s.id, state: "active" } })).toBe(2);
    // A token for another book or operation is refused as such.
    await expectProblem(
      await post(bookUrl(s.id, "2", false), { confirmation: p.confirmation }),
      400,
      "confirmation_invalid",
    );
    await expectProblem(
      await post(seriesUrl(s.id, false), { confirmation: p.confirmation }),
      400,
      "confirmation_invalid",
    );
  });

  it("a split chapter is made of its complete parts, in part order", async () => {
    const s = await series(
      [ch(1, 2), { name: "$ - c002 part 2.cbz", pages: 3 }, { name: "$ - c002 part 1.cbz", pages: 2 }],
      [{ volume: "1", chapters: ["1", "2"] }],
    );
    const p = await expectJson<RestPreview>(await post(bookUrl(s.id, "1", true)), 200);
    expect(p.chapters).toEqual([
      { number: "1", file_ids: [s.idOf(ch(1).name)] },
      { number: "2", file_ids: [s.idOf("$ - c002 part 1.cbz"), s.idOf("$ - c002 part 2.cbz")] },
    ]);
    const r = await expectJson<RestResult>(
      await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
      200,
    );
    expect(r.page_count).toBe(7);
    expect(r.retired).toHaveLength(3);
    const out = await openArchive(path.join(app.config.libraryRoot, ...r.path.split("/")));
    const part1 = await openArchive(path.join(stateDirs(app.config).recycleBin, ...r.retired[1]!.bin_path.split("/")));
    // Pages 3–4 of the book are part 1's pages.
    expect((await out.readEntry("p0003.jpg")).equals(await part1.readEntry(part1.pages[0]!.name))).toBe(true);
    await Promise.all([out.close(), part1.close()]);
  });
});

describe("series assembly", () => {
  it("reports an outcome per book and lets the remaining books be previewed afresh", async () => {
    const s = await series(
      [ch(1), ch(2), ch(3), ch(4), ch(5)],
      [
        { volume: "1", chapters: ["1", "2"] },
        { volume: "2", chapters: ["3", "4"] },
        { volume: "3", chapters: ["5", "6"] },
      ],
    );
    const p = await expectJson<{ books: RestOutcome[]; confirmation: string }>(await post(seriesUrl(s.id, true)), 200);
    expect(p.books.map((b) => [b.volume, b.status, b.code])).toEqual([
      ["1", "ready", null],
      ["2", "ready", null],
      ["3", "refused", "assembly_missing_chapters"],
    ]);
    const g = await app.gql<{
      previewSeriesAssembly: { books: { volume: string; status: string; code: string | null }[] };
    }>(`mutation($s:Int!){ previewSeriesAssembly(seriesId:$s){ books { volume status code } } }`, { s: s.id });
    expect(g.data?.previewSeriesAssembly.books).toEqual(
      p.books.map((b) => ({ volume: b.volume, status: b.status, code: b.code })),
    );

    // Book 2's chapter changes after the preview: book 1 is assembled, book 2 refused.
    await writeFile(path.join(s.dir, ch(4).name.replace("$", s.title)), await cbz(6));
    const r = await expectJson<{ books: RestOutcome[]; remaining: string[] }>(
      await post(seriesUrl(s.id, false), { confirmation: p.confirmation }),
      200,
    );
    expect(r.books.map((b) => [b.volume, b.status, b.code])).toEqual([
      ["1", "assembled", null],
      ["2", "refused", "assembly_changed_files"],
    ]);
    expect(r.books[0]?.result?.path).toBe(`${s.folder}/${s.title} - v001 [en].cbz`);
    expect(r.remaining).toEqual(["2", "3"]);

    // A fresh preview after a rescan offers book 2 again.
    await scanLibrary(app);
    const again = await expectJson<{ books: RestOutcome[] }>(await post(seriesUrl(s.id, true)), 200);
    expect(again.books.map((b) => [b.volume, b.status])).toEqual([
      ["2", "ready"],
      ["3", "refused"],
    ]);
  });
});

describe("the book's name", () => {
  it("a title too long for the name is shortened, never the volume and language: two books keep two names", async () => {
    const title = `Asm ${++seq} ${"Reincarnated in a very long light novel title ".repeat(5).trim()}`;
    const created = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title } }),
      201,
    );
    const dir = path.join(app.config.libraryRoot, created.folder);
    for (const n of [1, 2, 3, 4]) await writeCbz(path.join(dir, `c${String(n).padStart(3, "0")}.cbz`), 2);
    await scanLibrary(app);
    const entries = [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
    ];
    await expectJson(
      await app.api(`/api/manga/${created.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
      200,
    );
    const p = await expectJson<{ confirmation: string }>(await post(seriesUrl(created.id, true)), 200);
    const r = await expectJson<{ books: RestOutcome[] }>(
      await post(seriesUrl(created.id, false), { confirmation: p.confirmation }),
      200,
    );
    const names = r.books.map((b) => b.result?.path.slice(created.folder.length + 1) ?? "");
    expect(names[0]).toMatch(/^Asm \d+ Reincarnated .* - v001 \[en\]\.cbz$/);
    expect(names[1]).toMatch(/^Asm \d+ Reincarnated .* - v002 \[en\]\.cbz$/);
    for (const n of names) expect(Buffer.byteLength(n)).toBeLessThanOrEqual(174);
    const u = await units(created.id);
    expect(["1", "2"].map((v) => unitOf(u, "book", v).owned)).toEqual([true, true]);
  });
});

describe("map changes during an assembly", () => {
  it("wait for the assembly: the chapter files retire by the boundaries the book was built from", async () => {
    const s = await series(
      [ch(1, 120), ch(2, 120), ch(3)],
      [
        { volume: "1", chapters: ["1", "2"] },
        { volume: "2", chapters: ["3"] },
      ],
    );
    const p = await expectJson<RestPreview>(await post(bookUrl(s.id, "1", true)), 200);
    const order: string[] = [];
    let save: Promise<Response> | null = null;
    const spy = vi.spyOn(app.ctx.events, "publishAssembly").mockImplementation((e) => {
      // Chapter 2 moves to book 2 while book 1 is being written.
      if (e.step === "writing" && !save)
        save = app
          .api(`/api/manga/${s.id}/chapter-map`, {
            method: "PUT",
            json: {
              revision: 1,
              entries: [
                { volume: "1", chapters: ["1"] },
                { volume: "2", chapters: ["2", "3"] },
              ],
            },
          })
          .then((r) => (order.push("map saved"), r));
    });
    try {
      const done = await expectJson<{ retired: unknown[] }>(
        await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
        200,
      );
      order.push("assembled");
      expect(save).not.toBeNull();
      expect((await save!).status).toBe(200);
      expect(order).toEqual(["assembled", "map saved"]);
      expect(done.retired).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("assemblyProgress subscription", () => {
  let client: Client;
  afterAll(async () => {
    await client?.dispose();
  });

  it("streams the steps of an assembly of the series to a graphql-ws subscriber", async () => {
    const s = await series([ch(1), ch(2)], [{ volume: "1", chapters: ["1", "2"] }]);
    client = createClient({
      url: `${app.baseUrl.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { apiKey: TEST_API_KEY },
      lazy: true,
      retryAttempts: 0,
    });
    const steps: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`steps so far: ${steps.join(",")}`)), 10_000);
      const dispose = client.subscribe<{ assemblyProgress: { step: string; volume: string } }>(
        { query: `subscription { assemblyProgress(seriesId: ${s.id}) { seriesId volume step done total } }` },
        {
          next: (m) => {
            if (m.data) steps.push(m.data.assemblyProgress.step);
            if (m.data?.assemblyProgress.step === "done") {
              clearTimeout(timer);
              dispose();
              resolve();
            }
          },
          error: (e) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))),
          complete: () => {},
        },
      );
    });
    await new Promise((r) => setTimeout(r, 200));
    const p = await expectJson<RestPreview>(await post(bookUrl(s.id, "1", true)), 200);
    await expectJson(await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }), 200);
    await done;
    expect(steps).toEqual(["hashing", "hashing", "writing", "writing", "publishing", "done"]);
  });
});
