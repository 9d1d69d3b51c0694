import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffScan, naturalCompare, needsHash, seriesFolderOf, type FoundFile, type KnownFile } from "./scan-diff.ts";

const k = (id: number, path: string, sha256: string, size = 100, mtimeMs = 1000): KnownFile => ({
  id,
  path,
  size,
  mtimeMs,
  sha256,
});
const f = (path: string, size = 100, mtimeMs = 1000, sha256?: string): FoundFile => ({ path, size, mtimeMs, sha256 });

/** Runs both phases the way a scanner does: hash exactly what needsHash asks for. */
function scan(known: KnownFile[], found: FoundFile[], disk: Record<string, string>) {
  const asked = needsHash(known, found);
  const withHashes = found.map((x) => (asked.includes(x.path) ? { ...x, sha256: disk[x.path] } : x));
  return { asked, diff: diffScan(known, withHashes) };
}

describe("needsHash", () => {
  it("asks for new paths and for known paths whose size or mtime changed, nothing else", () => {
    const known = [k(1, "A/a.cbz", "h1"), k(2, "A/b.cbz", "h2"), k(3, "A/c.cbz", "h3"), k(4, "A/gone.cbz", "h4")];
    const found = [
      f("A/a.cbz"),
      f("A/b.cbz", 101),
      f("A/c.cbz", 100, 2000),
      f("A/new.cbz"),
      f("A/new.cbz"),
      f("A/given.cbz", 1, 1, "hx"),
    ];
    expect(needsHash(known, found)).toEqual(["A/b.cbz", "A/c.cbz", "A/new.cbz"]);
  });

  it("compares BigInt rows with number stats by value", () => {
    const known: KnownFile[] = [{ id: 1, path: "A/a.cbz", size: 100n, mtimeMs: 1000n, sha256: "h1" }];
    expect(needsHash(known, [f("A/a.cbz")])).toEqual([]);
    expect(diffScan(known, [f("A/a.cbz")]).unchanged).toEqual([{ id: 1, path: "A/a.cbz" }]);
  });
});

describe("diffScan", () => {
  it("sorts a rescan into unchanged, changed, moved, added and removed", () => {
    const known = [
      k(1, "A/v01.cbz", "h1"),
      k(2, "A/v02.cbz", "h2"),
      k(3, "A/v03.cbz", "h3"),
      k(4, "A/old name.cbz", "h4", 400),
      k(5, "A/deleted.cbz", "h5"),
    ];
    const found = [
      f("A/v01.cbz"),
      f("A/v02.cbz", 120, 1500),
      f("A/v03.cbz", 100, 9000),
      f("B/new name.cbz", 400, 7777),
      f("A/v04.cbz", 50),
    ];
    const disk = { "A/v02.cbz": "h2b", "A/v03.cbz": "h3", "B/new name.cbz": "h4", "A/v04.cbz": "h6" };
    const { asked, diff } = scan(known, found, disk);
    expect(asked).toEqual(["A/v02.cbz", "A/v03.cbz", "B/new name.cbz", "A/v04.cbz"]);
    expect(diff).toEqual({
      unchanged: [{ id: 1, path: "A/v01.cbz" }],
      changed: [
        { id: 2, path: "A/v02.cbz", size: 120, mtimeMs: 1500, sha256: "h2b", contentChanged: true },
        { id: 3, path: "A/v03.cbz", size: 100, mtimeMs: 9000, sha256: "h3", contentChanged: false },
      ],
      moved: [{ id: 4, from: "A/old name.cbz", to: "B/new name.cbz", size: 400, mtimeMs: 7777, sha256: "h4" }],
      added: [{ path: "A/v04.cbz", size: 50, mtimeMs: 1000, sha256: "h6" }],
      removed: [5],
    });
  });

  it("never hashes an untouched file: unchanged without a sha256", () => {
    const diff = diffScan([k(1, "A/a.cbz", "h1")], [f("A/a.cbz")]);
    expect(diff.unchanged).toEqual([{ id: 1, path: "A/a.cbz" }]);
  });

  it("pairs moves one-to-one in path order", () => {
    const known = [k(1, "A/copy2.cbz", "same"), k(2, "A/copy1.cbz", "same"), k(3, "A/third.cbz", "same")];
    const found = [f("B/z.cbz"), f("B/a.cbz")];
    const { diff } = scan(known, found, { "B/z.cbz": "same", "B/a.cbz": "same" });
    expect(diff.moved.map((m) => [m.id, m.from, m.to])).toEqual([
      [2, "A/copy1.cbz", "B/a.cbz"],
      [1, "A/copy2.cbz", "B/z.cbz"],
    ]);
    expect(diff.removed).toEqual([3]);
    expect(diff.added).toEqual([]);
  });

  it("needs the same size as well as the same hash for a move", () => {
    const { diff } = scan([k(1, "A/a.cbz", "h", 100)], [f("A/b.cbz", 200)], { "A/b.cbz": "h" });
    expect(diff.moved).toEqual([]);
    expect(diff.removed).toEqual([1]);
    expect(diff.added.map((a) => a.path)).toEqual(["A/b.cbz"]);
  });

  it("treats a copy (the original still there) as added, not moved", () => {
    const { diff } = scan([k(1, "A/a.cbz", "h")], [f("A/a.cbz"), f("A/a (1).cbz")], { "A/a (1).cbz": "h" });
    expect(diff.moved).toEqual([]);
    expect(diff.added.map((a) => a.path)).toEqual(["A/a (1).cbz"]);
    expect(diff.unchanged.map((u) => u.id)).toEqual([1]);
  });

  it("moves only to new paths: content landing on a known path changes that path", () => {
    const known = [k(1, "A/a.cbz", "ha"), k(2, "A/b.cbz", "hb")];
    const { diff } = scan(known, [f("A/b.cbz", 100, 5000)], { "A/b.cbz": "ha" });
    expect(diff.changed).toEqual([
      { id: 2, path: "A/b.cbz", size: 100, mtimeMs: 5000, sha256: "ha", contentChanged: true },
    ]);
    expect(diff.removed).toEqual([1]);
    expect(diff.moved).toEqual([]);
  });

  it("throws when a path needsHash asked for has no sha256", () => {
    expect(() => diffScan([], [f("A/new.cbz")])).toThrow(/sha256/);
    expect(() => diffScan([k(1, "A/a.cbz", "h")], [f("A/a.cbz", 5)])).toThrow(/sha256/);
  });

  it("reports a second database row for one path as removed, and ignores repeated walk entries", () => {
    const diff = diffScan([k(1, "A/a.cbz", "h"), k(2, "A/a.cbz", "h")], [f("A/a.cbz"), f("A/a.cbz")]);
    expect(diff.unchanged).toEqual([{ id: 1, path: "A/a.cbz" }]);
    expect(diff.removed).toEqual([2]);
  });

  it("accounts for every known id and every found path exactly once (property)", () => {
    const path = fc.constantFrom("A/1.cbz", "A/2.cbz", "A/3.cbz", "B/1.cbz", "B/2.cbz", "C/x.cbz");
    const content = fc.record({
      size: fc.constantFrom(1, 2),
      mtimeMs: fc.constantFrom(10, 20),
      sha256: fc.constantFrom("h1", "h2", "h3"),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(path, content), { selector: (t) => t[0], maxLength: 6 }),
        fc.uniqueArray(fc.tuple(path, content), { selector: (t) => t[0], maxLength: 6 }),
        (knownRows, foundRows) => {
          const known = knownRows.map(([p, c], i) => ({ id: i + 1, path: p, ...c }));
          const disk = Object.fromEntries(foundRows.map(([p, c]) => [p, c.sha256]));
          const found = foundRows.map(([p, c]) => ({ path: p, size: c.size, mtimeMs: c.mtimeMs }));
          const { diff } = scan(known, found, disk);
          const ids = [
            ...diff.unchanged.map((u) => u.id),
            ...diff.changed.map((c) => c.id),
            ...diff.moved.map((m) => m.id),
            ...diff.removed,
          ];
          expect(ids.sort((a, b) => a - b)).toEqual(known.map((x) => x.id));
          const paths = [
            ...diff.unchanged.map((u) => u.path),
            ...diff.changed.map((c) => c.path),
            ...diff.moved.map((m) => m.to),
            ...diff.added.map((a) => a.path),
          ];
          expect(paths.sort()).toEqual(found.map((x) => x.path).sort());
          for (const m of diff.moved) {
            const from = known.find((x) => x.id === m.id);
            expect(from && from.sha256 === m.sha256 && from.size === m.size && !disk[from.path]).toBe(true);
          }
          // Deterministic whatever the input order.
          expect(scan([...known].reverse(), [...found].reverse(), disk).diff).toEqual(diff);
        },
      ),
    );
  });
});

describe("seriesFolderOf", () => {
  it.each([
    ["One Piece/v01.cbz", "One Piece"],
    ["One Piece/Extras/omake.cbz", "One Piece"],
    ["./One Piece/v01.cbz", "One Piece"],
    ["/One Piece/v01.cbz", "One Piece"],
    ["One Piece\\v01.cbz", "One Piece"],
    ["loose.cbz", null],
    ["", null],
    ["../escape/v01.cbz", null],
  ])("%j → %j", (p, expected) => {
    expect(seriesFolderOf(p)).toBe(expected);
  });
});

describe("naturalCompare", () => {
  it("orders page names naturally and case-insensitively", () => {
    const pages = [
      "page10.jpg",
      "Page2.jpg",
      "page1.jpg",
      "page02.jpg",
      "page100.jpg",
      "cover.jpg",
      "page2.jpg",
      "p99999999999999999999.jpg",
    ];
    expect([...pages].sort(naturalCompare)).toEqual([
      "cover.jpg",
      "p99999999999999999999.jpg",
      "page1.jpg",
      "Page2.jpg",
      "page2.jpg",
      "page02.jpg",
      "page10.jpg",
      "page100.jpg",
    ]);
    expect(naturalCompare("page2", "page10")).toBeLessThan(0);
    expect(naturalCompare("a", "a")).toBe(0);
  });

  it("is a total order: antisymmetric, transitive, zero only for equal strings (property)", () => {
    const name = fc.stringMatching(/^[aAbB0-9._ -]{0,8}$/);
    fc.assert(
      fc.property(name, name, name, (a, b, c) => {
        expect(Math.sign(naturalCompare(a, b)) + Math.sign(naturalCompare(b, a))).toBe(0);
        expect(naturalCompare(a, b) === 0).toBe(a === b);
        if (naturalCompare(a, b) <= 0 && naturalCompare(b, c) <= 0) expect(naturalCompare(a, c)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });

  it("sorts the same whatever the input order (stable result)", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[pP]?0{0,2}[0-9]{1,2}$/), { maxLength: 12 }), (xs) => {
        expect([...xs].sort(naturalCompare)).toEqual([...xs].reverse().sort(naturalCompare));
      }),
    );
  });
});
