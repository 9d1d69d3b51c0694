/**
 * Our own description of ComicInfo must be as strict as the format where the writer could go
 * wrong: order, unknown or repeated elements, value types, and 2.1-only elements in a 2.0 file.
 */
import { describe, expect, it } from "vitest";
import { comicInfoXml } from "../../src/library/comicinfo-writer.ts";
import { assertValidXml } from "../xmllint.ts";
import { COMICINFO_ELEMENTS, elementNames, schemaFor } from "./format.ts";

const doc = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n${body}\n</ComicInfo>\n`;
const check = (version: "2.0" | "2.1", body: string) =>
  assertValidXml(version, [{ name: "ComicInfo.xml", xml: doc(body) }]);

describe("the ComicInfo description", () => {
  it("lists 40 elements in 2.0 and 44 in the 2.1 draft, 2.1 adding Translator, Tags, StoryArcNumber and GTIN", () => {
    expect(elementNames("2.0")).toHaveLength(40);
    expect(elementNames("2.1")).toHaveLength(44);
    expect(COMICINFO_ELEMENTS.filter((e) => e.since === "2.1").map((e) => e.name)).toEqual([
      "Translator",
      "Tags",
      "StoryArcNumber",
      "GTIN",
    ]);
    expect(schemaFor("2.1").contents).toContain(`name="GTIN"`);
    expect(schemaFor("2.0").contents).not.toContain(`name="GTIN"`);
  });

  it("accepts what the writer writes", async () => {
    const xml = comicInfoXml({
      Series: "S",
      Volume: 2,
      Translator: "T",
      PageCount: 2,
      Manga: "YesAndRightToLeft",
      Pages: [{ Image: 0, Type: "FrontCover", ImageSize: 10, ImageWidth: 1, ImageHeight: 2 }, { Image: 1 }],
      CommunityRating: 4.5,
    });
    await assertValidXml("2.1", [{ name: "ComicInfo.xml", xml }]);
  });

  it.each([
    ["elements out of order", "2.1", "<Volume>1</Volume><Series>S</Series>"],
    ["a repeated element", "2.1", "<Series>S</Series><Series>T</Series>"],
    ["an unknown element", "2.1", "<Series>S</Series><Chapter>1</Chapter>"],
    ["a fractional Volume", "2.1", "<Volume>1.5</Volume>"],
    ["an integer beyond 32 bits", "2.1", "<Count>2147483648</Count>"],
    ["a Manga value outside the list", "2.1", "<Manga>RightToLeft</Manga>"],
    ["two decimals in CommunityRating (2.1)", "2.1", "<CommunityRating>4.25</CommunityRating>"],
    ["a rating above 5", "2.0", "<CommunityRating>5.5</CommunityRating>"],
    ["a 2.1-only element in 2.0", "2.0", "<Series>S</Series><Translator>T</Translator>"],
    ["a page without Image", "2.1", `<Pages><Page Type="Story" /></Pages>`],
    ["an unknown page type", "2.1", `<Pages><Page Image="0" Type="Story Cover" /></Pages>`],
    ["a page attribute the format lacks", "2.1", `<Pages><Page Image="0" Width="3" /></Pages>`],
  ] as const)("rejects %s", async (_what, version, body) => {
    await expect(check(version, body)).rejects.toThrow(/fails ComicInfo/);
  });

  it("accepts two decimals in CommunityRating under 2.0 and page type lists", async () => {
    await check("2.0", "<CommunityRating>4.25</CommunityRating>");
    await check("2.1", `<Pages><Page Image="0" Type="Story Preview" DoublePage="true" /></Pages>`);
  });
});
