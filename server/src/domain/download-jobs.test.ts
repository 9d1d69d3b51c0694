import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FINAL_JOB_STATES,
  isBlockable,
  JOB_STATES,
  ledgerDownloads,
  LIVE_JOB_STATES,
  retryDelay,
  transition,
  type JobEvent,
  type JobState,
} from "./download-jobs.ts";

const EVENTS: JobEvent[] = [
  { type: "start" },
  { type: "fetched" },
  { type: "passed" },
  { type: "degraded" },
  { type: "published", fileId: 9 },
  { type: "transient", attempts: 1, error: "503" },
  { type: "transient", attempts: 4, error: "503" },
  { type: "permanent", error: "404" },
  { type: "due" },
  { type: "cancel" },
  { type: "interrupted" },
  { type: "interrupted", publishedFileId: 9 },
];
const label = (e: JobEvent) =>
  e.type === "transient"
    ? `transient#${e.attempts}`
    : e.type === "interrupted" && e.publishedFileId
      ? "interrupted+file"
      : e.type;

/** Every (state, event) pair: the next state, or "-" when the event is refused. */
const TABLE: Record<JobState, Record<string, string>> = {
  queued: { start: "fetching", cancel: "cancelled" },
  waiting: { due: "queued", cancel: "cancelled" },
  fetching: {
    fetched: "judging",
    "transient#1": "waiting",
    "transient#4": "failed",
    permanent: "failed",
    cancel: "cancelled",
    interrupted: "queued",
    "interrupted+file": "queued",
  },
  judging: {
    passed: "publishing",
    degraded: "degraded",
    permanent: "failed",
    cancel: "cancelled",
    interrupted: "queued",
    "interrupted+file": "queued",
  },
  publishing: { published: "published", permanent: "failed", interrupted: "queued", "interrupted+file": "published" },
  degraded: {},
  published: {},
  failed: {},
  cancelled: {},
};

describe("transition table", () => {
  for (const state of JOB_STATES) {
    for (const event of EVENTS) {
      const expected = TABLE[state][label(event)] ?? "-";
      it(`${state} + ${label(event)} → ${expected}`, () => {
        expect(transition(state, event)?.next ?? "-").toBe(expected);
      });
    }
  }

  it("final states accept nothing", () => {
    for (const s of FINAL_JOB_STATES) for (const e of EVENTS) expect(transition(s, e)).toBeNull();
  });

  it("effects: degraded blocks and queues a replacement; retries schedule; cancel and restarts clean staging", () => {
    expect(transition("judging", { type: "degraded" })?.effects.map((e) => e.type)).toEqual([
      "remove_staging",
      "block_release",
      "queue_replacement",
    ]);
    expect(transition("fetching", { type: "transient", attempts: 2, error: "x" })?.effects).toContainEqual({
      type: "schedule_retry",
      delayMs: 60_000,
    });
    expect(transition("fetching", { type: "transient", attempts: 4, error: "x" })?.effects).toEqual([
      { type: "record_error", error: "x" },
      { type: "remove_staging" },
    ]);
    expect(transition("fetching", { type: "cancel" })?.effects).toEqual([{ type: "remove_staging" }]);
    expect(transition("publishing", { type: "interrupted", publishedFileId: 3 })?.effects).toContainEqual({
      type: "record_file",
      fileId: 3,
    });
    expect(transition("publishing", { type: "published", fileId: 4 })?.effects).toContainEqual({
      type: "record_file",
      fileId: 4,
    });
  });
});

describe("retry back-off", () => {
  it("30 s × 2^n capped at 600 s; three retries, then failed", () => {
    expect([0, 1, 2, 3, 4, 5, 30].map((n) => retryDelay(n))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000,
    ]);
    const waits = [1, 2, 3].map((a) => transition("fetching", { type: "transient", attempts: a, error: "e" })!);
    expect(waits.map((w) => w.next)).toEqual(["waiting", "waiting", "waiting"]);
    expect(waits.map((w) => w.effects.find((e) => e.type === "schedule_retry"))).toEqual(
      [30_000, 60_000, 120_000].map((delayMs) => ({ type: "schedule_retry", delayMs })),
    );
    expect(transition("fetching", { type: "transient", attempts: 4, error: "e" })?.next).toBe("failed");
  });

  it("property: any event sequence ends in a known state and a final state is never left", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 30 }), (events) => {
        let state: JobState = "queued";
        for (const e of events) {
          const t = transition(state, e);
          if (FINAL_JOB_STATES.includes(state)) expect(t).toBeNull();
          if (t) state = t.next;
          expect(JOB_STATES).toContain(state);
        }
      }),
    );
  });
});

describe("which release the operator may block by itself", () => {
  it.each<[JobState, boolean]>([
    ["failed", true],
    ["cancelled", true],
    // In the library (the audit retires files and rejects sources); blocked already by its verdict.
    ["published", false],
    ["degraded", false],
    // Live: blocked with its cancel instead.
    ...LIVE_JOB_STATES.map((s): [JobState, boolean] => [s, false]),
  ])("%s → %s", (state, expected) => {
    expect(isBlockable(state, true, false)).toBe(expected);
    // Never without a release of a linked source, never twice.
    expect(isBlockable(state, false, false)).toBe(false);
    expect(isBlockable(state, true, true)).toBe(false);
  });
});

describe("what became of a ledger entry's downloads", () => {
  it.each<[JobState[], string | null]>([
    [[], null],
    [["queued"], "under_way"],
    [["waiting"], "under_way"],
    [["publishing"], "under_way"],
    [["published"], "published"],
    [["failed"], "failed"],
    [["cancelled"], "failed"],
    [["degraded"], "failed"],
    // A split chapter: published only once every part is, under way while any part is.
    [["published", "fetching"], "under_way"],
    [["published", "published"], "published"],
    [["published", "failed"], "failed"],
    [["failed", "queued"], "under_way"],
  ])("%j → %s", (states, expected) => {
    expect(ledgerDownloads(states)).toBe(expected);
  });

  it("is published exactly when every download is, and under way exactly when one is live", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...JOB_STATES), { minLength: 1, maxLength: 6 }), (states) => {
        const r = ledgerDownloads(states);
        expect(r === "under_way").toBe(states.some((s) => LIVE_JOB_STATES.includes(s)));
        expect(r === "published").toBe(states.every((s) => s === "published"));
      }),
    );
  });
});
