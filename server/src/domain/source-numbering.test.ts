import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseLabel, type Label } from "./labels.ts";
import {
  isUnnumberedLabel,
  reconcileSourceNumbering,
  slotChanges,
  unnumberedLabel,
  type ExistingSlot,
  type SourceRelease,
} from "./source-numbering.ts";

let nextId = 1;
/** A chapter release of source `m`: "10" whole, "10.5" decimal, "10#2" the name states part 2, null unnumbered. */
function ch(m: number, n: string | null, over: Partial<SourceRelease> = {}): SourceRelease {
  const [num, part] = n === null ? [null, null] : n.split("#");
  return {
    mappingId: m,
    externalId: `x${nextId++}`,
    kind: "chapter",
    chapter: (num ?? null) as Label | null,
    volume: null,
    part: part ? Number(part) : null,
    language: "en",
    ...over,
  };
}

/** An unnumbered release's label shown as "u<mapping>:<release id>" (the label itself is a hash). */
const shown = (n: string, names: ReadonlyMap<string, string>) => names.get(n) ?? n;

/** "10" main, "10p2" part 2 of 10, "10.5x" extra 10.5, "u1:x7x" unnumbered extra, "-" unplaced, "v3" volume 3. */
function shortOf(
  r: { placement: ReturnType<typeof reconcileSourceNumbering>["releases"][number]["placement"] },
  names: ReadonlyMap<string, string>,
) {
  const p = r.placement;
  if (p.kind === "unplaced") return "-";
  if (p.kind === "volume") return `v${p.number}`;
  return `${shown(p.number, names)}${p.part !== null ? `p${p.part}` : ""}${p.extra ? "x" : ""}`;
}

/**
 * Real listings, as MangaDex, MangaPlus-style and aggregator sources show them through Suwayomi:
 * each row lists the sources' releases and what the reconciliation makes of every one, in order.
 */
const CASES: { name: string; sources: SourceRelease[][]; placed: string[][]; slots: string[] }[] = [
  {
    name: "two scanlators of one number in one source are one release, not parts",
    sources: [[ch(1, "5"), ch(1, "5"), ch(1, "6")]],
    placed: [["5", "5", "6"]],
    slots: ["5", "6"],
  },
  {
    name: "N.1 … N.k from a source without N are the parts of chapter N",
    sources: [
      [ch(1, "9"), ch(1, "10"), ch(1, "11")],
      [ch(2, "9"), ch(2, "10.1"), ch(2, "10.2"), ch(2, "10.3"), ch(2, "11")],
    ],
    placed: [
      ["9", "10", "11"],
      ["9", "10p1", "10p2", "10p3", "11"],
    ],
    slots: ["9", "10/3", "11"],
  },
  {
    name: "a split found in a source alone still makes chapter N (nobody lists N)",
    sources: [[ch(1, "40.1"), ch(1, "40.2")]],
    placed: [["40p1", "40p2"]],
    slots: ["40/2"],
  },
  {
    name: "a lone N.x while another source lists N is the same chapter",
    sources: [
      [ch(1, "9"), ch(1, "10"), ch(1, "11")],
      [ch(2, "9"), ch(2, "10.5"), ch(2, "11")],
    ],
    placed: [
      ["9", "10", "11"],
      ["9", "10", "11"],
    ],
    slots: ["9", "10", "11"],
  },
  {
    name: "a decimal beside its own N is a side chapter (extra)",
    sources: [[ch(1, "10"), ch(1, "10.5"), ch(1, "11")]],
    placed: [["10", "10.5x", "11"]],
    slots: ["10", "10.5x", "11"],
  },
  {
    name: "chapter 0 (prologue) and an unnumbered release (oneshot, −1) are extras, each with its own slot",
    sources: [[ch(1, "0"), ch(1, "1"), ch(1, null, { externalId: "74" })]],
    placed: [["0x", "1", "u1:74x"]],
    slots: ["0x", "u1:74x", "1"],
  },
  {
    name: "MangaDex-style listing: two unnumbered extras of one source stay two extras, never a split or chapter 0",
    sources: [
      [ch(1, "0"), ch(1, null, { externalId: "5101" }), ch(1, "1"), ch(1, "2"), ch(1, null, { externalId: "5102" })],
    ],
    placed: [["0x", "u1:5101x", "1", "2", "u1:5102x"]],
    slots: ["0x", "u1:5101x", "u1:5102x", "1", "2"],
  },
  {
    name: "the same oneshot at two sources is one extra per source (nothing says they are the same release)",
    sources: [
      [ch(1, "1"), ch(1, null, { externalId: "880" })],
      [ch(2, "1"), ch(2, null, { externalId: "9912" })],
    ],
    placed: [
      ["1", "u1:880x"],
      ["1", "u2:9912x"],
    ],
    slots: ["u1:880x", "u2:9912x", "1"],
  },
  {
    name: "an unnumbered release beside N.1, N.2 changes nothing of the split",
    sources: [[ch(1, "4.1"), ch(1, "4.2"), ch(1, null, { externalId: "u" })]],
    placed: [["4p1", "4p2", "u1:ux"]],
    slots: ["u1:ux", "4/2"],
  },
  {
    name: "an override that made a release unnumbered makes it an unnumbered extra",
    sources: [[ch(1, "1"), ch(1, null, { externalId: "31", overridden: true }), ch(1, "2")]],
    placed: [["1", "u1:31x", "2"]],
    slots: ["u1:31x", "1", "2"],
  },
  {
    name: "an unnumbered release in another language is placed but makes no slot",
    sources: [[ch(1, "1"), ch(1, null, { externalId: "40", language: "fr" })]],
    placed: [["1", "u1:40x"]],
    slots: ["1"],
  },
  {
    name: "a lone decimal nobody's N explains stays an extra",
    sources: [[ch(1, "1"), ch(1, "2.1"), ch(1, "3")]],
    placed: [["1", "2.1x", "3"]],
    slots: ["1", "2.1x", "3"],
  },
  {
    name: "N.1 from one source while another splits N is part 1 of N",
    sources: [
      [ch(1, "10.1"), ch(1, "11")],
      [ch(2, "10.1"), ch(2, "10.2"), ch(2, "11")],
    ],
    placed: [
      ["10p1", "11"],
      ["10p1", "10p2", "11"],
    ],
    slots: ["10/2", "11"],
  },
  {
    name: "parts stop at the first gap: N.1, N.2 are parts, N.5 beside them an extra",
    sources: [[ch(1, "7.1"), ch(1, "7.2"), ch(1, "7.5")]],
    placed: [["7p1", "7p2", "7.5x"]],
    slots: ["7/2", "7.5x"],
  },
  {
    name: "a part the release's name states ('Ch.20 part 2') is that part",
    sources: [[ch(1, "20#1"), ch(1, "20#2")]],
    placed: [["20p1", "20p2"]],
    slots: ["20/2"],
  },
  {
    name: "an override's numbers are taken as stated: 11.5 stays an extra although another source lists 11",
    sources: [
      [ch(1, "11"), ch(1, "12")],
      [ch(2, "11.5", { overridden: true }), ch(2, "12")],
    ],
    placed: [
      ["11", "12"],
      ["11.5x", "12"],
    ],
    slots: ["11", "11.5x", "12"],
  },
  {
    name: "a volume release makes a volume slot",
    sources: [[{ ...ch(1, null), kind: "volume", volume: "3" }]],
    placed: [["v3"]],
    slots: ["v3"],
  },
  {
    name: "releases in other languages are placed but create no slot",
    sources: [
      [ch(1, "1"), ch(1, "2")],
      [ch(2, "2", { language: "fr" }), ch(2, "3", { language: "fr" })],
    ],
    placed: [
      ["1", "2"],
      ["2", "3"],
    ],
    slots: ["1", "2"],
  },
];

describe("reconcileSourceNumbering: table of real listings", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const out = reconcileSourceNumbering(c.sources.flat(), ["en"]);
      const names = new Map(
        c.sources
          .flat()
          .map((r) => [unnumberedLabel(r.mappingId, r.externalId) as string, `u${r.mappingId}:${r.externalId}`]),
      );
      const byMapping = c.sources.map((rs) =>
        rs.map((r) =>
          shortOf(
            out.releases.find((x) => x.mappingId === r.mappingId && x.externalId === r.externalId)!,
            names,
          ),
        ),
      );
      expect(byMapping).toEqual(c.placed);
      expect([
        ...out.chapters.map((s) => `${shown(s.number, names)}${s.parts > 1 ? `/${s.parts}` : ""}${s.extra ? "x" : ""}`),
        ...out.volumes.map((v) => `v${v}`),
      ]).toEqual(c.slots);
    });
  }

  it("never invents a number: every placed chapter is the release's number or its whole part", () => {
    const num = fc.oneof(
      fc.integer({ min: 0, max: 30 }).map(String),
      fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 9 })).map(([a, b]) => `${a}.${b}`),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), num), { maxLength: 30 }), (rows) => {
        const out = reconcileSourceNumbering(
          rows.map(([m, n]) => ch(m, n)),
          ["en"],
        );
        for (const r of out.releases) {
          const p = r.placement;
          if (p.kind !== "chapter") continue;
          if (r.chapter === null) {
            expect(p).toMatchObject({ number: unnumberedLabel(r.mappingId, r.externalId), extra: true, part: null });
            continue;
          }
          expect([r.chapter, r.chapter.split(".")[0]]).toContain(p.number);
          // Extras are exactly chapter 0 and decimals.
          expect(p.extra).toBe(p.number === "0" || p.number.includes("."));
          if (p.part !== null) expect(p.part).toBeGreaterThanOrEqual(1);
        }
        // Every slot is called for by some placed release.
        for (const s of out.chapters)
          expect(out.releases.some((r) => r.placement.kind === "chapter" && r.placement.number === s.number)).toBe(
            true,
          );
      }),
    );
  });
});

describe("unnumberedLabel", () => {
  it("is a canonical label, stable per (source, release id), distinct across both, never a real chapter's", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.string({ minLength: 1, maxLength: 40 }), (m, x) => {
        const l = unnumberedLabel(m, x);
        expect(parseLabel(l)).toBe(l);
        expect(unnumberedLabel(m, x)).toBe(l);
        expect(isUnnumberedLabel(l)).toBe(true);
        expect(l.startsWith("0.0000")).toBe(true);
      }),
    );
    const all = new Set<string>();
    for (let m = 1; m <= 20; m++) for (let x = 1; x <= 500; x++) all.add(unnumberedLabel(m, String(x)));
    expect(all.size).toBe(20 * 500);
    for (const real of ["0", "0.5", "0.1", "1", "10.5", "0.01"]) expect(isUnnumberedLabel(real)).toBe(false);
  });
});

describe("the name of an unnumbered release", () => {
  it("goes with its slot claim; numbered claims carry none", () => {
    const r = (externalId: string, chapter: string | null, title: string) => ({
      mappingId: 1,
      externalId,
      kind: "chapter" as const,
      chapter: chapter === null ? null : parseLabel(chapter),
      volume: null,
      part: null,
      language: "en",
      title,
    });
    const out = reconcileSourceNumbering([r("a", "1", "Ch. 1"), r("b", null, "Oneshot")], ["en"]);
    expect(out.chapters).toEqual([
      { number: unnumberedLabel(1, "b"), parts: 1, extra: true, title: "Oneshot" },
      { number: "1", parts: 1, extra: false },
    ]);
  });
});

describe("slotChanges", () => {
  const slot = (number: string, over: Partial<ExistingSlot> = {}): ExistingSlot => ({
    kind: "chapter",
    number,
    parts: 1,
    extra: false,
    origin: "source",
    unlisted: false,
    ...over,
  });
  const listed = (...chapters: string[]) => ({
    chapters: chapters.map((c) => {
      const [n, parts] = c.split("/");
      return { number: n!, parts: Number(parts ?? 1), extra: n === "0" || n!.includes(".") };
    }),
    volumes: [] as string[],
  });

  it("adds new numbers, raises parts and the extra mark, never lowers them", () => {
    const out = slotChanges(
      [slot("1"), slot("2", { parts: 3 }), slot("0", { origin: null })],
      listed("0", "1/2", "2", "3"),
      { chapters: [], volumes: [] },
    );
    expect(out.addChapters.map((c) => c.number)).toEqual(["3"]);
    expect(out.raiseChapters).toEqual([
      { number: "0", parts: 1, extra: true },
      { number: "1", parts: 2, extra: false },
    ]);
  });

  it("marks a source-made slot nobody lists and nothing holds; keeps it; clears the mark when listed again", () => {
    const existing = [slot("1"), slot("2"), slot("3", { origin: null }), slot("4")];
    const out = slotChanges(existing, listed("1"), { chapters: ["4"], volumes: [] });
    expect(out.markUnlisted).toEqual([{ kind: "chapter", number: "2" }]);
    const again = slotChanges([slot("2", { unlisted: true })], listed("2"), { chapters: [], volumes: [] });
    expect(again.clearUnlisted).toEqual([{ kind: "chapter", number: "2" }]);
    const held = slotChanges([slot("2", { unlisted: true })], listed(), { chapters: ["2"], volumes: [] });
    expect(held.clearUnlisted).toEqual([{ kind: "chapter", number: "2" }]);
  });

  it("retires an unheld source extra whose release now reads as another chapter; keeps the rest", () => {
    // A listed 4.5 alone (an extra); then B listed 4, so A's 4.5 reads as chapter 4.
    const both = reconcileSourceNumbering(
      [
        { mappingId: 1, externalId: "a", kind: "chapter", chapter: "4.5", volume: null, part: null, language: "en" },
        { mappingId: 2, externalId: "b", kind: "chapter", chapter: "4", volume: null, part: null, language: "en" },
      ],
      ["en"],
    );
    expect(both.reinterpreted).toEqual(["4.5"]);
    const extra = slot("4.5", { extra: true });
    const none = { chapters: [], volumes: [] };
    const out = slotChanges([extra], both, none);
    expect(out.retireChapters).toEqual(["4.5"]);
    expect(out.markUnlisted).toEqual([]);
    expect(out.addChapters.map((c) => c.number)).toEqual(["4"]);
    // A file or a slot not made by a source keeps it (marked).
    expect(slotChanges([extra], both, { chapters: ["4.5"], volumes: [] }).retireChapters).toEqual([]);
    expect(slotChanges([{ ...extra, origin: null }], both, none).retireChapters).toEqual([]);
    // An offer that went away is history: marked, never retired.
    expect(slotChanges([extra], listed("4"), none)).toMatchObject({
      retireChapters: [],
      markUnlisted: [{ kind: "chapter", number: "4.5" }],
    });
  });
});
