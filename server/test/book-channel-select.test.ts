/** The pure parts of the book channel: which releases qualify, which torrent comes next, the mount mapping. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  booksOfTitle,
  candidates,
  covered,
  pickNext,
  type Release,
} from "../src/services/acquisition/book-channel-select.ts";
import { mapClientPath } from "../src/services/acquisition/book-channel-import.ts";
import { AppError } from "../src/errors.ts";

describe("booksOfTitle", () => {
  it.each([
    ["Blue Harbor v03", ["3"]],
    ["Blue Harbor v01-05 (2021) (Digital) (1r0n)", ["1", "2", "3", "4", "5"]],
    ["Blue Harbor Vol. 3 [Group]", ["3"]],
    ["Blue Harbor Volume 01-03", ["1", "2", "3"]],
    ["blue harbor! v02", ["2"]],
    ["Blue Harbor c012", null],
    ["Blue Harbor v03 c012", null],
    ["Blue Harbor Side Story v01", null],
    ["Blue Harbor 2 v01", null],
    ["Blue Harbor", null],
    ["Blue Harbor Complete", null],
    ["Other Series v01", null],
    ["Blue Harbor v01-999", null],
  ])("%s → %j", (title, expected) => {
    expect(booksOfTitle("Blue Harbor", title)).toEqual(expected);
  });

  it("drops releases nobody seeds", () => {
    expect(candidates("Blue Harbor", [{ title: "Blue Harbor v01", size: 1, seeders: 0 }])).toEqual([]);
    expect(candidates("Blue Harbor", [{ title: "Blue Harbor v01", size: 1, seeders: null }])).toHaveLength(1);
  });
});

describe("pickNext", () => {
  const rel = (title: string, size: number, seeders = 5): Release => ({ title, size, seeders });

  it("prefers the smallest torrent holding a wanted book, then the one holding more, then the better seeded", () => {
    const pool = candidates("S", [
      rel("S v01-05", 500),
      rel("S v02", 100),
      rel("S v03", 100),
      rel("S v02-03", 100, 1),
      rel("S v02-03", 100, 9),
    ]);
    expect(pickNext(pool, ["2", "3"])?.release).toEqual(rel("S v02-03", 100, 9));
    expect(pickNext(pool, ["5"])?.release.title).toBe("S v01-05");
    expect(pickNext(pool, ["7"])).toBeNull();
  });

  it("always picks a release holding a wanted book, and none smaller holds one (property)", () => {
    const arb = fc.record({
      releases: fc.array(
        fc.record({
          from: fc.integer({ min: 1, max: 12 }),
          span: fc.integer({ min: 0, max: 5 }),
          size: fc.integer({ min: 1, max: 50 }),
          seeders: fc.integer({ min: 1, max: 9 }),
        }),
        { maxLength: 12 },
      ),
      wanted: fc.uniqueArray(fc.integer({ min: 1, max: 15 }), { minLength: 1, maxLength: 6 }),
    });
    fc.assert(
      fc.property(arb, ({ releases, wanted }) => {
        const pool = candidates(
          "S",
          releases.map((r) =>
            rel(r.span === 0 ? `S v${r.from}` : `S v${r.from}-${r.from + r.span}`, r.size, r.seeders),
          ),
        );
        const w = wanted.map(String);
        const pick = pickNext(pool, w);
        const holding = pool.filter((c) => covered(c, w).length > 0);
        if (holding.length === 0) return pick === null;
        return (
          pick !== null && covered(pick, w).length > 0 && holding.every((c) => c.release.size >= pick.release.size)
        );
      }),
    );
  });
});

describe("mapClientPath", () => {
  const mount = { clientPath: "/downloads", localPath: "/srv/torrents" };
  it("maps a path under the client's folder", () => {
    expect(mapClientPath("/downloads/manga/X v01", mount)).toBe("/srv/torrents/manga/X v01");
    expect(mapClientPath("/downloads", mount)).toBe("/srv/torrents");
    expect(mapClientPath("/downloads//manga/./X", mount)).toBe("/srv/torrents/manga/X");
  });
  it.each(["/downloads/../etc", "/downloads/manga/../../etc", "/downloadsX/y", "/etc/passwd", "manga/X", "/"])(
    "refuses %s",
    (p) => {
      expect(() => mapClientPath(p, mount)).toThrow(AppError);
      try {
        mapClientPath(p, mount);
      } catch (e) {
        expect((e as AppError).code).toBe("torrent_path_outside_mount");
      }
    },
  );
});
