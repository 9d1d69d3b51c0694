import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  replacementGroupComplete,
  resumableReplacement,
  type GroupDownload,
  type GroupMember,
} from "./replacement-groups.ts";

const m = (id: number, part: number | null, state: string): GroupMember => ({ id, part, state });

describe("a replacement group is complete", () => {
  it.each<[string, GroupMember[], boolean]>([
    ["no downloads", [], false],
    ["every part published", [m(1, 1, "published"), m(2, 2, "published")], true],
    ["a part failed", [m(1, 1, "published"), m(2, 2, "failed")], false],
    ["a part under way", [m(1, 1, "published"), m(2, 2, "fetching")], false],
    [
      "a failed part fetched again and published",
      [m(1, 1, "published"), m(2, 2, "failed"), m(3, 2, "published")],
      true,
    ],
    ["a failed part fetched again, failing again", [m(1, 1, "published"), m(2, 2, "failed"), m(3, 2, "failed")], false],
    ["a part published, then fetched again and failing", [m(1, 1, "published"), m(2, 1, "failed")], false],
    ["a whole release replacing parts", [m(4, null, "published")], true],
  ])("%s → %s", (_name, members, expected) => {
    expect(replacementGroupComplete(members)).toBe(expected);
  });
});

describe("a replacement group's completion, whatever its history", () => {
  const members = fc
    .uniqueArray(
      fc.record({
        id: fc.integer({ min: 1, max: 1000 }),
        part: fc.integer({ min: 1, max: 3 }),
        state: fc.constantFrom("published", "failed", "queued", "degraded", "cancelled"),
      }),
      { minLength: 1, maxLength: 12, selector: (x) => x.id },
    )
    .map((xs) => xs as GroupMember[]);
  it("depends on no order; a later published download of every part completes it; a later other one does not", () => {
    fc.assert(
      fc.property(members, fc.constantFrom("failed", "queued", "degraded"), (ms, other) => {
        expect(replacementGroupComplete([...ms].reverse())).toBe(replacementGroupComplete(ms));
        const parts = [...new Set(ms.map((x) => x.part))];
        const after = parts.map((part, i) => m(2000 + i, part, "published"));
        expect(replacementGroupComplete([...ms, ...after])).toBe(true);
        expect(replacementGroupComplete([...ms, ...after, m(3000, parts[0]!, other)])).toBe(false);
      }),
    );
  });
});

describe("an unfinished replacement to resume", () => {
  const d = (id: number, part: number, state: string, over: Partial<GroupDownload> = {}): GroupDownload => ({
    id,
    part,
    state,
    kind: "chapter",
    chapter: "10",
    sourceMappingId: 2,
    scanlator: null,
    fileId: state === "published" ? 100 + id : null,
    replacementGroup: "chapter:10#5,6",
    replacesFileIds: "[5,6]",
    ...over,
  });
  const active = new Set([107, 108, 109]);

  it("a published part and a failed one: that source fills in the failed part into the same group", () => {
    expect(resumableReplacement("10", [d(7, 1, "published"), d(8, 2, "failed")], active)).toEqual({
      group: "chapter:10#5,6",
      replacesFileIds: [5, 6],
      mappingId: 2,
      scanlator: null,
      parts: [1],
    });
  });

  it.each<[string, GroupDownload[]]>([
    ["nothing published", [d(7, 1, "failed"), d(8, 2, "failed")]],
    ["a part still under way", [d(7, 1, "published"), d(8, 2, "queued")]],
    ["the group is complete", [d(7, 1, "published"), d(8, 2, "failed"), d(9, 2, "published")]],
    ["the published part's file is no longer active", [d(7, 1, "published", { fileId: 200 }), d(8, 2, "failed")]],
    ["another chapter", [d(7, 1, "published", { chapter: "11" }), d(8, 2, "failed", { chapter: "11" })]],
    ["no group", [d(7, 1, "published", { replacementGroup: null }), d(8, 2, "failed", { replacementGroup: null })]],
    ["two sources in one group", [d(7, 1, "published"), d(8, 2, "failed", { sourceMappingId: 3 })]],
  ])("none: %s", (_name, rows) => {
    expect(resumableReplacement("10", rows, active)).toBeNull();
  });

  it("the latest unfinished group; a part failed again after a later attempt is still missing", () => {
    const older = [
      d(1, 1, "published", { replacementGroup: "chapter:10#2,3" }),
      d(2, 2, "failed", { replacementGroup: "chapter:10#2,3" }),
    ];
    const rows = [...older, d(7, 1, "published"), d(8, 2, "failed"), d(9, 2, "failed")];
    expect(resumableReplacement("10", rows, new Set([101, 107]))?.group).toBe("chapter:10#5,6");
    expect(resumableReplacement("10", rows, new Set([101, 107]))?.parts).toEqual([1]);
  });
});
