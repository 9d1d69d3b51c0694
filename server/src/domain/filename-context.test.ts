/** Names read with what surrounds them: a known series title, and the folders of a library path. */
import { describe, expect, it } from "vitest";
import { parseFileName, parseLibraryPath, type ParsedName } from "./filename.ts";

describe("parseFileName with a known series, and parseLibraryPath", () => {
  it("keeps a known series whole, digits and all", () => {
    const opts = { series: "Mob Psycho 100" };
    expect(parseFileName("Mob Psycho 100.cbz", opts)).toMatchObject({
      series: "Mob Psycho 100",
      chapter: null,
      kind: null,
    });
    expect(parseFileName("Mob_Psycho_100_012.cbz", opts)).toMatchObject({ series: "Mob Psycho 100", chapter: "12" });
    expect(parseFileName("Kaiji 2 - 012.cbz", { series: "Kaiji" })).toMatchObject({ series: "Kaiji 2", chapter: "12" });
    expect(parseFileName("Kaiji 2 - 012.cbz", { series: "Kaiji 2" })).toMatchObject({
      series: "Kaiji 2",
      chapter: "12",
    });
    expect(parseFileName("Mob Psycho 100.cbz")).toMatchObject({ series: "Mob Psycho", chapter: "100" });
    // A known series that itself ends in an extra word is not an extra.
    expect(parseFileName("Beelzebub Side Story 02", { series: "Beelzebub Side Story" })).toMatchObject({
      series: "Beelzebub Side Story",
      chapter: "2",
      extra: false,
    });
    expect(parseFileName("Special A 12.cbz", { series: "Special A" })).toMatchObject({ chapter: "12", special: false });
    // A different series leaves the name to the rules.
    expect(parseFileName("Title 2 v01.cbz", { series: "Other" })).toMatchObject({ series: "Title 2", volume: "1" });
  });

  it.each<[string, Partial<ParsedName>]>([
    // Volume folders fill the volume of the files in them
    ["Btooom!/Volume 03/Chapter 021.cbz", { volume: "3", chapter: "21", kind: "chapter" }],
    ["Btooom!/Vol.3/022.cbz", { volume: "3", chapter: "22", kind: "chapter" }],
    ["Btooom!/Btooom! v03/Btooom! - c023.cbz", { volume: "3", chapter: "23", kind: "chapter" }],
    ["Btooom!/Volume 03/Btooom!.cbz", { volume: "3", chapter: null, kind: "book" }],
    ["Mob Psycho 100/Mob Psycho 100 Vol. 2/Mob Psycho 100 012.cbz", { volume: "2", chapter: "12" }],
    ["進撃の巨人/第03巻/第10話.cbz", { volume: "3", chapter: "10", kind: "chapter" }],
    ["Btooom!/Vol. 01 (Ch. 1-8)/Btooom! - c003.cbz", { volume: "1", chapter: "3", chapterEnd: null }],
    ["Btooom!/Volume 03/Chapter 021/Btooom!.cbz", { volume: "3", chapter: "21", kind: "chapter" }],
    // A chapter folder names the chapter of a file without a number
    ["Btooom!/Vol.1 Chapter 2/Btooom!.cbz", { volume: "1", chapter: "2", kind: "chapter" }],
    // The name decides: a folder only fills what it leaves open
    ["Btooom!/Volume 03/Btooom! v02 c010.cbz", { volume: "2", chapter: "10" }],
    ["Btooom!/Vol.1 Chapter 2/1.cbz", { volume: "1", chapter: "1" }],
    // Bare numbers, years and seasons in folders say nothing
    ["Btooom!/2019/Btooom! 012.cbz", { volume: null, chapter: "12" }],
    ["Btooom!/01/Btooom!.cbz", { volume: null, chapter: null, kind: null }],
    ["Tower of God/Season 2/Tower of God S2 - c10.cbz", { volume: null, chapter: "10" }],
    // Specials and extras stay outside the numbering in any folder
    ["Btooom!/Volume 03/Btooom! - Omake.cbz", { volume: "3", chapter: null, kind: null, extra: true }],
    ["Btooom!/Chapter 5/Btooom! SP01.cbz", { chapter: null, kind: null, special: true }],
    // The series folder is the known title, and a file at the root has none
    ["Kaiji 2/Kaiji 2 - 012.cbz", { series: "Kaiji 2", chapter: "12" }],
    ["Kaiji 2 012.cbz", { series: "Kaiji 2", chapter: "12" }],
    ["Vinland Saga\\Volume 01\\Chapter 001.cbz", { volume: "1", chapter: "1" }],
  ])("reads %s with its folders", (relPath, expected) => {
    expect(parseLibraryPath(relPath)).toMatchObject(expected);
  });
});
