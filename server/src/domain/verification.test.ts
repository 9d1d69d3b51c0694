import { describe, expect, it } from "vitest";
import { label } from "./labels.ts";
import { bookFile, labels, proofFor } from "./test-fixtures.ts";
import {
  bookSuspectReason,
  digestOf,
  editionBookPages,
  fileSuspectReason,
  isOversized,
  judgeBookFile,
  proofStatus,
  sameChapters,
} from "./verification.ts";

describe("suspect books", () => {
  it.each([
    ["a downloaded book", { origin: "download" as const, pageCount: 200 }, null],
    // A book placed in the library by hand, found by the scan, is a hand import.
    ["a scanned book", { origin: "scan" as const, pageCount: 200 }, "hand import"],
    // The size is judged first: a scanned pack of several books asks for a replacement.
    ["a scanned pack above 600 pages", { origin: "scan" as const, pageCount: 601 }, "oversized pack"],
    ["a hand import", { origin: "import" as const, pageCount: 200 }, "hand import"],
    ["a machine translation", { origin: "translation" as const, pageCount: 200 }, "machine translation"],
    ["a pack above 600 pages", { origin: "download" as const, pageCount: 601 }, "oversized pack"],
    ["an assembly of normal size", { origin: "assembled" as const, pageCount: 200 }, null],
    [
      "an oversized assembly without provenance for its volume",
      { origin: "assembled" as const, pageCount: 900 },
      "oversized pack",
    ],
  ])("%s", (_name, file, expected) => {
    expect(fileSuspectReason(file, "none", null)).toBe(expected);
  });

  it("never calls an assembly suspect once its provenance is known", () => {
    expect(fileSuspectReason({ origin: "assembled", pageCount: 900 }, "proven", null)).toBeNull();
    expect(fileSuspectReason({ origin: "assembled", pageCount: 900 }, "boundaries_changed", null)).toBeNull();
  });

  it("judges the size against the edition once three books say what it is", () => {
    expect(editionBookPages([bookFile("1", { pageCount: 180 }), bookFile("2", { pageCount: 200 })])).toBeNull();
    const edition = editionBookPages([180, 200, 220, 500].map((p, i) => bookFile(String(i + 1), { pageCount: p })));
    expect(edition).toBe(210);
    expect(isOversized(420, edition)).toBe(false);
    expect(isOversized(421, edition)).toBe(true);
    expect(isOversized(601, null)).toBe(true);
  });

  it("a book is suspect only when every copy is, never when a copy is a proven assembly", () => {
    expect(
      bookSuspectReason(
        [
          { origin: "import", pageCount: 200 },
          { origin: "download", pageCount: 200 },
        ],
        false,
      ),
    ).toBeNull();
    expect(bookSuspectReason([{ origin: "import", pageCount: 200 }], true)).toBeNull();
    expect(bookSuspectReason([{ origin: "translation", pageCount: 200 }], false)).toBe("machine translation");
    expect(bookSuspectReason([], false)).toBeNull();
  });
});

describe("whether a proof applies: current digest, chapters equal to the map's, lapsing by itself", () => {
  const book = bookFile("1", { origin: "import", sha256: "ab".repeat(32) });
  it("applies with the same digest and the same map entry, in any order or spelling", () => {
    expect(proofStatus(proofFor(book, "1-3"), [book], labels("1-3"))).toBe("applies");
    expect(proofStatus(proofFor(book, [label("3"), label("1"), label("2")]), [book], labels("1-3"))).toBe("applies");
    expect(digestOf("AB")).toBe("sha256:ab");
  });
  it("stops applying when the content or the map changes", () => {
    expect(proofStatus(proofFor(book, "1-3"), [{ sha256: "cd".repeat(32) }], labels("1-3"))).toBe("digest_changed");
    expect(proofStatus(proofFor(book, "1-3"), [book], labels("1-4"))).toBe("map_changed");
    expect(proofStatus(proofFor(book, "1-3"), [book], undefined)).toBe("map_changed");
  });
  it("compares chapters exactly: a label named twice is not the same list", () => {
    expect(sameChapters(["1", "2"], ["2", "1"])).toBe(true);
    expect(sameChapters(["1", "1", "2"], ["1", "2"])).toBe(false);
  });
});

describe("what a proof lifts: the doubt, never a chapter file", () => {
  it.each([
    ["a hand import", { origin: "import" as const, pageCount: 200 }],
    ["a machine translation", { origin: "translation" as const, pageCount: 200 }],
    ["an oversized pack", { origin: "download" as const, pageCount: 900 }],
  ])("%s covers only while verified and never retires", (_name, file) => {
    expect(judgeBookFile(file, "none", null, false)).toMatchObject({ covers: false, retires: false });
    expect(judgeBookFile(file, "none", null, true)).toMatchObject({ covers: true, retires: false });
  });
  it("adds nothing to a sound book or a proven assembly", () => {
    const sound = { origin: "download" as const, pageCount: 200 };
    expect(judgeBookFile(sound, "none", null, true)).toMatchObject({ covers: true, retires: true, suspect: null });
    expect(judgeBookFile(sound, "none", null, false)).toMatchObject({ covers: true, retires: true, suspect: null });
    expect(judgeBookFile({ origin: "assembled", pageCount: 900 }, "proven", null, false)).toMatchObject({
      covers: true,
      retires: true,
    });
  });
  it("never lets a proof restore an assembly whose boundaries changed (re-assembly does)", () => {
    expect(judgeBookFile({ origin: "assembled", pageCount: 200 }, "boundaries_changed", null, true)).toMatchObject({
      covers: false,
      retires: false,
      suspect: null,
    });
  });
});
