import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jobFacts, movedJob } from "./test-fixtures.ts";
import {
  ACTIVE_STATES,
  ENGINE_STEPS,
  MAX_PROVIDER_FAILURES,
  OUTSTANDING_STATES,
  WORKING_STATES,
  MAX_TRANSIENT_FAILURES,
  RETRY_CAP_MS,
  TERMINAL_STATES,
  TRANSLATION_STATES,
  formatJobId,
  jobKey,
  parseJobId,
  retryDelayMs,
  transition,
  type JobFacts,
  type Moved,
  type TranslationEvent,
} from "./translation-jobs.ts";
import { sha256Hex } from "./translation-sha256.ts";

const job = jobFacts;
const moved = movedJob;
const refused = (r: ReturnType<typeof transition>): string | null => ("refused" in r ? r.refused : null);
const types = (m: Moved) => m.effects.map((e) => e.type);

describe("Translation job moves (one test per move)", () => {
  it.each(ACTIVE_STATES)(
    "any active (%s) + temporary connection failure → same job, retried automatically with the same processor id",
    (state) => {
      const m = moved(transition(job(state, { attempt: 2 }), { type: "connection_failed", failures: 1 }));
      expect(m.next).toEqual(job(state, { attempt: 2 }));
      expect(m.effects).toEqual([{ type: "retry_later", delayMs: 5_000 }]);
      expect(types(m)).not.toContain("new_attempt");
    },
  );

  it("failed + explicit retry → new attempt, retry number incremented; the old attempt's late results are ignored", () => {
    const m = moved(transition(job("failed", { attempt: 3 }), { type: "retry" }));
    expect(m.next).toEqual(job("queued", { attempt: 4 }));
    expect(m.effects).toEqual([{ type: "new_attempt", attempt: 4 }]);
    expect(m.error).toBeNull();
    expect(refused(transition(m.next, { type: "result_fetched", attempt: 3 }))).toBe("translation_stale_attempt");
    expect(refused(transition(m.next, { type: "processor_status", status: "completed", attempt: 3 }))).toBe(
      "translation_stale_attempt",
    );
  });

  it.each(ACTIVE_STATES.filter((s) => s !== "queued"))(
    "active (%s) + cancel → cancelling, then cancelled; durable DELETE sent, publication prevented",
    (state) => {
      const m = moved(transition(job(state), { type: "cancel" }));
      expect(m.next).toEqual(job("cancelling", { cancelPending: true }));
      expect(types(m)).toEqual(["stop_polling", "send_delete"]);
      // Publication is prevented: a result arriving now is refused, never published.
      expect(refused(transition(m.next, { type: "result_fetched" }))).toBe("translation_cancelled");
      // The DELETE is retried after connection failures, never giving up.
      const again = moved(transition(m.next, { type: "connection_failed", failures: 50 }));
      expect(again.next.state).toBe("cancelling");
      expect(again.next.cancelPending).toBe(true);
      expect(again.effects).toEqual([{ type: "retry_later", delayMs: RETRY_CAP_MS }]);
      const done = moved(transition(m.next, { type: "cancel_acknowledged" }));
      expect(done.next).toEqual(job("cancelled"));
      expect(types(done)).toContain("remove_output");
    },
  );

  it("active (queued, never sent) + cancel → cancelled at once: no processor knows the id", () => {
    const m = moved(transition(job("queued"), { type: "cancel" }));
    expect(m.next).toEqual(job("cancelled"));
    expect(types(m)).not.toContain("send_delete");
  });

  it("cancelled + submit again with the same id → refused; a retry uses the next number", () => {
    expect(refused(transition(job("cancelled", { attempt: 1 }), { type: "submit_again" }))).toBe(
      "translation_cancelled",
    );
    expect(refused(transition(job("cancelling", { cancelPending: true }), { type: "submit_again" }))).toBe(
      "translation_cancelled",
    );
    expect(moved(transition(job("cancelled", { attempt: 1 }), { type: "retry" })).next.attempt).toBe(2);
  });

  it.each(ACTIVE_STATES)(
    "active (%s) + destination language changes, job has the old language → cancelled (imported files remain)",
    (state) => {
      const m = moved(
        transition(job(state, { targetLanguage: "en" }), { type: "destination_changed", newLanguage: "de" }),
      );
      expect(m.next.state).toBe(state === "queued" ? "cancelled" : "cancelling");
      expect(types(m)).not.toContain("publish");
      expect(
        refused(
          transition(job(state, { targetLanguage: "en" }), { type: "destination_changed", newLanguage: "en-GB" }),
        ),
      ).toBe("translation_not_affected");
      expect(refused(transition(job("imported"), { type: "destination_changed", newLanguage: "de" }))).toBe(
        "translation_not_affected",
      );
    },
  );

  it.each(ACTIVE_STATES)(
    "active (%s) + either toggle switched off → paused; submissions, polling and publication stop",
    (state) => {
      const m = moved(transition(job(state), { type: "toggle_off" }));
      expect(m.next).toEqual(job("paused", { pausedFrom: state, pausedReason: "toggle_off" }));
      expect(m.effects).toEqual([{ type: "stop_polling" }]);
      expect(refused(transition(m.next, { type: "result_fetched" }))).not.toBeNull();
      expect(refused(transition(m.next, { type: "upload_started" }))).not.toBeNull();
    },
  );

  it.each(ACTIVE_STATES)("active (%s) + native release appears → paused; the native release has priority", (state) => {
    const m = moved(transition(job(state), { type: "native_release" }));
    expect(m.next).toEqual(job("paused", { pausedFrom: state, pausedReason: "native_release" }));
    expect(refused(transition(m.next, { type: "toggle_on" }))).toBe("translation_not_affected");
  });

  it("completed + successful import → imported; checkpoints and sources removed", () => {
    const importing = moved(transition(job("completed"), { type: "result_fetched" }));
    expect(importing.next.state).toBe("importing");
    expect(types(importing)).toContain("publish");
    const m = moved(transition(importing.next, { type: "import_succeeded", fileId: 12 }));
    expect(m.next).toEqual(job("imported"));
    expect(types(m)).toContain("remove_sources");
  });
});

describe("the moves between queued, running and completed", () => {
  it("queued → uploading → submitted → running → completed (progress recorded)", () => {
    let j = moved(transition(job("queued"), { type: "upload_started" })).next;
    expect(j.state).toBe("uploading");
    j = moved(transition(j, { type: "uploaded", sha256: "ab" })).next;
    j = moved(transition(j, { type: "submitted" })).next;
    expect(j.state).toBe("submitted");
    const run = moved(transition(j, { type: "processor_status", status: "running", pagesDone: 2, pagesTotal: 9 }));
    expect(run.next.state).toBe("running");
    expect(run.progress).toEqual({ pagesDone: 2, pagesTotal: 9 });
    // A late "queued" answer does not move a running job back.
    expect(moved(transition(run.next, { type: "processor_status", status: "queued" })).next.state).toBe("running");
    const done = moved(
      transition(run.next, { type: "processor_status", status: "completed", pagesDone: 9, pagesTotal: 9 }),
    );
    expect(done.next.state).toBe("completed");
    expect(moved(transition(done.next, { type: "processor_status", status: "running" })).next.state).toBe("completed");
  });

  it("local engine: queued → submitted directly", () => {
    expect(moved(transition(job("queued"), { type: "submitted" })).next.state).toBe("submitted");
  });

  it("processor reports failed → failed with its error; an explicit retry is needed", () => {
    const m = moved(
      transition(job("running"), {
        type: "processor_status",
        status: "failed",
        error: { code: "no_text_found", message: "x" },
      }),
    );
    expect(m.next.state).toBe("failed");
    expect(m.error).toEqual({ code: "no_text_found", message: "x" });
    expect(refused(transition(m.next, { type: "processor_status", status: "running" }))).toBe(
      "translation_invalid_move",
    );
  });

  it("import failure → failed, output kept outside the library (not removed, not published)", () => {
    const m = moved(
      transition(job("importing"), {
        type: "import_failed",
        code: "receipt_unconfirmed_regions",
        message: "2 regions",
      }),
    );
    expect(m.next.state).toBe("failed");
    expect(m.effects).toEqual([]);
    expect(m.error?.code).toBe("receipt_unconfirmed_regions");
  });

  it(`the ${MAX_TRANSIENT_FAILURES}th consecutive connection failure fails the attempt with processor_unreachable`, () => {
    expect(
      moved(transition(job("running"), { type: "connection_failed", failures: MAX_TRANSIENT_FAILURES - 1 })).next.state,
    ).toBe("running");
    const m = moved(transition(job("running"), { type: "connection_failed", failures: MAX_TRANSIENT_FAILURES }));
    expect(m.next.state).toBe("failed");
    expect(m.error?.code).toBe("processor_unreachable");
  });

  it("names the states a worker follows, the steps an engine holds and what counts against the processor's two", () => {
    expect(WORKING_STATES).toEqual([
      "queued",
      "uploading",
      "submitted",
      "running",
      "completed",
      "importing",
      "cancelling",
      "paused",
    ]);
    expect(ENGINE_STEPS).toEqual(["uploading", "submitted", "running", "completed", "importing"]);
    expect(OUTSTANDING_STATES).toEqual(["uploading", "submitted", "running", "completed", "importing", "cancelling"]);
  });

  it(`an AI provider's temporary refusal is shown while the job waits and fails it at the ${MAX_PROVIDER_FAILURES}th, with the provider's error`, () => {
    const cause = { code: "ai_request_failed", message: "The AI provider refused the request: HTTP 429: slow down" };
    const waiting = moved(transition(job("running"), { type: "connection_failed", failures: 1, cause }));
    expect(waiting.next.state).toBe("running");
    expect(types(waiting)).toEqual(["retry_later"]);
    expect(waiting.error).toEqual({ code: "ai_request_failed", message: `${cause.message}; trying again` });
    const last = moved(
      transition(job("running"), { type: "connection_failed", failures: MAX_PROVIDER_FAILURES, cause }),
    );
    expect(last.next.state).toBe("failed");
    expect(last.error).toEqual({
      code: "ai_request_failed",
      message: `${cause.message} (${MAX_PROVIDER_FAILURES} attempts)`,
    });
    // The one before the last still waits, showing the provider's words.
    const before = moved(
      transition(job("running"), { type: "connection_failed", failures: MAX_PROVIDER_FAILURES - 1, cause }),
    );
    expect(before.next.state).toBe("running");
    expect(before.error?.code).toBe("ai_request_failed");
    // Without a cause (the processor unreachable) the job keeps waiting and shows nothing new.
    const plain = moved(transition(job("running"), { type: "connection_failed", failures: 2 }));
    expect(plain.next.state).toBe("running");
    expect(plain.error).toBeUndefined();
  });

  it("the processor's own cancelled status settles a pending cancel; other answers while cancelling are ignored", () => {
    const c = job("cancelling", { cancelPending: true });
    expect(refused(transition(c, { type: "processor_status", status: "completed" }))).toBe("translation_cancelling");
    expect(moved(transition(c, { type: "processor_status", status: "cancelled" })).next).toEqual(job("cancelled"));
    expect(moved(transition(c, { type: "cancel" })).effects).toEqual([]);
  });

  it("a DELETE answered `cancelling` leaves the job cancelling (outstanding) until the processor says it ended", () => {
    const c = job("cancelling", { cancelPending: true });
    const accepted = moved(transition(c, { type: "cancel_accepted" }));
    expect(accepted.next).toEqual(job("cancelling", { cancelPending: false }));
    expect(accepted.effects).toEqual([]);
    expect(refused(transition(accepted.next, { type: "cancel_accepted" }))).toBe("translation_invalid_move");
    expect(refused(transition(job("running"), { type: "cancel_accepted" }))).toBe("translation_invalid_move");
    expect(refused(transition(accepted.next, { type: "processor_status", status: "running" }))).toBe(
      "translation_cancelling",
    );
    for (const status of ["cancelled", "failed", "completed"] as const) {
      const m = moved(transition(accepted.next, { type: "processor_status", status }));
      expect(m.next).toEqual(job("cancelled"));
      expect(types(m)).not.toContain("publish");
    }
  });

  it("cancel of a finished job is refused", () => {
    for (const s of ["imported", "failed", "cancelled"] as const)
      expect(refused(transition(job(s), { type: "cancel" }))).toBe("translation_not_cancellable");
  });

  it("retry of a job that is not failed or cancelled is refused", () => {
    for (const s of TRANSLATION_STATES.filter((x) => x !== "failed" && x !== "cancelled")) {
      expect(refused(transition(job(s), { type: "retry" }))).toBe("translation_not_retryable");
    }
  });
});

describe("paused", () => {
  it("toggle on resumes a toggle-paused job where it stood; a paused import publishes again", () => {
    const p = job("paused", { pausedFrom: "running", pausedReason: "toggle_off" });
    expect(moved(transition(p, { type: "toggle_on" }))).toMatchObject({
      next: job("running"),
      effects: [{ type: "resume" }],
    });
    const pi = job("paused", { pausedFrom: "importing", pausedReason: "toggle_off" });
    expect(types(moved(transition(pi, { type: "toggle_on" })))).toEqual(["resume", "publish"]);
  });

  it("a request already running may finish: its status is remembered, the cached result waits", () => {
    const p = job("paused", { pausedFrom: "running", pausedReason: "toggle_off" });
    const m = moved(transition(p, { type: "processor_status", status: "completed" }));
    expect(m.next).toEqual(job("paused", { pausedFrom: "completed", pausedReason: "toggle_off" }));
    expect(m.effects).toEqual([]);
    expect(refused(transition(m.next, { type: "result_fetched" }))).toBe("translation_invalid_move");
    expect(moved(transition(m.next, { type: "toggle_on" })).next.state).toBe("completed");
    const sub = moved(
      transition(job("paused", { pausedFrom: "uploading", pausedReason: "toggle_off" }), { type: "submitted" }),
    );
    expect(sub.next.pausedFrom).toBe("submitted");
  });

  it("a native release outranks a switched-off toggle; paused jobs can still be cancelled", () => {
    const p = job("paused", { pausedFrom: "running", pausedReason: "toggle_off" });
    const n = moved(transition(p, { type: "native_release" })).next;
    expect(n.pausedReason).toBe("native_release");
    expect(refused(transition(n, { type: "toggle_on" }))).toBe("translation_not_affected");
    expect(moved(transition(n, { type: "cancel" })).next).toEqual(job("cancelling", { cancelPending: true }));
    expect(
      moved(transition(job("paused", { pausedFrom: "queued", pausedReason: "toggle_off" }), { type: "cancel" })).next
        .state,
    ).toBe("cancelled");
  });

  it("toggle off leaves a pending cancel running (the DELETE is sent even while disabled)", () => {
    expect(refused(transition(job("cancelling", { cancelPending: true }), { type: "toggle_off" }))).toBe(
      "translation_not_affected",
    );
  });
});

describe("imported", () => {
  it("is final: no event but the (refused) ones changes it", () => {
    const events: TranslationEvent[] = [
      { type: "cancel" },
      { type: "retry" },
      { type: "toggle_off" },
      { type: "native_release" },
      { type: "result_fetched" },
      { type: "submit_again" },
    ];
    for (const e of events) expect(refused(transition(job("imported"), e))).not.toBeNull();
    expect(TERMINAL_STATES).toContain("imported");
  });
});

const answerArb: fc.Arbitrary<TranslationEvent> = fc.oneof(
  fc.record({
    type: fc.constant("processor_status" as const),
    status: fc.constantFrom("queued", "running", "completed", "failed", "cancelling", "cancelled" as const),
    pagesDone: fc.option(fc.nat(50)),
    pagesTotal: fc.option(fc.nat(50)),
  }),
  fc.constant({ type: "result_fetched" as const }),
  fc.record({ type: fc.constant("import_succeeded" as const), fileId: fc.nat() }),
  fc.record({ type: fc.constant("import_failed" as const), code: fc.constant("x"), message: fc.constant("y") }),
  fc.record({ type: fc.constant("connection_failed" as const), failures: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ type: fc.constant("uploaded" as const), sha256: fc.constant("ab") }),
  fc.constant({ type: "submitted" as const }),
  fc.constant({ type: "cancel_acknowledged" as const }),
  fc.constant({ type: "cancel_accepted" as const }),
);
// Consistent facts, as the runner stores them: only a paused job has pausedFrom/pausedReason.
const facts: fc.Arbitrary<JobFacts> = fc
  .record({
    state: fc.constantFrom(...TRANSLATION_STATES),
    attempt: fc.integer({ min: 0, max: 1000 }),
    targetLanguage: fc.constantFrom("en", "de"),
    pausedFrom: fc.constantFrom(...ACTIVE_STATES),
    pausedReason: fc.constantFrom("toggle_off" as const, "native_release" as const),
    cancelPending: fc.boolean(),
  })
  .map((f) =>
    f.state === "paused" ? f : { ...f, pausedFrom: null, pausedReason: null, cancelPending: f.state === "cancelling" },
  );

describe("properties", () => {
  it("an answer of an older attempt never changes a newer attempt and never publishes", () => {
    fc.assert(
      fc.property(facts, answerArb, fc.integer({ min: 1, max: 1000 }), (j, e, back) => {
        const r = transition(j, { ...e, attempt: j.attempt - back } as TranslationEvent);
        expect(refused(r)).toBe("translation_stale_attempt");
      }),
      { numRuns: 500 },
    );
  });

  it("a cancelled (or cancelling) job never publishes, and a cancelled one never changes on an answer", () => {
    fc.assert(
      fc.property(facts, answerArb, fc.boolean(), (j0, e, settled) => {
        const j = { ...j0, state: settled ? ("cancelled" as const) : ("cancelling" as const) };
        const r = transition(j, { ...e, attempt: j.attempt } as TranslationEvent);
        if ("refused" in r) return;
        expect(types(r)).not.toContain("publish");
        expect(["cancelling", "cancelled"]).toContain(r.next.state);
        expect(settled).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("publish is emitted only on the way into importing, and the attempt changes only by an explicit retry", () => {
    const anyEvent = fc.oneof(
      answerArb,
      fc.constantFrom<TranslationEvent>(
        { type: "retry" },
        { type: "cancel" },
        { type: "toggle_on" },
        { type: "toggle_off" },
        { type: "native_release" },
        { type: "native_cleared", enabled: true },
        { type: "native_cleared", enabled: false },
        { type: "submit_again" },
        { type: "upload_started" },
        { type: "destination_changed", newLanguage: "de" },
      ),
    );
    fc.assert(
      fc.property(facts, anyEvent, (j, e) => {
        const r = transition(j, e);
        if ("refused" in r) return;
        if (types(r).includes("publish")) expect(r.next.state).toBe("importing");
        if (r.next.attempt !== j.attempt) expect(e.type).toBe("retry");
        if (r.next.state === "paused") expect(r.next.pausedFrom).not.toBeNull();
        if (types(r).includes("send_delete")) expect(r.next.cancelPending).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("retry delays", () => {
  it("5 s × 2^(n−1), capped at 5 min", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map(retryDelayMs)).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000,
    ]);
    expect(retryDelayMs(0)).toBe(5_000);
  });
});

describe("job ids", () => {
  const t = { seriesId: 4, kind: "volume" as const, number: "3", destination: "en" };
  it("the key is 32 lowercase hex, stable per target, canonical in the number", () => {
    const k = jobKey(t);
    expect(k).toMatch(/^[0-9a-f]{32}$/);
    expect(jobKey({ ...t, number: "03" })).toBe(k);
    expect(jobKey({ ...t, destination: "EN" })).toBe(k);
    expect(jobKey({ ...t, kind: "chapter" })).not.toBe(k);
    expect(jobKey({ ...t, destination: "de" })).not.toBe(k);
    expect(jobKey({ ...t, seriesId: 5 })).not.toBe(k);
    // sha256("translation-v1|4|volume|3|en"), computed with node:crypto.
    expect(k).toBe("5e9647f13823f7a60642bc85c886a9b891fd92450a8bac037e7293b6bf4d38bd".slice(0, 32));
  });
  it("format and parse round-trip with the documented id pattern", () => {
    const k = jobKey(t);
    expect(parseJobId(formatJobId(k, 7))).toEqual({ key: k, attempt: 7 });
    for (const bad of [`${k}-01`, `${k}-`, `${k.toUpperCase()}-0`, `${k}0-0`, `${k}-1234567890`, "x-0", `${k}-0 `])
      expect(parseJobId(bad)).toBeNull();
    expect(parseJobId(`${k}-123456789`)).toEqual({ key: k, attempt: 123456789 });
  });
  it("the pure sha256 matches known digests (node:crypto cross-check: server/test/translation-settings-hash.test.ts)", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(`${"x".repeat(64)}ü`)).toBe("9c101bbd7acf75fbb118d750c2d8205f4f0f1c5d574b9324cee292420e7bd398");
  });
});
