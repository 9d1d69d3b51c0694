/** Recovery of degraded library files by the Wanted planner. */
import { describe, expect, it } from "vitest";
import { planWanted } from "./wanted.ts";
import { ch, input, offer, reasons } from "./wanted-test-helpers.ts";

describe("recovery of degraded library files", () => {
  const file = (over: Partial<{ mappingId: number | null; replacing: boolean }> = {}) => ({
    fileId: 40,
    slot: ch("5", { owned: true }),
    mappingId: 1,
    replacing: false,
    ...over,
  });

  it("queues a replacement from another source, never from the one that delivered the file", () => {
    const out = planWanted(
      input({ offers: [offer("5", { mappingId: 1 }), offer("5", { mappingId: 2 })], degradedFiles: [file()] }),
    );
    expect(out.downloads).toEqual([expect.objectContaining({ mappingId: 2, replacesFileId: 40 })]);
    expect(out.ledger).toEqual([
      expect.objectContaining({
        kind: "chapter",
        number: "5",
        reason: "replacing",
        detail: expect.objectContaining({ replacesFileId: 40 }),
      }),
    ]);
  });

  it("with no other source the file stays and the ledger says so; a live replacement is not queued twice", () => {
    const only = planWanted(input({ offers: [offer("5", { mappingId: 1 })], degradedFiles: [file()] }));
    expect(only.downloads).toEqual([]);
    expect(only.ledger[0]!.reason).toBe("no_other_source");
    const live = planWanted(
      input({ offers: [offer("5", { mappingId: 2 })], degradedFiles: [file({ replacing: true })] }),
    );
    expect(live.downloads).toEqual([]);
    expect(live.ledger[0]!.reason).toBe("replacing");
  });

  it("counts against the pass limit", () => {
    const out = planWanted(
      input({
        slots: [ch("1")],
        offers: [offer("1"), offer("5", { mappingId: 2 })],
        degradedFiles: [file()],
        maxDownloads: 1,
      }),
    );
    expect(reasons(out)).toEqual(["chapter 1: queued", "chapter 5: limit_reached"]);
  });
});
