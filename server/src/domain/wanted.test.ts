import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { label, type Label } from "./labels.ts";
import type { Coverage } from "./types.ts";
import {
  BACKOFF_CAP_MS,
  backoffDelay,
  chooseForSlot,
  isWanted,
  planWanted,
  type PlanInput,
  type PlanOffer,
  type WantedSlot,
} from "./wanted.ts";

import { H, NOW, book, ch, input, offer, reasons } from "./wanted-test-helpers.ts";

describe("what is wanted", () => {
  it.each<[string, Partial<WantedSlot>, boolean]>([
    ["monitored, missing", {}, true],
    ["unmonitored", { monitored: false }, false],
    ["owned", { owned: true }, false],
    ["covered_unmapped", { coverage: "covered_unmapped" }, false],
    ["covered_by_volume", { coverage: "covered_by_volume" }, false],
    ["covered_by_chapters", { coverage: "covered_by_chapters" }, false],
    // Held by a hand import, or a books-form chapter without an explicit assignment: the index says no.
    ["not wanted by the coverage index", { wanted: false }, false],
  ])("%s → %s", (_name, over, expected) => {
    expect(isWanted(ch("1", over))).toBe(expected);
    const out = planWanted(input({ slots: [ch("1", over)], offers: [offer("1")] }));
    expect(out.downloads.length).toBe(expected ? 1 : 0);
    expect(out.ledger.length).toBe(expected ? 1 : 0);
  });
});

describe("reasons", () => {
  it("no_offer, only_other_languages, queued, already_queued", () => {
    const out = planWanted(
      input({
        slots: [ch("1"), ch("2"), ch("3"), ch("4")],
        offers: [offer("2", { language: "fr" }), offer("3"), offer("4")],
        active: [{ kind: "chapter", chapter: label("4"), volume: null, part: null }],
      }),
    );
    expect(reasons(out)).toEqual([
      "chapter 1: no_offer",
      "chapter 2: only_other_languages",
      "chapter 3: queued",
      "chapter 4: already_queued",
    ]);
    expect(out.downloads.map((d) => d.externalId)).toEqual(["m1-c3"]);
    expect(out.ledger[1]!.detail).toMatchObject({ offers: 1, usable: 0, languages: ["fr"] });
  });

  it("exact numbers: chapter 0 and 4.5 are their own slots, 4.50 is 4.5", () => {
    const out = planWanted(input({ slots: [ch("0"), ch("4.5"), ch("4")], offers: [offer("0"), offer("4.50")] }));
    expect(reasons(out)).toEqual(["chapter 0: queued", "chapter 4: no_offer", "chapter 4.5: queued"]);
  });

  it("a degraded download blocks its release and its mapping for that slot: the other source is queued", () => {
    const offers = [offer("5", { mappingId: 1 }), offer("5", { mappingId: 2 })];
    const degraded = [
      { mappingId: 1, externalId: "m1-c5", kind: "chapter" as const, chapter: label("5"), volume: null },
    ];
    const out = planWanted(input({ slots: [ch("5")], offers, degraded }));
    expect(out.downloads.map((d) => [d.mappingId, d.externalId])).toEqual([[2, "m2-c5"]]);
    // Another upload on the same mapping (new externalId) is still not asked: another SOURCE it must be.
    const again = planWanted(
      input({ slots: [ch("5")], offers: [offer("5", { mappingId: 1, externalId: "m1-c5-new" })], degraded }),
    );
    expect(reasons(again)).toEqual(["chapter 5: all_offers_blocked"]);
    expect(again.ledger[0]!.detail).toMatchObject({ offers: 1, usable: 1, blocked: 1 });
  });

  it("a release the operator blocked is never chosen; the same source's other releases still are", () => {
    const offers = [offer("5", { mappingId: 1 }), offer("5", { mappingId: 2 })];
    const blocked = [{ mappingId: 1, externalId: "m1-c5" }];
    const out = planWanted(input({ slots: [ch("5")], offers, blocked }));
    expect(out.downloads.map((d) => [d.mappingId, d.externalId])).toEqual([[2, "m2-c5"]]);
    // Unlike a degraded release, the block does not keep the source away from the slot.
    const otherGroup = planWanted(
      input({ slots: [ch("5")], offers: [...offers, offer("5", { mappingId: 1, scanlator: "B" })], blocked }),
    );
    expect(otherGroup.downloads.map((d) => [d.mappingId, d.externalId])).toEqual([[1, "m1-c5-B"]]);
    const only = planWanted(input({ slots: [ch("5")], offers: [offers[0]!], blocked }));
    expect(reasons(only)).toEqual(["chapter 5: all_offers_blocked"]);
    expect(only.ledger[0]!.detail).toMatchObject({ offers: 1, usable: 1, blocked: 1 });
    // A blocked part takes its whole candidate out: a split chapter comes from one source.
    const parts = [1, 2].map((p) => offer("6", { mappingId: 1, part: p }));
    const split = planWanted(
      input({ slots: [ch("6", { parts: 2 })], offers: parts, blocked: [{ mappingId: 1, externalId: "m1-c6p2" }] }),
    );
    expect(reasons(split)).toEqual(["chapter 6: all_offers_blocked"]);
  });

  it("books take volume offers; chapters never take a volume offer", () => {
    const vol = offer("0", { kind: "volume", chapter: null, volume: label("2"), externalId: "v2" });
    const out = planWanted(input({ slots: [book("2"), ch("2")], offers: [vol] }));
    expect(reasons(out)).toEqual(["chapter 2: no_offer", "book 2: queued"]);
    expect(out.downloads[0]).toMatchObject({ kind: "volume", volume: "2", slot: { kind: "book", number: "2" } });
  });
});

describe("split chapters", () => {
  const parts = (mappingId: number, ps: number[], scanlator: string | null = null) =>
    ps.map((part) => offer("7", { mappingId, part, scanlator }));

  it("every part from one source, queued together", () => {
    const out = planWanted(input({ slots: [ch("7", { parts: 2 })], offers: [...parts(1, [1]), ...parts(2, [1, 2])] }));
    expect(out.downloads.map((d) => [d.mappingId, d.part])).toEqual([
      [2, 1],
      [2, 2],
    ]);
    expect(out.ledger[0]).toMatchObject({ reason: "queued", detail: { parts: [1, 2] } });
  });

  it("a chapter whose parts are not all offered waits", () => {
    const out = planWanted(input({ slots: [ch("7", { parts: 3 })], offers: [...parts(1, [1, 2]), ...parts(2, [3])] }));
    expect(out.downloads).toEqual([]);
    expect(out.ledger[0]).toMatchObject({ reason: "parts_incomplete", detail: { parts: [3] } });
  });

  it("a source splitting a chapter the slot calls whole must offer all its parts; two scanlators never mix", () => {
    const out = planWanted(input({ slots: [ch("7")], offers: [...parts(1, [1], "A"), ...parts(1, [2], "B")] }));
    expect(out.ledger[0]!.reason).toBe("parts_incomplete");
  });

  it("parts on disk are not fetched again", () => {
    const out = planWanted(input({ slots: [ch("7", { parts: 2, partsOnDisk: [1] })], offers: parts(1, [1, 2]) }));
    expect(out.downloads.map((d) => d.part)).toEqual([2]);
  });

  it("the limit never splits a chapter's parts", () => {
    const out = planWanted(
      input({ slots: [ch("6"), ch("7", { parts: 2 })], offers: [offer("6"), ...parts(1, [1, 2])], maxDownloads: 2 }),
    );
    expect(reasons(out)).toEqual(["chapter 6: queued", "chapter 7: limit_reached"]);
    expect(out.downloads).toHaveLength(1);
  });
});

describe("ranking", () => {
  const slots = [ch("1")];
  const pick = (over: Partial<PlanInput>) => planWanted(input({ slots, ...over })).downloads[0]!.externalId;

  it("language order first, then mapping priority, then health, then newest upload", () => {
    const fr = offer("1", { mappingId: 1, language: "fr", externalId: "fr" });
    const en = offer("1", { mappingId: 2, language: "en", externalId: "en" });
    expect(pick({ offers: [fr, en], languages: ["en", "fr"] })).toBe("en");
    expect(pick({ offers: [fr, en], languages: ["fr", "en"] })).toBe("fr");

    const a = offer("1", { mappingId: 1, externalId: "a", uploadedAt: NOW - 5 * H });
    const b = offer("1", { mappingId: 2, externalId: "b", uploadedAt: NOW });
    expect(pick({ offers: [a, b] })).toBe("a"); // priority 1 beats 0 (higher first)
    const sick = [
      { id: 1, priority: 0, degraded: 2, failed: 0 },
      { id: 2, priority: 0, degraded: 0, failed: 1 },
    ];
    expect(pick({ offers: [a, b], mappings: sick })).toBe("b");
    const even = [
      { id: 1, priority: 0, degraded: 0, failed: 0 },
      { id: 2, priority: 0, degraded: 0, failed: 0 },
    ];
    expect(pick({ offers: [a, b], mappings: even })).toBe("b"); // newest
    expect(
      pick({
        offers: [
          { ...a, uploadedAt: null },
          { ...b, uploadedAt: null },
        ],
        mappings: even,
      }),
    ).toBe("a"); // stable: mapping id
  });

  it("a release whose download failed goes after the other sources' releases in its language, and is tried again alone", () => {
    // The preferred source serves a page that is no image: its release fails every time; the other
    // source's release comes first from then on, and the failed one is still the only choice when alone.
    const a = offer("1", { mappingId: 1, externalId: "a" });
    const b = offer("1", { mappingId: 2, externalId: "b" });
    const failed = [{ mappingId: 1, externalId: "a" }];
    expect(pick({ offers: [a, b] })).toBe("a");
    expect(pick({ offers: [a, b], failed })).toBe("b");
    expect(pick({ offers: [a], failed })).toBe("a");
    // The same source's other release (another scanlator) is not held back.
    expect(pick({ offers: [a, { ...b, externalId: "a2", mappingId: 1, scanlator: "other" }], failed })).toBe("a2");
    // The language preference still comes first.
    const fr = offer("1", { mappingId: 2, language: "fr", externalId: "fr" });
    expect(pick({ offers: [a, fr], failed, languages: ["en", "fr"] })).toBe("a");
  });

  it("chooseForSlot excludes the given sources (recovery asks ANOTHER source)", () => {
    const offers = [offer("1", { mappingId: 1 }), offer("1", { mappingId: 2 })];
    expect(chooseForSlot(ch("1"), input({ offers }), new Set([1])).pick?.[0]?.mappingId).toBe(2);
    expect(chooseForSlot(ch("1"), input({ offers }), new Set([1, 2])).reason).toBe("all_offers_blocked");
  });
});

describe("limit and back-off", () => {
  it("at most maxDownloads, in reading order; the rest limit_reached", () => {
    const slots = ["3", "1", "2", "10"].map((n) => ch(n));
    const out = planWanted(input({ slots, offers: slots.map((s) => offer(s.number)), maxDownloads: 2 }));
    expect(reasons(out)).toEqual([
      "chapter 1: queued",
      "chapter 2: queued",
      "chapter 3: limit_reached",
      "chapter 10: limit_reached",
    ]);
    expect(out.backoff).toEqual({ emptyPasses: 0, nextPassAt: null });
  });

  it("nothing obtainable grows the back-off 1 h, 2 h, 4 h … capped at 24 h; anything queued resets it", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map(backoffDelay)).toEqual([1, 2, 4, 8, 16, 24, 24, 24].map((h) => h * H));
    let backoff = { emptyPasses: 0, nextPassAt: null as number | null };
    const seen: number[] = [];
    for (let i = 0; i < 7; i++) {
      const now: number = backoff.nextPassAt ?? NOW;
      backoff = planWanted(input({ slots: [ch("1")], now, backoff })).backoff;
      seen.push((backoff.nextPassAt! - now) / H);
    }
    expect(seen).toEqual([1, 2, 4, 8, 16, 24, 24]);
    expect(backoff.emptyPasses).toBe(7);
    const reset = planWanted(input({ slots: [ch("1")], offers: [offer("1")], now: backoff.nextPassAt!, backoff }));
    expect(reset.backoff).toEqual({ emptyPasses: 0, nextPassAt: null });
  });

  it("while backing off nothing is queued (unless forced) and the state stays", () => {
    const backoff = { emptyPasses: 2, nextPassAt: NOW + H };
    const out = planWanted(input({ slots: [ch("1")], offers: [offer("1")], backoff }));
    expect(out.downloads).toEqual([]);
    expect(out.ledger[0]).toMatchObject({
      reason: "backing_off",
      detail: { nextPassAt: new Date(NOW + H).toISOString() },
    });
    expect(out.backoff).toEqual(backoff);
    expect(planWanted(input({ slots: [ch("1")], offers: [offer("1")], backoff, force: true })).downloads).toHaveLength(
      1,
    );
  });

  it("a pass that only tries again a release whose download failed queues it but backs off; another release resets it", () => {
    const failed = [{ mappingId: 1, externalId: "1" }];
    const retry = planWanted(input({ slots: [ch("1")], offers: [offer("1", { externalId: "1" })], failed }));
    expect(retry.downloads.map((d) => d.externalId)).toEqual(["1"]);
    expect(retry.backoff).toEqual({ emptyPasses: 1, nextPassAt: NOW + H });
    const second = planWanted(
      input({
        slots: [ch("1")],
        offers: [offer("1", { externalId: "1" })],
        failed,
        now: NOW + H,
        backoff: retry.backoff,
      }),
    );
    expect(second.backoff).toEqual({ emptyPasses: 2, nextPassAt: NOW + 3 * H });
    const fresh = planWanted(
      input({
        slots: [ch("1"), ch("2")],
        offers: [offer("1", { externalId: "1" }), offer("2", { externalId: "2" })],
        failed,
        now: NOW + 3 * H,
        backoff: second.backoff,
      }),
    );
    expect(fresh.downloads).toHaveLength(2);
    expect(fresh.backoff).toEqual({ emptyPasses: 0, nextPassAt: null });
  });

  it("in-flight downloads and nothing wanted reset the back-off", () => {
    const backoff = { emptyPasses: 3, nextPassAt: NOW - 1 };
    const active = [{ kind: "chapter" as const, chapter: label("1"), volume: null, part: null }];
    expect(planWanted(input({ slots: [ch("1")], active, backoff })).backoff).toEqual({
      emptyPasses: 0,
      nextPassAt: null,
    });
    expect(planWanted(input({ slots: [ch("1", { owned: true })], backoff })).backoff).toEqual({
      emptyPasses: 0,
      nextPassAt: null,
    });
  });
});

/* ---- properties ---- */

const labels = ["0", "1", "2", "2.5", "3", "4"].map((n) => label(n));
const arbLabel = fc.constantFrom(...labels);
const arbSlot: fc.Arbitrary<WantedSlot> = fc
  .record({
    kind: fc.constantFrom<"chapter" | "book">("chapter", "book"),
    number: arbLabel,
    monitored: fc.boolean(),
    owned: fc.boolean(),
    coverage: fc.constantFrom<Coverage | null>(
      null,
      null,
      "covered_unmapped",
      "covered_by_volume",
      "covered_by_chapters",
    ),
    parts: fc.integer({ min: 1, max: 3 }),
    partsOnDisk: fc.subarray([1, 2, 3]),
    held: fc.boolean(),
  })
  .map(({ held, ...s }) => ({ ...s, wanted: s.monitored && !s.owned && s.coverage === null && !held }));
const arbOffer: fc.Arbitrary<PlanOffer> = fc
  .record({
    mappingId: fc.integer({ min: 1, max: 3 }),
    kind: fc.constantFrom<"chapter" | "volume">("chapter", "volume"),
    n: arbLabel,
    part: fc.constantFrom<number | null>(null, null, 1, 2, 3),
    language: fc.constantFrom("en", "en", "fr", "de"),
    scanlator: fc.constantFrom<string | null>(null, "A", "B"),
    id: fc.integer({ min: 0, max: 5 }),
    uploadedAt: fc.option(fc.integer({ min: 0, max: 1000 })),
  })
  .map((o) => ({
    mappingId: o.mappingId,
    kind: o.kind,
    chapter: o.kind === "chapter" ? o.n : null,
    volume: o.kind === "volume" ? o.n : null,
    part: o.kind === "chapter" ? o.part : null,
    language: o.language,
    scanlator: o.scanlator,
    externalId: `e${o.id}-${o.n}-${o.part}`,
    pageCount: null,
    uploadedAt: o.uploadedAt,
  }));
const arbInput: fc.Arbitrary<PlanInput> = fc.record({
  slots: fc.uniqueArray(arbSlot, { selector: (s) => `${s.kind}:${s.number}`, maxLength: 10 }),
  offers: fc.array(arbOffer, { maxLength: 25 }),
  mappings: fc.constant([1, 2, 3].map((id) => ({ id, priority: id % 2, degraded: 0, failed: id - 1 }))),
  degraded: fc.array(
    arbOffer.map((o) => ({
      mappingId: o.mappingId,
      externalId: o.externalId,
      kind: o.kind,
      chapter: o.chapter,
      volume: o.volume,
    })),
    { maxLength: 4 },
  ),
  blocked: fc.array(
    arbOffer.map((o) => ({ mappingId: o.mappingId, externalId: o.externalId })),
    { maxLength: 4 },
  ),
  failed: fc.array(
    arbOffer.map((o) => ({ mappingId: o.mappingId, externalId: o.externalId })),
    { maxLength: 4 },
  ),
  active: fc.array(
    fc.record({
      kind: fc.constantFrom<"chapter" | "volume">("chapter", "volume"),
      chapter: arbLabel,
      volume: arbLabel,
      part: fc.constant(null),
    }),
    { maxLength: 2 },
  ),
  languages: fc.constantFrom(["en"], ["en", "fr"], ["fr", "en"]),
  maxDownloads: fc.integer({ min: 0, max: 6 }),
  backoff: fc.record({
    emptyPasses: fc.integer({ min: 0, max: 10 }),
    nextPassAt: fc.option(fc.integer({ min: NOW - H, max: NOW + H })),
  }),
  now: fc.constant(NOW),
  force: fc.boolean(),
});

const slotOf = (s: { kind: string; number: Label }) => `${s.kind}:${s.number}`;

describe("properties", () => {
  it("nothing covered, owned, covered_unmapped or unmonitored is ever queued; never above the limit; no blocked release", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const out = planWanted(inp);
        const bySlot = new Map(inp.slots.map((s) => [slotOf(s), s]));
        expect(out.downloads.length).toBeLessThanOrEqual(inp.maxDownloads);
        const blocked = new Set([...inp.degraded, ...(inp.blocked ?? [])].map((d) => `${d.mappingId}/${d.externalId}`));
        for (const d of out.downloads) {
          const slot = bySlot.get(slotOf(d.slot))!;
          expect(slot.wanted).toBe(true);
          expect(blocked.has(`${d.mappingId}/${d.externalId}`)).toBe(false);
          expect(inp.languages).toContain(d.language);
          expect(d.kind === "chapter" ? d.chapter : d.volume).toBe(slot.number);
        }
        // One ledger entry per wanted slot, none for the others.
        expect(out.ledger.map(slotOf).sort()).toEqual(inp.slots.filter(isWanted).map(slotOf).sort());
      }),
      { numRuns: 400 },
    );
  });

  it("a queued split chapter comes from one (mapping, scanlator), with every part not on disk", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const out = planWanted(inp);
        const groups = new Map<string, typeof out.downloads>();
        for (const d of out.downloads) groups.set(slotOf(d.slot), [...(groups.get(slotOf(d.slot)) ?? []), d]);
        for (const ds of groups.values()) {
          expect(new Set(ds.map((d) => `${d.mappingId}/${d.scanlator}/${d.language}`)).size).toBe(1);
          if (ds.some((d) => d.part !== null)) expect(ds.every((d) => d.part !== null)).toBe(true);
        }
        const queuedSlots = out.ledger
          .filter((e) => e.reason === "queued")
          .map(slotOf)
          .sort();
        expect([...groups.keys()].sort()).toEqual(queuedSlots);
      }),
      { numRuns: 300 },
    );
  });

  it("deterministic and independent of the order offers arrive in", () => {
    fc.assert(
      fc.property(arbInput, fc.integer(), (inp, seed) => {
        const shuffled = [...inp.offers].sort(
          (a, b) =>
            ((a.externalId.length * 31 + seed) % 7) - ((b.externalId.length * 17 + seed) % 7) ||
            a.mappingId - b.mappingId,
        );
        const ids = (o: ReturnType<typeof planWanted>) =>
          o.downloads.map((d) => `${d.mappingId}/${d.externalId}`).sort();
        expect(ids(planWanted({ ...inp, offers: shuffled }))).toEqual(ids(planWanted(inp)));
      }),
      { numRuns: 200 },
    );
  });

  it("back-off grows only when nothing is obtainable, and stays within 1 h … 24 h", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const out = planWanted(inp);
        // Only a retry of a release whose download failed lately (a split chapter: any of its parts)
        // leaves the back-off growing.
        const failed = new Set((inp.failed ?? []).map((f) => `${f.mappingId}:${f.externalId}`));
        const slotsOf = new Map<string, typeof out.downloads>();
        for (const d of out.downloads) {
          const key = `${d.slot.kind}:${d.slot.number}`;
          slotsOf.set(key, [...(slotsOf.get(key) ?? []), d]);
        }
        if ([...slotsOf.values()].some((ds) => ds.every((d) => !failed.has(`${d.mappingId}:${d.externalId}`))))
          expect(out.backoff).toEqual({ emptyPasses: 0, nextPassAt: null });
        if (out.backoff.nextPassAt !== null && out.backoff !== inp.backoff && out.backoff.emptyPasses > 0) {
          const delay = out.backoff.nextPassAt - inp.now;
          if (out.backoff.emptyPasses === inp.backoff.emptyPasses + 1) {
            expect(delay).toBeGreaterThanOrEqual(H);
            expect(delay).toBeLessThanOrEqual(BACKOFF_CAP_MS);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
