import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bytesInWords,
  DISK_ERROR_BYTES,
  DISK_WARNING_BYTES,
  healthChecks,
  healthStatus,
  type HealthFacts,
} from "./health.ts";

const GIB = 1024 ** 3;
const fine: HealthFacts = {
  library: { path: "/srv/manga", state: "ok", freeBytes: 50 * GIB },
  unscannedFolders: 0,
  suwayomi: { state: "ok" },
  failingSources: [],
};
const failing = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ seriesTitle: `Series ${i + 1}`, source: `Source ${i + 1} (en)` }));
const withLibrary = (l: Partial<HealthFacts["library"]>): HealthFacts => ({
  ...fine,
  library: { ...fine.library, ...l },
});

describe("healthChecks", () => {
  it.each([
    ["everything fine", fine, []],
    ["Suwayomi not in use", { ...fine, suwayomi: { state: "off" } }, []],
    ["free space unknown", withLibrary({ freeBytes: null }), []],
    ["exactly the warning limit free", withLibrary({ freeBytes: DISK_WARNING_BYTES }), []],
    ["the library folder is missing", withLibrary({ state: "missing" }), [["library_root_missing", "error"]]],
    // A missing folder has no free space nor folders of its own to speak of.
    [
      "missing, with space and folders facts left over",
      { ...withLibrary({ state: "missing", freeBytes: 0 }), unscannedFolders: 3 },
      [["library_root_missing", "error"]],
    ],
    ["not writable", withLibrary({ state: "not_writable" }), [["library_root_not_writable", "error"]]],
    ["an empty mount point", withLibrary({ state: "empty" }), [["library_root_empty", "error"]]],
    [
      "an empty mount point with little space",
      withLibrary({ state: "empty", freeBytes: DISK_ERROR_BYTES - 1 }),
      [
        ["library_root_empty", "error"],
        ["disk_space_low", "error"],
      ],
    ],
    [
      "a byte under the warning limit",
      withLibrary({ freeBytes: DISK_WARNING_BYTES - 1 }),
      [["disk_space_low", "warning"]],
    ],
    ["exactly the error limit", withLibrary({ freeBytes: DISK_ERROR_BYTES }), [["disk_space_low", "warning"]]],
    ["a byte under the error limit", withLibrary({ freeBytes: DISK_ERROR_BYTES - 1 }), [["disk_space_low", "error"]]],
    ["two folders not scanned", { ...fine, unscannedFolders: 2 }, [["library_not_scanned", "warning"]]],
    ["a failing source", { ...fine, failingSources: failing(1) }, [["sources_failing", "warning"]]],
    // The sources are not the library folder's: still reported when it is missing.
    [
      "a failing source while the library folder is missing",
      { ...withLibrary({ state: "missing" }), failingSources: failing(2) },
      [
        ["library_root_missing", "error"],
        ["sources_failing", "warning"],
      ],
    ],
    [
      "Suwayomi did not answer",
      { ...fine, suwayomi: { state: "unreachable", url: "http://nas:4567", error: "connection refused" } },
      [["suwayomi_unreachable", "error"]],
    ],
    [
      "several at once, in a stable order",
      {
        library: { path: "/srv/manga", state: "not_writable", freeBytes: 10 },
        unscannedFolders: 1,
        suwayomi: { state: "unreachable", url: "http://nas:4567", error: "HTTP 502" },
        failingSources: failing(1),
      },
      [
        ["library_root_not_writable", "error"],
        ["disk_space_low", "error"],
        ["library_not_scanned", "warning"],
        ["suwayomi_unreachable", "error"],
        ["sources_failing", "warning"],
      ],
    ],
  ] as const)("%s", (_, facts, expected) => {
    expect(healthChecks(facts as HealthFacts).map((c) => [c.code, c.level])).toEqual(expected);
  });

  it("says what it saw and what to do", () => {
    const [suwayomi] = healthChecks({
      ...fine,
      suwayomi: { state: "unreachable", url: "http://nas:4567", error: "HTTP 502 from Suwayomi" },
    });
    expect(suwayomi?.message).toContain("http://nas:4567");
    expect(suwayomi?.message).toContain("HTTP 502 from Suwayomi");
    expect(healthChecks({ ...fine, unscannedFolders: 1 })[0]?.message).toBe(
      '1 series folder has not been scanned yet: press "Scan library" on the Library page to record it.',
    );
    expect(healthChecks({ ...fine, unscannedFolders: 4 })[0]?.message).toMatch(/^4 series folders have not/);
    expect(healthChecks(withLibrary({ freeBytes: 300 * 1024 ** 2 }))[0]?.message).toMatch(/^Only 300 MB free/);
    expect(healthChecks(withLibrary({ state: "missing" }))[0]?.message).toContain("/srv/manga");
    expect(healthChecks(withLibrary({ state: "empty" }))[0]?.message).toMatch(
      /^The library folder \/srv\/manga holds no series folder while the library records files in it: is its disk mounted\? /,
    );
    expect(healthChecks({ ...fine, failingSources: failing(1) })[0]?.message).toMatch(
      /^A linked source fails most of its downloads: Source 1 \(en\) for Series 1\. /,
    );
    expect(healthChecks({ ...fine, failingSources: failing(3) })[0]?.message).toMatch(
      /^3 linked sources fail most of their downloads: Source 1 \(en\) for Series 1, Source 2 \(en\) for Series 2, Source 3 \(en\) for Series 3\. /,
    );
    expect(healthChecks({ ...fine, failingSources: failing(5) })[0]?.message).toContain(
      "Source 3 (en) for Series 3 and 2 more.",
    );
  });

  it("is ok exactly when no check is raised; otherwise the worst level; codes never repeat", () => {
    const facts = fc.record({
      library: fc.record({
        path: fc.constant("/srv/manga"),
        state: fc.constantFrom("ok" as const, "missing" as const, "empty" as const, "not_writable" as const),
        freeBytes: fc.option(fc.integer({ min: 0, max: 4 * GIB })),
      }),
      unscannedFolders: fc.nat(5),
      suwayomi: fc.oneof(
        fc.constant({ state: "off" as const }),
        fc.constant({ state: "ok" as const }),
        fc.constant({ state: "unreachable" as const, url: "http://nas:4567", error: "refused" }),
      ),
      failingSources: fc.nat(4).map(failing),
    });
    fc.assert(
      fc.property(facts, (f) => {
        const checks = healthChecks(f);
        const status = healthStatus(checks);
        expect(new Set(checks.map((c) => c.code)).size).toBe(checks.length);
        expect(status === "ok").toBe(checks.length === 0);
        expect(status === "error").toBe(checks.some((c) => c.level === "error"));
        // A library folder that is there, writable, roomy and scanned, a Suwayomi that answers or is
        // off, and no failing source: ok.
        const healthy =
          f.library.state === "ok" &&
          (f.library.freeBytes === null || f.library.freeBytes >= DISK_WARNING_BYTES) &&
          f.unscannedFolders === 0 &&
          f.suwayomi.state !== "unreachable" &&
          f.failingSources.length === 0;
        expect(status === "ok").toBe(healthy);
      }),
    );
  });
});

describe("bytesInWords", () => {
  it.each([
    [0, "0 MB"],
    [300 * 1024 ** 2, "300 MB"],
    [1024 ** 3 - 1, "1023 MB"],
    [1024 ** 3, "1.0 GB"],
    [1.45 * 1024 ** 3, "1.4 GB"],
  ])("%i bytes: %s", (n, words) => {
    expect(bytesInWords(n)).toBe(words);
  });
});
