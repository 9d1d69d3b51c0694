import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { label, type Label } from "./labels.ts";
import {
  planFallback,
  resolveSourceLanguages,
  submitCapacity,
  type FallbackInput,
  type FallbackJob,
} from "./translation-fallback.ts";
import type { LedgerEntry, PlanOffer, WantedSlot } from "./wanted.ts";

/** A slot as the coverage index hands it over: `wanted` as the index would decide it unless given. */
const slot = (kind: "chapter" | "book", n: string, patch: Partial<WantedSlot> = {}): WantedSlot => {
  const base = { monitored: true, owned: false, coverage: null, ...patch };
  return {
    kind,
    number: label(n),
    parts: 1,
    partsOnDisk: [],
    ...base,
    wanted: patch.wanted ?? (base.monitored && !base.owned && base.coverage === null),
  };
};
const entry = (kind: "chapter" | "book", n: string, reason: LedgerEntry["reason"], usable = 0): LedgerEntry => ({
  kind,
  number: label(n),
  reason,
  detail: { offers: 0, usable, blocked: 0, languages: [] },
});
const offer = (
  mappingId: number,
  kind: "chapter" | "volume",
  n: string,
  language: string,
  patch: Partial<PlanOffer> = {},
): PlanOffer => ({
  mappingId,
  kind,
  chapter: kind === "chapter" ? label(n) : null,
  volume: kind === "volume" ? label(n) : null,
  part: null,
  language,
  scanlator: null,
  externalId: `${mappingId}-${kind}-${n}`,
  pageCount: 20,
  uploadedAt: 1000,
  ...patch,
});
const base = (patch: Partial<FallbackInput> = {}): FallbackInput => ({
  enabled: true,
  destination: "en",
  nativeLanguages: ["en"],
  originalLanguage: "ja",
  seriesSourceLanguages: [],
  globalSourceLanguages: ["original", "fr"],
  slots: [slot("book", "1")],
  ledger: [entry("book", "1", "only_other_languages")],
  offers: [offer(2, "volume", "1", "fr"), offer(3, "volume", "1", "ja")],
  mappings: [
    { id: 1, language: "en", state: "active", priority: 0 },
    { id: 2, language: "fr", state: "active", priority: 0 },
    { id: 3, language: "ja", state: "active", priority: 0 },
  ],
  jobs: [],
  ...patch,
});

describe("resolveSourceLanguages", () => {
  it("series list overrides the global one; original resolves or is skipped; destination and duplicates dropped", () => {
    expect(resolveSourceLanguages(base())).toEqual(["ja", "fr"]);
    expect(resolveSourceLanguages(base({ originalLanguage: null }))).toEqual(["fr"]);
    expect(resolveSourceLanguages(base({ seriesSourceLanguages: ["fr-FR", "FR", "en", "original"] }))).toEqual([
      "fr",
      "ja",
    ]);
  });
});

describe("planFallback", () => {
  it("queues a monitored missing slot from the first source language that has a verified foreign source", () => {
    const p = planFallback(base());
    expect(p.jobs).toEqual([
      { kind: "volume", number: "1", sourceLanguage: "ja", sourceMappingId: 3, externalId: "3-volume-1" },
    ]);
    expect(p.reasons).toEqual([{ kind: "volume", number: "1", reason: "queued", sourceLanguage: "ja" }]);
  });

  it("a rejected mapping, or a mapping of another language, is not a verified source", () => {
    const p = planFallback(
      base({
        mappings: [
          { id: 2, language: "fr", state: "rejected", priority: 0 },
          { id: 3, language: "en", state: "active", priority: 0 },
        ],
      }),
    );
    expect(p.reasons[0]?.reason).toBe("no_foreign_source");
  });

  it("numbering must match exactly, and split-chapter parts are no source", () => {
    const p = planFallback(
      base({
        slots: [slot("chapter", "10.5")],
        ledger: [entry("chapter", "10.5", "no_offer")],
        offers: [
          offer(2, "chapter", "10.05", "fr"),
          offer(2, "chapter", "10.5", "fr", { part: 1 }),
          offer(2, "volume", "10.5", "fr"),
        ],
      }),
    );
    expect(p.reasons[0]?.reason).toBe("no_foreign_source");
    expect(
      planFallback(
        base({
          slots: [slot("chapter", "10.5")],
          ledger: [entry("chapter", "10.5", "no_offer")],
          offers: [offer(2, "chapter", "10.50", "fr")],
        }),
      ).jobs,
    ).toHaveLength(1);
  });

  it("a slot with an obtainable native release is left to the normal pass", () => {
    for (const reason of ["queued", "already_queued", "limit_reached", "parts_incomplete"] as const) {
      expect(planFallback(base({ ledger: [entry("book", "1", reason, 1)] })).reasons[0]?.reason).toBe(
        "native_obtainable",
      );
    }
    expect(planFallback(base({ ledger: [entry("book", "1", "backing_off", 1)] })).reasons[0]?.reason).toBe(
      "native_obtainable",
    );
    expect(planFallback(base({ ledger: [entry("book", "1", "backing_off", 0)] })).reasons[0]?.reason).toBe("queued");
    // Blocked native offers (degraded) leave the slot to the fallback.
    expect(
      planFallback(
        base({
          ledger: [entry("book", "1", "all_offers_blocked", 1)],
          offers: [offer(1, "volume", "1", "en"), offer(2, "volume", "1", "fr")],
        }),
      ).reasons[0]?.reason,
    ).toBe("queued");
  });

  it("not monitored, owned or covered slots are never planned nor listed", () => {
    const p = planFallback(
      base({
        slots: [
          slot("book", "1", { monitored: false }),
          slot("book", "2", { owned: true }),
          slot("chapter", "3", { coverage: "covered_by_volume" }),
        ],
      }),
    );
    expect(p).toEqual({ jobs: [], reasons: [] });
  });

  it("disabled: nothing queued, each wanted slot says disabled", () => {
    const p = planFallback(base({ enabled: false }));
    expect(p.jobs).toEqual([]);
    expect(p.reasons[0]?.reason).toBe("disabled");
  });

  it.each([
    ["running", "already_translating"],
    ["paused", "already_translating"],
    ["cancelling", "already_translating"],
    ["queued", "already_translating"],
    ["imported", "already_translated"],
    ["failed", "needs_retry"],
    ["cancelled", "cancelled"],
  ] as const)("an existing %s job of the target → %s", (state, reason) => {
    const jobs: FallbackJob[] = [{ kind: "volume", number: "01", targetLanguage: "en-US", state }];
    expect(planFallback(base({ jobs })).reasons[0]?.reason).toBe(reason);
    // A job of another destination (the old language) does not count.
    expect(planFallback(base({ jobs: [{ ...jobs[0]!, targetLanguage: "de" }] })).reasons[0]?.reason).toBe("queued");
  });

  it("at most ten per series per pass, lowest numbers first, books before chapters; the rest say limit", () => {
    const nums = Array.from({ length: 14 }, (_, i) => String(i + 1));
    const p = planFallback(
      base({
        slots: [...nums.map((n) => slot("chapter", n)), slot("book", "9")],
        ledger: [...nums.map((n) => entry("chapter", n, "no_offer")), entry("book", "9", "no_offer")],
        offers: [...nums.map((n) => offer(2, "chapter", n, "fr")), offer(2, "volume", "9", "fr")],
      }),
    );
    expect(p.jobs).toHaveLength(10);
    expect(p.jobs[0]).toMatchObject({ kind: "volume", number: "9" });
    expect(p.jobs.at(-1)).toMatchObject({ kind: "chapter", number: "9" });
    expect(p.reasons.filter((r) => r.reason === "limit").map((r) => r.number)).toEqual(["10", "11", "12", "13", "14"]);
  });

  it("within a language: higher mapping priority, then the newest upload", () => {
    const p = planFallback(
      base({
        globalSourceLanguages: ["fr"],
        mappings: [
          { id: 2, language: "fr", state: "active", priority: 0 },
          { id: 4, language: "fr", state: "active", priority: 5 },
        ],
        offers: [
          offer(2, "volume", "1", "fr", { uploadedAt: 9999 }),
          offer(4, "volume", "1", "fr", { uploadedAt: 1, externalId: "old" }),
          offer(4, "volume", "1", "fr", { uploadedAt: 2, externalId: "new" }),
        ],
      }),
    );
    expect(p.jobs[0]).toMatchObject({ sourceMappingId: 4, externalId: "new" });
  });
});

describe("submitCapacity", () => {
  it("two outstanding external jobs, or one local job", () => {
    expect([0, 1, 2, 3].map((n) => submitCapacity("external", n))).toEqual([2, 1, 0, 0]);
    expect([0, 1, 2].map((n) => submitCapacity("local", n))).toEqual([1, 0, 0]);
  });
});

describe("properties", () => {
  const LANGS = ["en", "fr", "ja", "de"];
  const lang = fc.constantFrom(...LANGS);
  const num = fc.integer({ min: 0, max: 15 }).map((n) => label(String(n)));
  const kind = fc.constantFrom("chapter" as const, "book" as const);
  const arb = fc.record({
    slots: fc.array(
      fc
        .record({
          kind,
          number: num,
          // Biased towards wanted slots so that most runs plan something.
          monitored: fc.constantFrom(true, true, true, false),
          owned: fc.constantFrom(false, false, true),
          coverage: fc.constantFrom(null, null, "covered_by_volume" as const),
          parts: fc.constant(1),
          partsOnDisk: fc.constant([] as number[]),
          held: fc.constantFrom(false, false, true),
        })
        .map(({ held, ...s }) => ({ ...s, wanted: s.monitored && !s.owned && s.coverage === null && !held })),
      { minLength: 5, maxLength: 30 },
    ),
    reasons: fc.array(
      fc.constantFrom(
        "queued",
        "no_offer",
        "only_other_languages",
        "all_offers_blocked",
        "backing_off",
        "limit_reached" as const,
      ),
      { minLength: 30, maxLength: 30 },
    ),
    offers: fc.array(
      fc.record({
        mappingId: fc.integer({ min: 1, max: 4 }),
        kind: fc.constantFrom("chapter" as const, "volume" as const),
        n: num,
        language: fc.option(lang, { freq: 4 }),
      }),
      { minLength: 10, maxLength: 60 },
    ),
    enabled: fc.boolean(),
    max: fc.integer({ min: 0, max: 12 }),
  });
  it("never more than the limit, never a slot with a native offer the normal pass could use, never an unwanted slot", () => {
    let planned = 0;
    const stats: Record<string, number> = {};
    fc.assert(
      fc.property(arb, (a) => {
        const slots = a.slots;
        const ledger = slots.map((s, i) => entry(s.kind, s.number, a.reasons[i]!, 1));
        // Mostly the mapping's own language; sometimes another (no verified source then).
        const offers = a.offers.map((o, i) =>
          offer(o.mappingId, o.kind, o.n as Label, o.language ?? LANGS[o.mappingId - 1]!, { externalId: `x${i}` }),
        );
        const p = planFallback(
          base({
            enabled: a.enabled,
            slots,
            ledger,
            offers,
            maxPerPass: a.max,
            mappings: [1, 2, 3, 4].map((id) => ({ id, language: LANGS[id - 1]!, state: "active", priority: 0 })),
          }),
        );
        expect(p.jobs.length).toBeLessThanOrEqual(Math.min(a.max, 10));
        if (!a.enabled) expect(p.jobs).toEqual([]);
        for (const j of p.jobs) {
          const skind = j.kind === "volume" ? "book" : "chapter";
          const matching = slots.filter((s) => s.kind === skind && s.number === j.number);
          expect(matching.some((s) => s.wanted)).toBe(true);
          const e = ledger.findLast((l) => l.kind === skind && l.number === j.number)!;
          expect(["no_offer", "only_other_languages", "all_offers_blocked"]).toContain(e.reason);
          const nativeOffer = offers.some(
            (o) =>
              o.language === "en" &&
              (j.kind === "volume"
                ? o.kind === "volume" && o.volume === j.number
                : o.kind === "chapter" && o.chapter === j.number),
          );
          if (nativeOffer) expect(e.reason).toBe("all_offers_blocked");
          expect(j.sourceLanguage).not.toBe("en");
        }
        // One job per target at most.
        expect(new Set(p.jobs.map((j) => `${j.kind}|${j.number}`)).size).toBe(p.jobs.length);
        planned += p.jobs.length;
        for (const r of p.reasons) stats[r.reason] = (stats[r.reason] ?? 0) + 1;
      }),
      { numRuns: 500 },
    );
    // Not vacuous: the generated inputs do plan jobs.
    expect(Object.keys(stats)).toEqual(
      expect.arrayContaining(["queued", "no_foreign_source", "native_obtainable", "disabled"]),
    );
    expect(planned).toBeGreaterThan(10);
  });
});
