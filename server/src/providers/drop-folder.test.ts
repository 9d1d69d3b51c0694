import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zipBuffer } from "../../test/fixtures.ts";
import { archiveOpenCount } from "../library/archive-reader.ts";
import { drawnPages } from "../library/test-pages.ts";
import { DropFolderProvider, safeSegment } from "./drop-folder.ts";

describe("DropFolderProvider on a real folder", () => {
  let dir: string;
  let root: string;
  let outside: string;
  let pages: Buffer[];
  let provider: DropFolderProvider;
  /** A CBZ of the first `n` drawn pages. */
  const cbz = (n: number) =>
    zipBuffer(pages.slice(0, n).map((data, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data })));

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "drop-test-"));
    root = path.join(dir, "drop");
    outside = path.join(dir, "outside");
    await mkdir(outside, { recursive: true });
    pages = await drawnPages(3, 5, { width: 200, height: 290 });
    const work = path.join(root, "Blue Harbor");
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, "Blue Harbor - c012.cbz"), await cbz(3));
    await writeFile(path.join(work, "[Team A] Blue Harbor v02 c010.5.cbz"), await cbz(2));
    await writeFile(path.join(work, "Blue Harbor - c000.cbz"), await cbz(1));
    await writeFile(path.join(work, "Blue Harbor - c013.cbz"), Buffer.from("PK\x03\x04 still copying"));
    await writeFile(path.join(work, "notes.txt"), "hello");
    await writeFile(
      path.join(work, "Blue Harbor - c015.cbz"),
      await zipBuffer([
        { name: "001.jpg", data: pages[0]! },
        { name: "002.jpg", data: Buffer.from("#!/bin/sh\n") },
      ]),
    );
    await writeFile(path.join(work, ".hidden - c099.cbz"), await cbz(1));
    // A chapter as a folder of images, in natural order (page2 before page10), with a link that must be skipped.
    const folder = path.join(work, "Chapter 14 part 2");
    await mkdir(folder);
    await writeFile(path.join(folder, "page10.jpg"), pages[2]!);
    await writeFile(path.join(folder, "page2.png"), pages[1]!);
    await writeFile(path.join(outside, "secret.jpg"), pages[0]!);
    await symlink(path.join(outside, "secret.jpg"), path.join(folder, "page1.jpg"));
    // A work that is a link to a folder outside, and a chapter link to an outside archive.
    await symlink(outside, path.join(root, "Linked Work"));
    await writeFile(path.join(outside, "Blue Harbor - c050.cbz"), await cbz(1));
    await symlink(path.join(outside, "Blue Harbor - c050.cbz"), path.join(work, "Blue Harbor - c050.cbz"));
    await mkdir(path.join(root, "Red Cliff"));
    // Names without a number, a range, a one-shot, an empty folder, a format not read, languages.
    const pier = path.join(root, "Grey Pier");
    await mkdir(path.join(pier, "extras"), { recursive: true });
    await mkdir(path.join(pier, "Grey Pier - c004"));
    await writeFile(path.join(pier, "Grey Pier - c004", "001.jpg"), pages[0]!);
    for (const name of [
      "Grey Pier - notes.cbz",
      "Grey Pier c001-003.cbz",
      "Grey Pier - Oneshot.cbz",
      "Grey Pier - Omake.cbz",
      "Grey Pier - Prologue.cbz",
      "Grey Pier v01 c001-005.cbz",
      "Grey Pier [fr] - c012.cbz",
      "Grey Pier - c013 (English).cbz",
      "Grey Pier - c014.cbz",
    ])
      await writeFile(path.join(pier, name), await cbz(1));
    await writeFile(path.join(pier, "Grey Pier - c015.cbr"), "Rar!");
    await writeFile(path.join(pier, "cover.jpg"), pages[0]!);
    await writeFile(path.join(root, "Loose - c001.cbz"), await cbz(1));
    provider = new DropFolderProvider({ root, language: "en" });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("finds works by folder name, never a link or a top-level file", async () => {
    expect((await provider.search("")).map((w) => w.sourceId)).toEqual(["Blue Harbor", "Grey Pier", "Red Cliff"]);
    expect(await provider.search("harbor")).toEqual([
      { sourceId: "Blue Harbor", title: "Blue Harbor", language: "en", sourceName: "Drop folder", thumbnailUrl: null },
    ]);
    expect(await new DropFolderProvider({ root: path.join(dir, "missing") }).search("x")).toEqual([]);
  });

  it("numbers chapters with the name parser, skipping what does not open yet", async () => {
    const chapters = await provider.listChapters("Blue Harbor");
    expect(chapters.map((c) => [c.externalId, c.number, c.volume, c.part, c.scanlator, c.pageCount])).toEqual([
      ["[Team A] Blue Harbor v02 c010.5.cbz", "10.5", "2", null, "Team A", 2],
      ["Blue Harbor - c000.cbz", "0", null, null, null, 1],
      ["Blue Harbor - c012.cbz", "12", null, null, null, 3],
      ["Blue Harbor - c015.cbz", "15", null, null, null, 2],
      ["Chapter 14 part 2", "14", null, 2, null, 2],
    ]);
    expect(chapters[0]?.uploadedAt).toBeInstanceOf(Date);
  });

  it("reports what it leaves out by name and code, never a path or file content", async () => {
    const { chapters, problems } = await provider.listWithProblems("Blue Harbor", { language: "de" });
    expect(chapters.map((c) => c.externalId)).toEqual(
      (await provider.listChapters("Blue Harbor")).map((c) => c.externalId),
    );
    expect(problems.map((p) => [p.name, p.code])).toEqual([
      ["Blue Harbor - c013.cbz", "archive_truncated"],
      ["Blue Harbor - c050.cbz", "symbolic_link"],
    ]);
    for (const p of problems) expect(p.detail).not.toMatch(/[/\\]|still copying/);
    // The mapping's language when the name states none.
    expect(new Set(chapters.map((c) => c.language))).toEqual(new Set(["de"]));
  });

  it("a name naming a range is reported; a name without a number is an unnumbered extra; a stated language wins", async () => {
    const { chapters, problems } = await provider.listWithProblems("Grey Pier", { language: "en" });
    expect(chapters.map((c) => [c.externalId, c.number, c.language])).toEqual([
      ["Grey Pier - c004", "4", "en"],
      ["Grey Pier - c013 (English).cbz", "13", "en"],
      ["Grey Pier - c014.cbz", "14", "en"],
      ["Grey Pier - notes.cbz", null, "en"],
      ["Grey Pier - Omake.cbz", null, "en"],
      ["Grey Pier - Oneshot.cbz", null, "en"],
      ["Grey Pier - Prologue.cbz", null, "en"],
      ["Grey Pier [fr] - c012.cbz", "12", "fr"],
      ["Grey Pier v01 c001-005.cbz", null, "en"],
    ]);
    expect(chapters.at(-1)?.volume).toBe("1");
    expect(problems.map((p) => [p.name, p.code])).toEqual([
      ["extras", "no_pages"],
      ["Grey Pier - c015.cbr", "unsupported_format"],
      ["Grey Pier c001-003.cbz", "number_range"],
    ]);
    const fr = await provider.listWithProblems("Grey Pier", { language: "fr" });
    expect(fr.chapters.find((c) => c.number === "13")?.language).toBe("en");
  });

  it("reads pages from a CBZ without extracting, 1-based", async () => {
    const ch = await provider.pages("Blue Harbor", "Blue Harbor - c012.cbz");
    expect(ch.count).toBe(3);
    const p = await ch.fetch(3);
    expect(p.bytes.equals(pages[2]!)).toBe(true);
    expect(p.contentType).toBe("image/jpeg");
    await expect(ch.fetch(4)).rejects.toMatchObject({ name: "ProviderError", transient: false });
  });

  it("a CBZ page that is no image fails with the image check's code, as in a folder of images", async () => {
    const ch = await provider.pages("Blue Harbor", "Blue Harbor - c015.cbz");
    expect((await ch.fetch(1)).bytes.equals(pages[0]!)).toBe(true);
    await expect(ch.fetch(2)).rejects.toMatchObject({ code: "image_unreadable" });
  });

  it("reads a folder of images in natural order without following links", async () => {
    const ch = await provider.pages("Blue Harbor", "Chapter 14 part 2");
    expect(ch.count).toBe(2);
    expect((await ch.fetch(1)).bytes.equals(pages[1]!)).toBe(true);
    expect((await ch.fetch(2)).bytes.equals(pages[2]!)).toBe(true);
  });

  it("opens an archive again only when it changed: a refresh of an unchanged work opens none", async () => {
    const work = path.join(root, "Quiet Bay");
    await mkdir(work);
    for (const n of [1, 2, 3]) await writeFile(path.join(work, `Quiet Bay - c00${n}.cbz`), await cbz(n));
    await writeFile(path.join(work, "Quiet Bay - c004.cbz"), Buffer.from("PK\x03\x04 still copying"));
    const fresh = new DropFolderProvider({ root });
    const list = async () => {
      const before = archiveOpenCount();
      const { chapters, problems } = await fresh.listWithProblems("Quiet Bay");
      return {
        opened: archiveOpenCount() - before,
        pages: chapters.map((c) => [c.externalId, c.pageCount]),
        problems: problems.map((p) => p.name),
      };
    };
    const first = await list();
    expect(first.opened).toBe(4);
    expect(first.pages).toEqual([
      ["Quiet Bay - c001.cbz", 1],
      ["Quiet Bay - c002.cbz", 2],
      ["Quiet Bay - c003.cbz", 3],
    ]);
    expect(first.problems).toEqual(["Quiet Bay - c004.cbz"]);
    // Unchanged: only the file that failed is read again (it may have finished copying).
    expect(await list()).toEqual({ ...first, opened: 1 });
    // Replaced by a shorter one, and the copy finished: both are read again, and say so.
    await writeFile(path.join(work, "Quiet Bay - c002.cbz"), await cbz(1));
    await writeFile(path.join(work, "Quiet Bay - c004.cbz"), await cbz(2));
    const third = await list();
    expect(third.opened).toBe(2);
    expect(third.pages).toEqual([
      ["Quiet Bay - c001.cbz", 1],
      ["Quiet Bay - c002.cbz", 1],
      ["Quiet Bay - c003.cbz", 3],
      ["Quiet Bay - c004.cbz", 2],
    ]);
    expect(third.problems).toEqual([]);
    expect((await list()).opened).toBe(0);
    await rm(work, { recursive: true });
  });

  it("refuses links, traversal and unsafe names", async () => {
    await expect(provider.listChapters("Linked Work")).rejects.toMatchObject({ transient: false });
    await expect(provider.listChapters("..")).rejects.toMatchObject({ transient: false });
    await expect(provider.listChapters("../outside")).rejects.toMatchObject({ transient: false });
    await expect(provider.pages("Blue Harbor", "Blue Harbor - c050.cbz")).rejects.toMatchObject({ transient: false });
    await expect(provider.pages("Blue Harbor", "../../outside/secret.jpg")).rejects.toMatchObject({ transient: false });
    await expect(provider.pages("Blue Harbor", "Blue Harbor - c013.cbz")).rejects.toMatchObject({ transient: false });
    await expect(provider.pages("Blue Harbor", "notes.txt")).rejects.toMatchObject({ transient: false });
    expect([safeSegment("a"), safeSegment(".."), safeSegment("a/b"), safeSegment(".x"), safeSegment("")]).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
