import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assemblyFileName, pageName, planAssembly, volumeTag, type AssemblyDecision } from "./assembly.ts";
import { buildCoverageIndex } from "./coverage.ts";
import { label } from "./labels.ts";
import { safeName } from "./safe-names.ts";
import {
  bookFile,
  chapterFile,
  chapterSlot,
  chapterSlots,
  partFile,
  rangeFile,
  snapshot,
  type SnapshotSpec,
} from "./test-fixtures.ts";

function decide(spec: SnapshotSpec, volume = "1", sourceOf?: Map<number, string>): AssemblyDecision {
  const s = snapshot(spec);
  return planAssembly(s, buildCoverageIndex(s), label(volume), sourceOf);
}

const refusal = (d: AssemblyDecision) => (d.ok ? "ok" : d.code);

describe("assembly planner", () => {
  it("plans the chapters in map order, one whole file each, and names the book", () => {
    const files = [chapterFile("2"), chapterFile("1"), chapterFile("3")];
    const d = decide({ volumes: "1", chapters: "1-3", operator: { "1": "1-3" }, files });
    if (!d.ok) throw new Error(d.detail);
    expect(d.plan.chapters.map((c) => [c.number, c.sources.map((s) => s.fileId)])).toEqual([
      ["1", [files[1]!.id]],
      ["2", [files[0]!.id]],
      ["3", [files[2]!.id]],
    ]);
    expect(d.plan.fileIds).toEqual([files[1]!.id, files[0]!.id, files[2]!.id]);
    expect(d.plan.fileName).toBe("Test Series - v001 [en].cbz");
  });

  it("prefers a copy in the series' language read at its precision, then a human one, then the lowest id", () => {
    // In a pt-BR series: another region first (lowest id), then a bare "pt" (older scans), a "pt-BR" translation.
    const other = chapterFile("1", { language: "pt-PT" });
    const bare = chapterFile("1", { language: "pt" });
    const translated = chapterFile("1", { language: "pt-BR", origin: "translation" });
    const pick = (files: (typeof other)[], language: string) => {
      const d = decide({ series: { language }, volumes: "1", chapters: "1", operator: { "1": "1" }, files });
      if (!d.ok) throw new Error(d.detail);
      return d.plan.chapters[0]?.sources.map((s) => s.fileId);
    };
    expect(pick([other, bare, translated], "pt-BR")).toEqual([bare.id]);
    expect(pick([other, translated], "pt-BR")).toEqual([translated.id]);
    // In an en series, an en-US copy is the series' language; a French one is not.
    const french = chapterFile("1", { language: "fr" });
    const american = chapterFile("1", { language: "en-US" });
    expect(pick([french, american], "en")).toEqual([american.id]);
  });

  it("refuses an owned book, no exact entry, an ambiguous map, a missing chapter and a missing part", () => {
    expect(
      refusal(
        decide({
          chapters: "1-2",
          operator: { "1": "1-2" },
          files: [bookFile("1"), chapterFile("1"), chapterFile("2")],
        }),
      ),
    ).toBe("assembly_book_owned");
    expect(refusal(decide({ volumes: "1", chapters: "1-2", files: [chapterFile("1"), chapterFile("2")] }))).toBe(
      "assembly_map_not_exact",
    );
    // A book the series does not know at all (no slot, file or entry) is unknown, not refused.
    expect(refusal(decide({ chapters: "1-2", files: [chapterFile("1"), chapterFile("2")] }))).toBe("unit_not_found");
    expect(
      refusal(decide({ chapters: "1-2", operator: { "1": "" }, files: [chapterFile("1"), chapterFile("2")] })),
    ).toBe("assembly_map_not_exact");
    expect(
      refusal(
        decide({
          chapters: "1-3",
          reading: { "1": "1-2", "2": "2-3" },
          files: [chapterFile("1"), chapterFile("2"), chapterFile("3")],
        }),
      ),
    ).toBe("assembly_ambiguous_map");
    expect(
      refusal(decide({ chapters: "1-3", operator: { "1": "1-3" }, files: [chapterFile("1"), chapterFile("3")] })),
    ).toBe("assembly_missing_chapters");
    const split = [chapterSlot("1"), chapterSlot("2", { parts: 2 })];
    expect(
      refusal(decide({ chapters: split, operator: { "1": "1-2" }, files: [chapterFile("1"), partFile("2", 1)] })),
    ).toBe("assembly_missing_part");
  });

  it("refuses under a map that is not exact: a chapter on disk outside every book", () => {
    const files = [chapterFile("1"), chapterFile("2"), chapterFile("3")];
    const partial = decide({ volumes: "1-2", chapters: "1-3", operator: { "1": "1-2" }, files });
    expect(refusal(partial)).toBe("assembly_map_not_exact");
    expect(refusal(decide({ volumes: "1-2", chapters: "1-3", operator: { "1": "1-2", "2": "3" }, files }))).toBe("ok");
  });

  it("takes complete parts from one source only, in part order", () => {
    const slots = [chapterSlot("1", { parts: 2 })];
    const a1 = partFile("1", 1);
    const b2 = partFile("1", 2);
    const mixed = new Map([
      [a1.id, "mapping:1"],
      [b2.id, "mapping:2"],
    ]);
    expect(refusal(decide({ chapters: slots, operator: { "1": "1" }, files: [a1, b2] }, "1", mixed))).toBe(
      "assembly_missing_part",
    );
    const a2 = partFile("1", 2);
    const one = new Map([
      [a1.id, "mapping:1"],
      [b2.id, "mapping:2"],
      [a2.id, "mapping:1"],
    ]);
    const d = decide({ chapters: slots, operator: { "1": "1" }, files: [a2, a1, b2] }, "1", one);
    if (!d.ok) throw new Error(d.detail);
    expect(d.plan.chapters[0]?.sources.map((s) => [s.fileId, s.part])).toEqual([
      [a1.id, 1],
      [a2.id, 2],
    ]);
  });

  it("parts placed by hand belong to the release group their names carry: two groups are two sources", () => {
    const slots = [chapterSlot("1", { parts: 2 })];
    const part = (p: number, name: string) => partFile("1", p, { path: `Test Series/${name}` });
    const alpha1 = part(1, "c001 (part 1) [Alpha Scans].cbz");
    const beta2 = part(2, "c001 (part 2) [Beta Team].cbz");
    expect(refusal(decide({ chapters: slots, operator: { "1": "1" }, files: [alpha1, beta2] }))).toBe(
      "assembly_missing_part",
    );
    // The same group written in another case is one source; names without a group are one local source.
    const alpha2 = part(2, "c001 (part 2) [ALPHA SCANS].cbz");
    const d = decide({ chapters: slots, operator: { "1": "1" }, files: [alpha1, beta2, alpha2] });
    if (!d.ok) throw new Error(d.detail);
    expect(d.plan.chapters[0]?.sources.map((s) => s.fileId)).toEqual([alpha1.id, alpha2.id]);
    const plain = [part(1, "c001 (part 1).cbz"), part(2, "c001 (part 2).cbz")];
    expect(refusal(decide({ chapters: slots, operator: { "1": "1" }, files: plain }))).toBe("ok");
    // A provider's source mapping names the source whatever the name says.
    const mapped = new Map([
      [alpha1.id, "mapping:1"],
      [beta2.id, "mapping:1"],
    ]);
    expect(refusal(decide({ chapters: slots, operator: { "1": "1" }, files: [alpha1, beta2] }, "1", mapped))).toBe(
      "ok",
    );
  });

  it("uses a range file inside the book once, and never one reaching outside it", () => {
    const range = rangeFile("1", "2");
    const d = decide({ chapters: "1-3", operator: { "1": "1-3" }, files: [range, chapterFile("3")] });
    if (!d.ok) throw new Error(d.detail);
    expect(d.plan.chapters.map((c) => c.sources.length)).toEqual([1, 0, 1]);
    const outside = decide({
      chapters: chapterSlots("1-3"),
      operator: { "1": "1-2", "2": "3" },
      files: [rangeFile("2", "3"), chapterFile("1")],
    });
    expect(refusal(outside)).toBe("assembly_missing_part");
  });

  it("names volumes and pages", () => {
    expect(volumeTag(label("3"))).toBe("003");
    expect(volumeTag(label("10.5"))).toBe("010.5");
    expect(volumeTag(label("1234"))).toBe("1234");
    expect(assemblyFileName('What?: A/B "Story".', label("2"), "en")).toBe("What A B Story. - v002 [en].cbz");
    // A long title is shortened, never the volume and language that make the name the book's.
    const long = "Reincarnated ".repeat(20).trim();
    expect(assemblyFileName(long, label("1"), "en")).toMatch(/^Reincarnated .* - v001 \[en\]\.cbz$/);
    expect(assemblyFileName(long, label("2"), "en")).not.toBe(assemblyFileName(long, label("1"), "en"));
    expect(utf8Bytes(assemblyFileName("転".repeat(100), label("12.5"), "ja"))).toBeLessThanOrEqual(174);
    expect(assemblyFileName("転".repeat(100), label("12.5"), "ja")).toMatch(/^転+ - v012\.5 \[ja\]\.cbz$/);
    expect(pageName(0, 10, "x/001.JPG")).toBe("p0001.jpg");
    expect(pageName(9, 12345, "a.webp")).toBe("p00010.webp");
  });
});

const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;

describe("assembly file name (property)", () => {
  it("any title: <Series> - v<NNN> [<lang>].cbz, the tail whole, at most 170 bytes before the extension", () => {
    const volume = fc.tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
    );
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 300 }),
        volume,
        fc.constantFrom("en", "ja", "pt-BR"),
        (title, [whole, dec], lang) => {
          const v = label(dec === null ? String(whole) : `${whole}.${dec}`);
          const name = assemblyFileName(title, v, lang);
          expect(name.endsWith(` - v${volumeTag(v)} [${lang}].cbz`)).toBe(true);
          expect(utf8Bytes(name.slice(0, -".cbz".length))).toBeLessThanOrEqual(170);
          // Already safe: the name safe-names.ts would give it is itself.
          expect(safeName(name, 255)).toBe(name);
        },
      ),
    );
  });
});
