import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nameLanguage, parseFileName, releaseLanguage } from "./filename.ts";

/** [file or folder name, the language its name states (base code) or null]. */
const table: [string, string | null][] = [
  // A bracket holding only a code, any case, square or round
  ["Harbor [fr] - c012.cbz", "fr"],
  ["Harbor - c012 [FR].cbz", "fr"],
  ["[ENG] Harbor v01 c003.cbz", "en"],
  ["Harbor c001 (en).cbz", "en"],
  ["Harbor - Chapter 8 [en].cbz", "en"],
  ["Harbor c004 [jpn].zip", "ja"],
  ["Harbor c004 [JP]", "ja"],
  ["Harbor c004 [pt-BR].cbz", "pt"],
  ["Harbor c004 [pt_br].cbz", "pt"],
  ["Harbor c004 [vf].cbz", "fr"],
  ["Harbor c004 {de}.cbz", "de"],
  ["Harbor c004 【zh】.cbz", "zh"],
  // A bracket holding only a language name, accents folded
  ["Harbor - c012 (French).cbz", "fr"],
  ["Harbor - c012 (Français).cbz", "fr"],
  ["Harbor v02 (English) (Digital) (danke-Empire).cbz", "en"],
  ["Harbor c010 [Korean]", "ko"],
  ["Harbor c010 (Español).cbz", "es"],
  // Several brackets naming the same language count once; two languages state none
  ["[en] Harbor c001 (English).cbz", "en"],
  ["Harbor c001 [en] [fr].cbz", null],
  // Nothing stated: no bracket, a group, a longer bracket, a language word outside brackets
  ["Harbor - c012.cbz", null],
  ["[Team A] Harbor v02 c010.5.cbz", null],
  ["Harbor c001 [French Scans].cbz", null],
  ["The French Chef - c001.cbz", null],
  ["Harbor c001 French.cbz", null],
  ["Harbor c001 (Digital).cbz", null],
  ["Harbor c001 (2019).cbz", null],
  ["Harbor c001 [v2].cbz", null],
  ["Harbor c001 [xx].cbz", null],
  ["Harbor c001 (part 2).cbz", null],
  ["Chapter 14 part 2", null],
  ["", null],
];

describe("nameLanguage: the language a file or folder name states in a bracket", () => {
  it.each(table)("%s → %s", (name, expected) => {
    expect(nameLanguage(name)).toBe(expected);
  });

  it("a release's language: the stated one, else the mapping's; a stated base code keeps the mapping's region", () => {
    const cases: [string, string, string][] = [
      ["Harbor c004 [pt-BR].cbz", "pt-BR", "pt-BR"],
      ["Harbor c004 [br].cbz", "pt-BR", "pt-BR"],
      ["Harbor c004 (Portuguese).cbz", "pt-BR", "pt-BR"],
      ["Harbor c004 [pt-BR].cbz", "pt", "pt"],
      ["Harbor c004.cbz", "pt-BR", "pt-BR"],
      ["Harbor c004 [en].cbz", "pt-BR", "en"],
      ["Harbor c004 [fr].cbz", "en", "fr"],
      ["Harbor c004 [ENG].cbz", "en", "en"],
      ["Harbor c004 [es].cbz", "es-419", "es-419"],
      ["Harbor c004 [zh].cbz", "zh-Hans", "zh-Hans"],
      ["Harbor c004 [en] [fr].cbz", "de", "de"],
    ];
    expect(cases.map(([name, mapping]) => [name, mapping, releaseLanguage(name, mapping)])).toEqual(cases);
    expect(releaseLanguage("Harbor [fr] c001.cbz", "en", { series: "Harbor [fr]" })).toBe("en");
  });

  it("the work's own name (the folder the operator linked) states nothing", () => {
    expect(nameLanguage("Harbor [fr] c001.cbz", { series: "Harbor [fr]" })).toBeNull();
    expect(nameLanguage("harbor [FR] c001 [en].cbz", { series: "Harbor [fr]" })).toBe("en");
    expect(nameLanguage("Harbor [fr] c001.cbz", { series: "Harbor" })).toBe("fr");
    expect(nameLanguage("[fr] c001.cbz", { series: "Harbor [fr]" })).toBe("fr");
  });

  it("a language tag never changes the numbers the name parser reads", () => {
    expect(parseFileName("Harbor [fr] - c012.cbz", { series: "Harbor" })).toMatchObject({
      chapter: "12",
      group: null,
    });
    expect(parseFileName("Harbor - c012 (French).cbz", { series: "Harbor" })).toMatchObject({ chapter: "12" });
  });

  it("a name without brackets never states a language", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/[[\](){}【】]/u.test(s)),
        (s) => nameLanguage(s) === null,
      ),
    );
  });

  it("the answer is a base code or null, whatever the name", () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom("[fr]", "(English)", "[JP]", "[Team]", ""), (s, tag) => {
        const l = nameLanguage(`${s} ${tag}`);
        return l === null || /^[a-z]{2}$/.test(l);
      }),
    );
  });
});
