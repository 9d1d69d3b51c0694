import { describe, expect, it } from "vitest";
import {
  AUDIT_FLAGS,
  auditEntries,
  auditPage,
  bookSuspectReason,
  filterAuditEntries,
  needsEveryPageCheck,
  parseAuditSort,
  sortAuditEntries,
  wholeBetween,
  withLastPages,
  type AuditEntry,
  type AuditFileFacts,
  type AuditFlag,
  type AuditSource,
} from "./audit.ts";
import fc from "fast-check";
import { label } from "./labels.ts";

let nextId = 1;
const MANGADEX: AuditSource = { provider: "suwayomi", sourceId: "md-1", mappingId: 1 };
const OTHER: AuditSource = { provider: "suwayomi", sourceId: "cm-9", mappingId: 2 };

function chapter(n: string, over: Partial<AuditFileFacts> = {}): AuditFileFacts {
  const id = nextId++;
  return {
    id,
    path: `S/S - c${n}.cbz`,
    kind: "chapter",
    volume: null,
    chapter: label(n),
    chapterEnd: null,
    part: null,
    pageCount: 20,
    size: 1000 + id,
    sha256: "a".repeat(64),
    state: "active",
    origin: "download",
    language: "en",
    source: MANGADEX,
    verdict: null,
    ...over,
  };
}

function book(v: string, over: Partial<AuditFileFacts> = {}): AuditFileFacts {
  return chapter("1", {
    kind: "book",
    volume: label(v),
    chapter: null,
    pageCount: 200,
    path: `S/S v${v}.cbz`,
    ...over,
  });
}

function flagsOf(files: AuditFileFacts[], duplicates: number[] = []): Map<number, AuditFlag[]> {
  return new Map(auditEntries(files, new Set(duplicates)).map((e) => [e.id, e.flags]));
}

describe("audit flags", () => {
  it("a clean run of chapters from one source has no flag", () => {
    const files = ["1", "2", "3", "4"].map((n) => chapter(n));
    expect([...flagsOf(files).values()]).toEqual([[], [], [], []]);
  });

  const verdict = (state: string, reasons: string[], needsReplacement = false) => ({
    state,
    needsReplacement,
    reasons,
    blackShare: reasons.includes("black_cards") ? 0.3 : 0.01,
  });

  it.each<[string, Partial<AuditFileFacts>, AuditFlag[]]>([
    ["missing from disk", { state: "missing" }, ["unreadable"]],
    [
      "download judged degraded for black cards",
      { verdict: verdict("degraded", ["black_cards"], true) },
      ["degraded", "black_cards"],
    ],
    [
      "download judged degraded for strip slices",
      { verdict: verdict("degraded", ["strip_slices"], true) },
      ["degraded", "strip_slices"],
    ],
    [
      "both reasons",
      { verdict: verdict("published", ["black_cards", "strip_slices"]) },
      ["degraded", "black_cards", "strip_slices"],
    ],
    ["download state degraded without reasons", { verdict: verdict("degraded", []) }, ["degraded"]],
    ["needs a replacement", { verdict: verdict("published", [], true) }, ["degraded"]],
    ["a clean verdict", { verdict: verdict("published", []) }, []],
    ["7 pages", { pageCount: 7 }, ["few_pages", "unusual_size"]],
    ["a split part with 7 pages is not judged for size", { pageCount: 7, part: 1 }, []],
    ["45 pages among 20-page chapters", { pageCount: 45 }, ["unusual_size"]],
    ["40 pages is still usual (twice the median)", { pageCount: 40 }, []],
    ["10 pages is still usual (half the median)", { pageCount: 10 }, []],
    ["a range of three chapters with 60 pages is usual", { chapterEnd: label("5") }, []],
  ])("%s", (_name, over, expected) => {
    const base = ["1", "2", "4"].map((n) => chapter(n));
    // The file under test holds chapter 3 (no gap), unless it says otherwise.
    const file = chapter("3", { ...over, pageCount: over.pageCount ?? (over.chapterEnd ? 60 : 20) });
    expect(flagsOf([...base, file]).get(file.id)).toEqual(expected);
  });

  it("duplicate: the coverage index's duplicate ids", () => {
    const files = [chapter("1"), chapter("2")];
    expect(flagsOf(files, [files[1]!.id]).get(files[1]!.id)).toEqual(["duplicate"]);
    expect(flagsOf(files, [files[1]!.id]).get(files[0]!.id)).toEqual([]);
  });

  it("black last page: from the last page's grey statistics, once known; a missing file is not checked", () => {
    const black = chapter("1", { lastPage: { mean: 3, stdev: 2 } });
    const drawn = chapter("2", { lastPage: { mean: 200, stdev: 60 } });
    const unknown = chapter("3", { lastPage: null });
    const dark = chapter("4", { lastPage: { mean: 30, stdev: 55 } });
    const gone = chapter("5", { state: "missing", lastPage: { mean: 3, stdev: 2 } });
    const flags = flagsOf([black, drawn, unknown, dark, gone]);
    expect(flags.get(black.id)).toEqual(["black_last_page"]);
    expect(flags.get(drawn.id)).toEqual([]);
    expect(flags.get(unknown.id)).toEqual([]);
    expect(flags.get(dark.id)).toEqual([]);
    expect(flags.get(gone.id)).toEqual(["unreadable"]);
  });

  it("numbering gap: the file after a missing whole number, per source and language", () => {
    const a = [chapter("1"), chapter("2"), chapter("5"), chapter("5.5"), chapter("6")];
    const flags = flagsOf(a);
    expect(a.map((f) => flags.get(f.id)!.includes("numbering_gap"))).toEqual([false, false, true, false, false]);
    // Another source holding 3 and 4 does not close the gap of the first one, and has its own.
    const b = [chapter("3", { source: OTHER }), chapter("4", { source: OTHER }), chapter("7", { source: OTHER })];
    const both = flagsOf([...a, ...b]);
    expect(both.get(a[2]!.id)).toContain("numbering_gap");
    expect(b.map((f) => both.get(f.id)!.includes("numbering_gap"))).toEqual([false, false, true]);
    // Another language is another run.
    const fr = [chapter("1", { language: "fr" }), chapter("2", { language: "fr" })];
    expect(flagsOf([...a, ...fr]).get(fr[0]!.id)).not.toContain("numbering_gap");
  });

  it("numbering gap: a range file reaches its end; decimals alone are no gap; books count volumes", () => {
    const run = [chapter("1", { chapterEnd: label("3") }), chapter("4"), chapter("4.5"), chapter("5")];
    expect([...flagsOf(run).values()].flat()).not.toContain("numbering_gap");
    const books = [book("1"), book("2"), book("4")];
    expect(flagsOf(books).get(books[2]!.id)).toContain("numbering_gap");
  });

  it("wholeBetween: is there a whole number strictly between", () => {
    const cases: [string, string, boolean][] = [
      ["1", "2", false],
      ["1", "3", true],
      ["1.5", "2", false],
      ["1.5", "2.5", true],
      ["2", "2.5", false],
      ["0", "1", false],
      ["9", "11", true],
    ];
    for (const [a, b, expected] of cases) expect(wholeBetween(label(a), label(b)), `${a}..${b}`).toBe(expected);
  });

  it("several sources: another source holds the same number; scanned files are a source of their own", () => {
    const files = [
      chapter("1"),
      chapter("1", { source: OTHER }),
      chapter("2"),
      chapter("2", { source: null, origin: "scan" }),
      chapter("3"),
    ];
    const flags = flagsOf(files);
    expect(files.map((f) => flags.get(f.id)!.includes("several_sources"))).toEqual([true, true, true, true, false]);
    // Two files of one source for one number are not several sources; a book and a chapter of one number differ in kind.
    const same = [chapter("1"), chapter("1"), book("1", { source: OTHER })];
    expect([...flagsOf(same).values()].flat()).not.toContain("several_sources");
  });

  it("unusual size of books: against the books' median, at least 3 books; above 600 pages always", () => {
    const books = [book("1"), book("2"), book("3"), book("4", { pageCount: 90 }), book("5", { pageCount: 400 })];
    const flags = flagsOf(books);
    expect(books.map((f) => flags.get(f.id)!.includes("unusual_size"))).toEqual([false, false, false, true, false]);
    const two = [book("1"), book("2", { pageCount: 90 })];
    expect([...flagsOf(two).values()].flat()).toEqual([]);
    expect(flagsOf([book("1", { pageCount: 700 })]).get(nextId - 1)).toEqual(["unusual_size"]);
  });

  it("a missing file is unreadable and takes no part in gaps, sizes and sources", () => {
    const files = [chapter("1"), chapter("2", { state: "missing", pageCount: 2, source: OTHER }), chapter("3")];
    const flags = flagsOf(files);
    expect(flags.get(files[1]!.id)).toEqual(["unreadable"]);
    expect(flags.get(files[2]!.id)).toEqual(["numbering_gap"]);
  });

  it("flags are listed in AUDIT_FLAGS order", () => {
    const f = chapter("9", {
      state: "missing",
      pageCount: 3,
      verdict: { state: "degraded", needsReplacement: true, reasons: ["strip_slices", "black_cards"], blackShare: 0.5 },
    });
    const flags = flagsOf([f], [f.id]).get(f.id)!;
    expect(flags).toEqual(AUDIT_FLAGS.filter((x) => flags.includes(x)));
    expect(flags).toEqual(["unreadable", "degraded", "black_cards", "strip_slices", "duplicate"]);
  });
});

describe("audit list: sort, filter, page", () => {
  const files = [
    chapter("10", { size: 5 }),
    chapter("2", { size: 50 }),
    book("1", { size: 500, source: null }),
    chapter("1", { size: 7, pageCount: 3 }),
    chapter("0", { size: 9 }),
    chapter("1.5", { size: 9, language: "fr", source: OTHER }),
  ];
  const entries = auditEntries(files, new Set());
  const numbers = (list: AuditEntry[]) => list.map((e) => `${e.kind[0]}${e.number}`);

  it.each<[string, string[]]>([
    ["number", ["b1", "c0", "c1", "c1.5", "c2", "c10"]],
    ["-number", ["c10", "c2", "c1.5", "c1", "c0", "b1"]],
    ["size", ["c10", "c1", "c0", "c1.5", "c2", "b1"]],
    ["-size", ["b1", "c2", "c0", "c1.5", "c1", "c10"]],
    ["source", ["c1.5", "c10", "c2", "c1", "c0", "b1"]],
    ["language", ["c10", "c2", "b1", "c1", "c0", "c1.5"]],
    ["-flags", ["c1", "c10", "c2", "b1", "c0", "c1.5"]],
    ["id", ["c10", "c2", "b1", "c1", "c0", "c1.5"]],
    ["-id", ["c1.5", "c0", "c1", "b1", "c2", "c10"]],
  ])("sort=%s", (text, expected) => {
    const sort = parseAuditSort(text);
    expect(sort).not.toBeNull();
    expect(numbers(sortAuditEntries(entries, sort!))).toEqual(expected);
  });

  it("unknown sort keys are refused", () => {
    expect(parseAuditSort("colour")).toBeNull();
    expect(parseAuditSort("--size")).toBeNull();
    expect(parseAuditSort("")).toBeNull();
  });

  it("filters combine: any of the flags, problems only, kind, language, provider and source id", () => {
    const f = (filter: Parameters<typeof filterAuditEntries>[1]) =>
      numbers(sortAuditEntries(filterAuditEntries(entries, filter)));
    expect(f({})).toHaveLength(6);
    expect(f({ flags: ["few_pages"] })).toEqual(["c1"]);
    expect(f({ flags: ["few_pages", "numbering_gap"] })).toEqual(["c1", "c10"]);
    expect(f({ problemsOnly: true })).toEqual(["c1", "c10"]);
    expect(f({ kind: "book" })).toEqual(["b1"]);
    expect(f({ language: "fr" })).toEqual(["c1.5"]);
    expect(f({ provider: "suwayomi" })).toEqual(["c0", "c1", "c1.5", "c2", "c10"]);
    expect(f({ provider: "suwayomi", sourceId: "cm-9" })).toEqual(["c1.5"]);
    expect(f({ kind: "chapter", language: "en", flags: ["few_pages"] })).toEqual(["c1"]);
  });

  it("pages of 24, the last one short, past the end empty", () => {
    const many = auditEntries(
      Array.from({ length: 50 }, (_, i) => chapter(String(i + 1))),
      new Set(),
    );
    expect(auditPage(many, 1).files).toHaveLength(24);
    expect(auditPage(many, 2).files[0]!.number).toBe("25");
    expect(auditPage(many, 3).files.map((e) => e.number)).toEqual(["49", "50"]);
    expect(auditPage(many, 4)).toMatchObject({ page: 4, pageSize: 24, total: 50, files: [] });
  });
});

describe("page checks applied on a kept list", () => {
  const stats = fc.option(
    fc.record({ mean: fc.integer({ min: 0, max: 255 }), stdev: fc.integer({ min: 0, max: 120 }) }),
    { nil: null },
  );
  it("equals the list computed with the same checks, whatever was known when it was kept", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ missing: fc.boolean(), then: stats, now: fc.option(stats, { nil: undefined }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        (rows) => {
          const files = rows.map((r, i) =>
            chapter(String(i + 1), {
              sha256: String(i).padStart(64, "0"),
              state: r.missing ? "missing" : "active",
              lastPage: r.then,
            }),
          );
          const now = new Map(rows.flatMap((r, i) => (r.now === undefined ? [] : [[files[i]!.sha256, r.now]])));
          const expected = auditEntries(
            files.map((f) => ({ ...f, lastPage: f.state === "active" ? (now.get(f.sha256) ?? null) : null })),
            new Set(),
          );
          expect(withLastPages(auditEntries(files, new Set()), now)).toEqual(expected);
        },
      ),
    );
  });

  it("keeps unchanged entries as they are", () => {
    const kept = auditEntries([chapter("1", { lastPage: { mean: 3, stdev: 2 } }), chapter("2")], new Set());
    const next = withLastPages(kept, new Map([[kept[0]!.sha256, { mean: 3, stdev: 2 }]]));
    expect(next[0]).toBe(kept[0]);
    expect(next[0]?.flags).toContain("black_last_page");
  });

  it("knows which orders and filters need every file's checks", () => {
    const number = { key: "number", descending: false } as const;
    expect(needsEveryPageCheck(number, {})).toBe(false);
    expect(needsEveryPageCheck(number, { flags: ["duplicate"], kind: "book" })).toBe(false);
    expect(needsEveryPageCheck({ key: "flags", descending: true }, {})).toBe(true);
    expect(needsEveryPageCheck(number, { problemsOnly: true })).toBe(true);
    expect(needsEveryPageCheck(number, { flags: ["few_pages", "black_last_page"] })).toBe(true);
  });
});

describe("suspect books", () => {
  it.each<[string, { origin: AuditFileFacts["origin"]; pageCount: number }[], boolean, string | null]>([
    ["a downloaded book", [{ origin: "download", pageCount: 200 }], false, null],
    ["a scanned book", [{ origin: "scan", pageCount: 200 }], false, "hand import"],
    ["a hand import", [{ origin: "import", pageCount: 200 }], false, "hand import"],
    ["a machine translation", [{ origin: "translation", pageCount: 200 }], false, "machine translation"],
    ["an oversized pack", [{ origin: "download", pageCount: 601 }], false, "oversized pack"],
    // A suspect book (docs/rules.md, "Suspect and verified books"): without provenance for its volume nothing
    // shows the service made it.
    ["an oversized assembly without provenance", [{ origin: "assembled", pageCount: 900 }], false, "oversized pack"],
    ["a proven assembly", [{ origin: "import", pageCount: 900 }], true, null],
    [
      "a hand import beside a downloaded copy",
      [
        { origin: "import", pageCount: 200 },
        { origin: "download", pageCount: 200 },
      ],
      false,
      null,
    ],
    ["no file", [], false, null],
  ])("%s", (_name, files, proven, expected) => {
    expect(bookSuspectReason(files, proven)).toBe(expected);
  });
});
