import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jobFacts, movedJob } from "./test-fixtures.ts";
import type { Label } from "./labels.ts";
import {
  ACTIVE_STATES,
  TRANSLATION_STATES,
  transition,
  type JobFacts,
  type TranslationState,
} from "./translation-jobs.ts";
import { nativeEvent, nativeSituation, type NativePass, type NativeSituation } from "./translation-native.ts";
import { WANTED_REASONS, type LedgerEntry, type PlanOffer, type WantedReason, type WantedSlot } from "./wanted.ts";

const L = (s: string) => s as Label;
const job = jobFacts;
const byNative = (from: TranslationState) => job("paused", { pausedFrom: from, pausedReason: "native_release" });
const byToggle = (from: TranslationState) => job("paused", { pausedFrom: from, pausedReason: "toggle_off" });
const moved = movedJob;
const slot = (patch: Partial<WantedSlot> = {}): WantedSlot => ({
  kind: "chapter",
  number: L("14"),
  wanted: true,
  monitored: true,
  owned: false,
  coverage: null,
  parts: 1,
  partsOnDisk: [],
  ...patch,
});
const entry = (reason: WantedReason, detail: Partial<LedgerEntry["detail"]> = {}): LedgerEntry => ({
  kind: "chapter",
  number: L("14"),
  reason,
  detail: { offers: 1, usable: 1, blocked: 0, languages: ["en"], ...detail },
});
const offer = (language: string): PlanOffer => ({
  mappingId: 1,
  kind: "chapter",
  chapter: L("14"),
  volume: null,
  part: null,
  language,
  scanlator: null,
  externalId: `x-${language}`,
  title: null,
  pageCount: 2,
  uploadedAt: null,
});
const pass = (p: Partial<NativePass>): NativePass => ({
  slots: [slot()],
  entries: [],
  offers: [],
  nativeLanguages: ["en"],
  destination: "en",
  ...p,
});

describe("the native situation of a slot after a pass", () => {
  it.each(["queued", "already_queued", "limit_reached", "replacing"] as const)(
    "%s: a native release is on its way → obtainable",
    (reason) => expect(nativeSituation(pass({ entries: [entry(reason)] }), "chapter", "14")).toBe("obtainable"),
  );

  it("a native download that failed and was blocked (all offers blocked) → absent", () => {
    const p = pass({ entries: [entry("all_offers_blocked", { blocked: 1 })], offers: [offer("en"), offer("ja")] });
    expect(nativeSituation(p, "chapter", "14")).toBe("absent");
  });

  it("only foreign offers, or none, or no source lists it any more → absent", () => {
    expect(
      nativeSituation(pass({ entries: [entry("only_other_languages")], offers: [offer("ja")] }), "chapter", "14"),
    ).toBe("absent");
    expect(nativeSituation(pass({ entries: [entry("no_offer", { offers: 0, usable: 0 })] }), "chapter", "14")).toBe(
      "absent",
    );
    expect(nativeSituation(pass({ entries: [entry("no_longer_listed")] }), "chapter", "14")).toBe("absent");
  });

  it("backing off with a usable native offer, or its parts incomplete → still obtainable", () => {
    expect(
      nativeSituation(pass({ entries: [entry("backing_off", { usable: 1 })], offers: [offer("en")] }), "chapter", "14"),
    ).toBe("obtainable");
    expect(
      nativeSituation(pass({ entries: [entry("parts_incomplete")], offers: [offer("en")] }), "chapter", "14"),
    ).toBe("obtainable");
    expect(
      nativeSituation(pass({ entries: [entry("backing_off", { usable: 0 })], offers: [offer("ja")] }), "chapter", "14"),
    ).toBe("absent");
  });

  it("owned or covered by a sound file → published; a degraded one nothing replaces → absent; one being replaced → obtainable", () => {
    const owned = [slot({ wanted: false, owned: true })];
    expect(nativeSituation(pass({ slots: owned }), "chapter", "14")).toBe("published");
    expect(
      nativeSituation(pass({ slots: [slot({ wanted: false, coverage: "covered_by_volume" })] }), "chapter", "014"),
    ).toBe("published");
    expect(
      nativeSituation(
        pass({ slots: owned, entries: [entry("no_other_source", { replacesFileId: 9 })] }),
        "chapter",
        "14",
      ),
    ).toBe("absent");
    expect(
      nativeSituation(pass({ slots: owned, entries: [entry("backing_off", { replacesFileId: 9 })] }), "chapter", "14"),
    ).toBe("obtainable");
  });

  it("a slot the pass does not speak of (not monitored, gone from the map, another kind) → unknown", () => {
    expect(nativeSituation(pass({ slots: [slot({ wanted: false, monitored: false })] }), "chapter", "14")).toBe(
      "unknown",
    );
    expect(nativeSituation(pass({ slots: [] }), "chapter", "14")).toBe("unknown");
    expect(nativeSituation(pass({}), "volume", "14")).toBe("unknown");
    expect(nativeSituation(pass({}), "chapter", "not a number")).toBe("unknown");
  });
});

describe("which native event a job meets", () => {
  const source = (f: JobFacts) => ({ ...f, origin: "source" });
  it.each(ACTIVE_STATES)("obtainable: an active (%s) job pauses", (state) => {
    expect(nativeEvent(source(job(state)), "obtainable", true)).toEqual({ type: "native_release" });
    expect(nativeEvent(source(byToggle(state)), "obtainable", false)).toEqual({ type: "native_release" });
    expect(nativeEvent(source(byNative(state)), "obtainable", true)).toBeNull();
  });

  it.each(ACTIVE_STATES)("absent: a job the native release paused from %s resumes there", (state) => {
    const e = nativeEvent(source(byNative(state)), "absent", true)!;
    expect(e).toEqual({ type: "native_cleared", enabled: true });
    const m = moved(transition(byNative(state), e));
    expect(m.next).toEqual(job(state));
    expect(m.effects.map((x) => x.type)).toEqual(state === "importing" ? ["resume", "publish"] : ["resume"]);
    // Nothing else moves on `absent`: a job a toggle paused waits for the toggle.
    expect(nativeEvent(source(byToggle(state)), "absent", true)).toBeNull();
    expect(nativeEvent(source(job(state)), "absent", true)).toBeNull();
  });

  it("absent with a toggle off: the job stays paused, now by the toggle, and switching it on resumes it", () => {
    const m = moved(transition(byNative("running"), { type: "native_cleared", enabled: false }));
    expect(m.next).toEqual(byToggle("running"));
    expect(m.effects).toEqual([]);
    expect(moved(transition(m.next, { type: "toggle_on" })).next).toEqual(job("running"));
  });

  it("a toggle switched off keeps a job the native release paused paused by the native release; toggle on alone never resumes it", () => {
    expect("refused" in transition(byNative("running"), { type: "toggle_off" })).toBe(true);
    expect("refused" in transition(byNative("running"), { type: "toggle_on" })).toBe(true);
    // A native release takes over a toggle's pause.
    expect(moved(transition(byToggle("running"), { type: "native_release" })).next).toEqual(byNative("running"));
  });

  it("published: the job pauses as for an obtainable release, or stays paused; nothing cancels it", () => {
    for (const state of ["queued", "uploading", "submitted", "running", "completed"] as const) {
      expect(nativeEvent(source(job(state)), "published", true)).toEqual({ type: "native_release" });
      expect(nativeEvent(source(byNative(state)), "published", true)).toBeNull();
      expect(nativeEvent(source(byNative(state)), "published", false)).toBeNull();
    }
    // A native release takes over a toggle's pause, whatever the toggles.
    expect(nativeEvent(source(byToggle("running")), "published", false)).toEqual({ type: "native_release" });
  });

  it("published: an operator's upload, and a publication under way, are left alone", () => {
    expect(nativeEvent({ ...job("running"), origin: "upload" }, "published", true)).toBeNull();
    expect(nativeEvent({ ...byToggle("running"), origin: "upload" }, "published", false)).toBeNull();
    expect(nativeEvent(source(job("importing")), "published", true)).toBeNull();
  });

  it("unknown moves nothing", () => {
    for (const s of TRANSLATION_STATES) expect(nativeEvent(source(job(s)), "unknown", true)).toBeNull();
    expect(nativeEvent(source(byNative("running")), "unknown", true)).toBeNull();
  });
});

const situations: NativeSituation[] = ["obtainable", "published", "absent", "unknown"];
const facts: fc.Arbitrary<JobFacts & { origin: string }> = fc
  .record({
    state: fc.constantFrom(...TRANSLATION_STATES),
    pausedFrom: fc.constantFrom(...ACTIVE_STATES),
    pausedReason: fc.constantFrom("toggle_off" as const, "native_release" as const),
    cancelPending: fc.boolean(),
    origin: fc.constantFrom("upload", "source", "indexer"),
  })
  .map((f) => ({
    ...f,
    attempt: 0,
    targetLanguage: "en",
    ...(f.state === "paused" ? {} : { pausedFrom: null, pausedReason: null, cancelPending: f.state === "cancelling" }),
  }));

describe("properties", () => {
  it("a job a native release paused never resumes while a native release is obtainable or a sound native file holds the slot", () => {
    fc.assert(
      fc.property(facts, fc.constantFrom(...situations), fc.boolean(), (j, situation, enabled) => {
        const e = nativeEvent(j, situation, enabled);
        if (!e) return;
        const r = transition(j, e);
        if ("refused" in r) return;
        if (j.state === "paused" && j.pausedReason === "native_release" && situation !== "absent")
          expect(r.next.state).toBe("paused");
        // Nothing resumes with a toggle off; nothing is published by a native event.
        if (!enabled) expect(r.effects.map((x) => x.type)).not.toContain("resume");
        if (situation !== "absent") expect(r.effects.map((x) => x.type)).not.toContain("resume");
      }),
      { numRuns: 1000 },
    );
  });

  it("after the pass's native event a job is paused by the native release while one is obtainable, never once none is", () => {
    fc.assert(
      fc.property(facts, fc.constantFrom(...situations), fc.boolean(), (j, situation, enabled) => {
        const e = nativeEvent(j, situation, enabled);
        const r = e ? transition(j, e) : null;
        const after = r && !("refused" in r) ? r.next : j;
        const pausedByNative = after.state === "paused" && after.pausedReason === "native_release";
        if (situation === "obtainable" && (ACTIVE_STATES.includes(j.state) || j.state === "paused"))
          expect(pausedByNative).toBe(true);
        if (situation === "absent") expect(pausedByNative).toBe(false);
        // No native situation ends a job: it is paused, resumed or left as it was.
        if (r && !("refused" in r)) expect(["cancelling", "cancelled", "failed"]).not.toContain(r.next.state);
      }),
      { numRuns: 1000 },
    );
  });

  it("every ledger reason of a wanted slot gives the same situation as the fallback planner's test", () => {
    fc.assert(
      fc.property(fc.constantFrom(...WANTED_REASONS), fc.boolean(), fc.nat(2), (reason, nativeOffer, usable) => {
        const p = pass({ entries: [entry(reason, { usable })], offers: nativeOffer ? [offer("en")] : [offer("ja")] });
        const s = nativeSituation(p, "chapter", "14");
        expect(["obtainable", "absent"]).toContain(s);
        if (["queued", "already_queued", "limit_reached", "replacing"].includes(reason)) expect(s).toBe("obtainable");
      }),
      { numRuns: 300 },
    );
  });
});
