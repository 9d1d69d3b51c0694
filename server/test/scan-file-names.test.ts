/**
 * Real-world file names and folder layouts read by the library scan, from an empty service and
 * through the public API only: the test writes the files, POST /api/library/scan records them, and
 * GET /api/manga/{id}/units shows which books and chapters they became (the parser's own table is
 * server/src/domain/filename.test.ts; this proves the scan reads the same numbers from disk).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cbz, expectJson, scanLibrary, unitOf, type RestUnits } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;

const FILES = [
  // A title that ends in a number: the chapter is the number alone in its segment.
  "Gamble Tower/Gamble Tower 2 - 012 (Digital).cbz",
  // Mihon/Tachiyomi download: "<scanlator>_<chapter name>".
  "Gamble Tower/Night Owls_Vol.2 Ch.15.5 - Side Story.cbz",
  // An underscored scanlator release ending in the group's initials.
  "Gamble Tower/Gamble_Tower_172_RHS.zip",
  // A special placed between two chapters takes neither's place.
  "Gamble Tower/Gamble Tower - SP11 (between chapter 083 and ch084).cbz",
  // A volume folder gives its volume to a file whose name has none.
  "Gamble Tower/Volume 03/Gamble Tower.cbz",
  // One volume split in two files, and a digital volume with its year and group.
  "Gamble Tower/Gamble Tower Vol. 4 Part 1.cbz",
  "Gamble Tower/Gamble Tower Vol. 4 Part 2.cbz",
  "Gamble Tower/Gamble Tower (2019) v05 (Digital) (Oak).cbz",
  // Chinese prefix volume and chapter marker.
  "全职高手/全职高手 卷01.cbz",
  "全职高手/全职高手 第12话.cbz",
];

beforeAll(async () => {
  app = await createTestApp();
  for (const rel of FILES) {
    const abs = path.join(app.config.libraryRoot, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, await cbz(3));
  }
  const scan = await scanLibrary(app);
  expect(scan).toMatchObject({ added: FILES.length, series_created: 2, errors: [] });
});
afterAll(async () => {
  await app.dispose();
});

async function unitsOf(folder: string): Promise<RestUnits> {
  const series = await expectJson<{ id: number; folder: string }[]>(await app.api("/api/manga"), 200);
  const s = series.find((x) => x.folder === folder);
  if (!s) throw new Error(`no series for ${folder}`);
  return expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
}

const numbers = (view: RestUnits, kind: "book" | "chapter") =>
  view.units.filter((u) => u.kind === kind && u.owned).map((u) => u.number);

describe("the scan reads real-world names", () => {
  it("takes chapters from the names, never a title's number or a special's placement", async () => {
    const view = await unitsOf("Gamble Tower");
    expect(numbers(view, "chapter").sort()).toEqual(["12", "15.5", "172"].sort());
    expect(view.units.some((u) => u.number === "2" && u.kind === "chapter")).toBe(false);
    expect(view.units.some((u) => u.number === "83" && u.kind === "chapter")).toBe(false);
    expect(unitOf(view, "chapter", "15.5").extra).toBe(true);
    expect(unitOf(view, "chapter", "12").extra).toBe(false);
  });

  it("takes books from volume folders, split volumes and digital releases", async () => {
    const view = await unitsOf("Gamble Tower");
    expect(numbers(view, "book")).toEqual(["3", "4", "5"]);
    const split = unitOf(view, "book", "4");
    expect(split.file_ids).toHaveLength(2);
    expect(split.duplicate_file_ids).toEqual([]);
  });

  it("reads Chinese volume and chapter markers", async () => {
    const view = await unitsOf("全职高手");
    expect(numbers(view, "book")).toEqual(["1"]);
    expect(numbers(view, "chapter")).toEqual(["12"]);
  });
});
