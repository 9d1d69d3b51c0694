/**
 * Publication into the library on a real app: real SQLite, real CBZ files in a temporary library
 * root, staged files in the real staging folder. After every operation the library on disk and
 * the database must agree (crash/invariants.ts).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import type { LibraryEvent } from "../src/events.ts";
import { publicationRepo } from "../src/repositories/publication-repo.ts";
import { readLibraryState, violations } from "./crash/invariants.ts";
import { cbz, downloadedChapter, expectJson, scanLibrary, stageCbz } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seriesId: number;
let events: LibraryEvent[];
let stopEvents: () => void;

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const abs = (rel: string) => path.join(app.config.libraryRoot, ...rel.split("/"));
const staging = () => stateDirs(app.config).staging;
const stage = (name: string, pages = 5) => stageCbz(app.config, name, pages);
const chapterFile = (chapter: string) => downloadedChapter(chapter, 5);

async function expectConsistent(): Promise<void> {
  expect(await violations(app.ctx.db, app.config)).toEqual([]);
}

beforeEach(async () => {
  app = await createTestApp();
  const s = await expectJson<{ id: number }>(
    await app.api("/api/manga", { method: "POST", json: { title: "Alpha" } }),
    201,
  );
  seriesId = s.id;
  events = [];
  const it = app.ctx.events.subscribe();
  stopEvents = () => void it.return?.();
  void (async () => {
    for await (const e of it) events.push(e);
  })();
});
afterEach(async () => {
  stopEvents();
  await app.dispose();
});

describe("publish", () => {
  it("moves the staged file to its target, records the file and its release in one go, and the scan agrees", async () => {
    const staged = await stage("dl-1.cbz");
    const r = await app.services.publication.publish({
      seriesId,
      stagedPath: staged.path,
      targetRelPath: "Alpha/Alpha - c001.cbz",
      file: chapterFile("1"),
      release: {
        kind: "chapter",
        volume: null,
        chapter: "1",
        part: null,
        language: "en",
        assembledFrom: null,
        externalId: "ext-1",
        scanlator: "Team",
      },
    });
    expect(r).toEqual({
      fileId: expect.any(Number),
      path: "Alpha/Alpha - c001.cbz",
      sha256: sha(staged.bytes),
      size: staged.bytes.length,
    });
    expect(await readFile(abs(r.path))).toEqual(staged.bytes);
    expect((await readLibraryState(app.config)).staging).toEqual([]);

    const row = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: r.fileId } });
    expect(row).toMatchObject({
      seriesId,
      path: r.path,
      sha256: r.sha256,
      size: BigInt(r.size),
      kind: "chapter",
      chapter: "1",
      origin: "download",
      state: "active",
      language: "en",
    });
    const release = await app.ctx.db.chapterRelease.findFirstOrThrow({ where: { fileId: r.fileId } });
    expect(release).toMatchObject({
      seriesId,
      kind: "chapter",
      chapter: "1",
      externalId: "ext-1",
      scanlator: "Team",
      assembledFrom: null,
    });
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
    await expectConsistent();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events.map((e) => [e.kind, e.seriesId])).toContainEqual(["series_changed", seriesId]);

    // The scan finds the file already recorded: nothing added, nothing changed.
    expect(await scanLibrary(app)).toMatchObject({ added: 0, changed: 0, moved: 0, removed: 0, unchanged: 1 });
  });

  it("never overwrites: a taken target (recorded or only on disk) gives the next free name", async () => {
    await mkdir(abs("Alpha"), { recursive: true });
    const squatter = await cbz(3);
    await writeFile(abs("Alpha/Alpha - c002.cbz"), squatter);
    const first = await app.services.publication.publish({
      seriesId,
      stagedPath: (await stage("a.cbz")).path,
      targetRelPath: "Alpha/Alpha - c002.cbz",
      file: chapterFile("2"),
    });
    const second = await app.services.publication.publish({
      seriesId,
      stagedPath: (await stage("b.cbz")).path,
      targetRelPath: "Alpha/Alpha - c002.cbz",
      file: chapterFile("2"),
    });
    expect([first.path, second.path]).toEqual(["Alpha/Alpha - c002 (2).cbz", "Alpha/Alpha - c002 (3).cbz"]);
    expect(await readFile(abs("Alpha/Alpha - c002.cbz"))).toEqual(squatter);
    await scanLibrary(app);
    await expectConsistent();
  });

  it("gives concurrent publications to one target distinct names, none lost", async () => {
    const staged = await Promise.all([1, 2, 3, 4].map((i) => stage(`c-${i}.cbz`, i + 2)));
    const results = await Promise.all(
      staged.map((s) =>
        app.services.publication.publish({
          seriesId,
          stagedPath: s.path,
          targetRelPath: "Alpha/Alpha - c003.cbz",
          file: chapterFile("3"),
        }),
      ),
    );
    expect(new Set(results.map((r) => r.path)).size).toBe(4);
    expect(results.map((r) => r.sha256).sort()).toEqual(staged.map((s) => sha(s.bytes)).sort());
    await expectConsistent();
  });

  it("refuses traversal, other folders, hidden or unreadable names and staged files outside staging, changing nothing", async () => {
    const staged = await stage("x.cbz");
    const base = { seriesId, stagedPath: staged.path, file: chapterFile("4") };
    const refused = [
      "../Alpha - c004.cbz",
      "Alpha/../Beta/x.cbz",
      "Beta/x.cbz",
      "/etc/x.cbz",
      "Alpha\\x.cbz",
      "Alpha/.hidden/x.cbz",
      "Alpha/x.txt",
      "Alpha",
      "Alpha//x.cbz",
      "Alpha/what?.cbz",
    ];
    for (const targetRelPath of refused) {
      await expect(app.services.publication.publish({ ...base, targetRelPath }), targetRelPath).rejects.toMatchObject({
        code: "invalid_field",
        status: 400,
      });
    }
    const outside = path.join(app.config.libraryRoot, "elsewhere.cbz");
    await writeFile(outside, staged.bytes);
    await symlink(app.dir, path.join(staging(), "link"));
    for (const stagedPath of [
      outside,
      "relative.cbz",
      path.join(staging(), "..", "elsewhere.cbz"),
      path.join(staging(), "link", "library", "elsewhere.cbz"),
      path.join(staging(), "absent.cbz"),
    ]) {
      await expect(
        app.services.publication.publish({ ...base, stagedPath, targetRelPath: "Alpha/x.cbz" }),
        stagedPath,
      ).rejects.toMatchObject({ code: "invalid_field" });
    }
    await expect(
      app.services.publication.publish({ ...base, seriesId: 999, targetRelPath: "Alpha/x.cbz" }),
    ).rejects.toMatchObject({ code: "series_not_found" });
    await expect(
      app.services.publication.publish({
        ...base,
        targetRelPath: "Alpha/x.cbz",
        file: { ...chapterFile("4"), chapter: "four" },
      }),
    ).rejects.toMatchObject({
      code: "invalid_field",
      extra: { field: "file.chapter" },
    });
    expect(await readFile(staged.path)).toEqual(staged.bytes);
    expect(await app.ctx.db.libraryFile.count()).toBe(0);
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
  });
});

describe("publish, then retire what it replaces (one recoverable sequence)", () => {
  async function chapters(): Promise<number[]> {
    const ids = [];
    for (const c of ["1", "2"]) {
      const s = await stage(`ch${c}.cbz`);
      ids.push(
        (
          await app.services.publication.publish({
            seriesId,
            stagedPath: s.path,
            targetRelPath: `Alpha/Alpha - c00${c}.cbz`,
            file: chapterFile(c),
          })
        ).fileId,
      );
    }
    return ids;
  }

  it("commits the book and its provenance before the chapter files move to the bin", async () => {
    const ids = await chapters();
    const book = await stage("book.cbz", 10);
    const provenance = JSON.stringify({ version: 1, chapters: ["1", "2"], volume: "1" });
    const r = await app.services.publication.publish({
      seriesId,
      stagedPath: book.path,
      targetRelPath: "Alpha/Alpha - v001 [en].cbz",
      file: {
        kind: "book",
        volume: "1",
        chapter: null,
        chapterEnd: null,
        part: null,
        pageCount: 10,
        language: "en",
        origin: "assembled",
        tagSource: "comicinfo",
      },
      release: { kind: "volume", volume: "1", chapter: null, part: null, language: "en", assembledFrom: provenance },
      retireAfter: { fileIds: ids, reason: "assembled into book 1" },
    });
    expect(r.retired?.map((f) => [f.fileId, f.from])).toEqual([
      [ids[0], "Alpha/Alpha - c001.cbz"],
      [ids[1], "Alpha/Alpha - c002.cbz"],
    ]);
    const rows = await app.ctx.db.libraryFile.findMany({ orderBy: { id: "asc" } });
    expect(rows.map((f) => [f.kind, f.state])).toEqual([
      ["chapter", "recycled"],
      ["chapter", "recycled"],
      ["book", "active"],
    ]);
    expect((await app.ctx.db.chapterRelease.findFirstOrThrow({ where: { fileId: r.fileId } })).assembledFrom).toBe(
      provenance,
    );
    expect((await app.services.publication.list()).map((e) => e.reason)).toEqual([
      "assembled into book 1",
      "assembled into book 1",
    ]);
    await expectConsistent();
  });

  it("checks the files to retire before anything moves: a changed chapter file stops the whole publication", async () => {
    const ids = await chapters();
    await writeFile(abs("Alpha/Alpha - c002.cbz"), await cbz(7));
    const book = await stage("book.cbz", 10);
    await expect(
      app.services.publication.publish({
        seriesId,
        stagedPath: book.path,
        targetRelPath: "Alpha/Alpha - v001 [en].cbz",
        file: {
          kind: "book",
          volume: "1",
          chapter: null,
          chapterEnd: null,
          part: null,
          pageCount: 10,
          language: "en",
          origin: "assembled",
          tagSource: null,
        },
        retireAfter: { fileIds: ids, reason: "assembled" },
      }),
    ).rejects.toMatchObject({ code: "snapshot_stale", status: 409 });
    expect(await readFile(book.path)).toEqual(book.bytes);
    expect(await app.ctx.db.libraryFile.count({ where: { kind: "book" } })).toBe(0);
    expect(await app.ctx.db.libraryFile.count({ where: { state: "active" } })).toBe(2);
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
  });
});

describe("recover", () => {
  it("has nothing to do on a library no crash touched", async () => {
    expect(await app.services.publication.recover()).toEqual({ replayed: 0, rolledBack: 0 });
  });

  it("reports what it finished and what it undid (journal rows as a crash leaves them)", async () => {
    const staged = await stage("pending.cbz");
    const file = chapterFile("5");
    await publicationRepo(app.ctx.db).beginJournal("publish", "placing", {
      v: 1,
      seriesId,
      staged: "pending.cbz",
      requested: "Alpha/Alpha - c005.cbz",
      target: "Alpha/Alpha - c005.cbz",
      sha256: sha(staged.bytes),
      size: staged.bytes.length,
      file,
      release: null,
      retireAfter: null,
    });
    const kept = await app.services.publication.publish({
      seriesId,
      stagedPath: (await stage("kept.cbz")).path,
      targetRelPath: "Alpha/Alpha - c006.cbz",
      file: chapterFile("6"),
    });
    await publicationRepo(app.ctx.db).beginJournal("retire", "moving", {
      v: 1,
      reason: "never moved",
      forward: false,
      files: [
        {
          fileId: kept.fileId,
          seriesId,
          from: kept.path,
          bin: `20260101T000000Z-00000000/${kept.path}`,
          size: kept.size,
          sha256: kept.sha256,
        },
      ],
    });
    expect(await app.services.publication.recover()).toEqual({ replayed: 1, rolledBack: 1 });
    expect(await readFile(abs("Alpha/Alpha - c005.cbz"))).toEqual(staged.bytes);
    expect((await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: kept.fileId } })).state).toBe("active");
    await expectConsistent();
  });

  it("adopts the row a library scan recorded for a placed file before its publication committed", async () => {
    const staged = await stage("raced.cbz");
    const payload = {
      v: 1 as const,
      seriesId,
      staged: "raced.cbz",
      requested: "Alpha/Alpha - c007.cbz",
      target: "Alpha/Alpha - c007.cbz",
      sha256: sha(staged.bytes),
      size: staged.bytes.length,
      file: chapterFile("7"),
      release: null,
      retireAfter: null,
    };
    const journalId = await publicationRepo(app.ctx.db).beginJournal("publish", "placed", payload);
    await mkdir(abs("Alpha"), { recursive: true });
    await rename(staged.path, abs(payload.target));
    expect(await scanLibrary(app)).toMatchObject({ added: 1 });
    await publicationRepo(app.ctx.db).commitPublish(journalId, payload, Date.now());
    const rows = await app.ctx.db.libraryFile.findMany({ where: { path: payload.target } });
    expect(rows.map((r) => [r.state, r.origin])).toEqual([["active", "download"]]);
    await expectConsistent();
  });
});
