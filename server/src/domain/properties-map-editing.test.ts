/**
 * Invariants of the map editing rules over randomly generated series (test-arbitraries.ts) and
 * catalogue suggestions generated from MangaDex aggregates: estimates, adoption, book starts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aggregateSuggestion } from "./catalogue.ts";
import { buildCoverageIndex } from "./coverage.ts";
import { estimateBooks } from "./estimates.ts";
import { parseLabel, sortLabels } from "./labels.ts";
import { adoptSuggestion, entriesFromBookStarts, validateOperatorEntries } from "./map-trust.ts";
import { mapEntriesArb, snapshotArb } from "./test-arbitraries.ts";
import { aggregateArb } from "./test-catalogue-arbitraries.ts";
import type { CoverageIndex, MapEntryFacts, MapSourceFacts } from "./types.ts";

function check<T>(numRuns: number, property: fc.IProperty<T>): void {
  fc.assert(property, { numRuns });
}

describe("map editing rules", () => {
  it("estimates only unmapped main chapters into unmapped books", () => {
    check(
      800,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap, { estimates: false });
        const estimates = estimateBooks(
          snap.chapters,
          snap.volumes.map((v) => v.number),
          index.map,
        );
        for (const [chapter, book] of estimates) {
          expect(index.map.chapterToBook.has(chapter) || index.map.conflicts.has(chapter)).toBe(false);
          expect(index.map.books.has(book)).toBe(false);
          expect(snap.chapters.find((c) => c.number === chapter)?.extra).toBe(false);
        }
      }),
    );
  });

  it("adopts suggestions into an operator map without contradictions", () => {
    check(
      300,
      fc.property(mapEntriesArb, mapEntriesArb, (operator, suggestion) => {
        fc.pre(validateOperatorEntries(operator).length === 0);
        const result = adoptSuggestion(operator, suggestion);
        expect(validateOperatorEntries(result.entries)).toEqual([]);
        for (const e of operator)
          expect(result.entries.find((x) => x.volume === e.volume)?.chapters).toEqual(sortLabels(e.chapters));
      }),
    );
  });

  it("turns increasing book starts into a valid operator map", () => {
    check(
      300,
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 10 }),
        (starts, tail) => {
          const sorted = [...starts].sort((a, b) => a - b);
          const input = sorted.map((start, i) => ({ volume: String(i + 1), start: String(start) }));
          const last = (sorted[sorted.length - 1] ?? 0) + tail;
          const result = entriesFromBookStarts(input, [], { lastEnd: String(last) });
          expect(result.problems).toEqual([]);
          expect(validateOperatorEntries(result.entries)).toEqual([]);
          expect(result.entries.flatMap((e) => e.chapters)).toHaveLength(last - (sorted[0] ?? 0) + 1);
        },
      ),
    );
  });
});

describe("catalogue suggestions generated from MangaDex aggregates", () => {
  const asSource = (entries: MapEntryFacts[]): MapSourceFacts => ({
    id: 990,
    kind: "catalogue",
    name: "catalogue:mangadex",
    revision: 1,
    entries,
  });

  it("never make a chapter covered or a file a duplicate", () => {
    check(
      2000,
      fc.property(snapshotArb, aggregateArb, (snap, aggregate) => {
        const { entries } = aggregateSuggestion(aggregate);
        const before = buildCoverageIndex(snap);
        const after = buildCoverageIndex({ ...snap, mapSources: [...snap.mapSources, asSource(entries)] });
        expect(after).toEqual(before);
        const covered = (i: CoverageIndex) =>
          i.chapters.filter((c) => c.coverage === "covered_by_volume").map((c) => c.number);
        const dupes = (i: CoverageIndex) => i.chapters.flatMap((c) => c.duplicateFileIds);
        expect(covered(after)).toEqual(covered(before));
        expect(dupes(after)).toEqual(dupes(before));
      }),
    );
  });

  it("place every chapter in at most one book: a contested or `none` chapter in no book", () => {
    check(
      2000,
      fc.property(aggregateArb, (aggregate) => {
        const s = aggregateSuggestion(aggregate);
        const placed = s.entries.flatMap((e) => e.chapters);
        expect(new Set(placed).size).toBe(placed.length);
        for (const c of s.conflicts) {
          expect(c.volumes.length).toBeGreaterThan(1);
          expect(placed).not.toContain(c.chapter);
        }
        for (const c of s.noBook) expect(placed).not.toContain(c);
        // A chapter placed in a book is listed under that book's volume and under no other volume.
        for (const e of s.entries)
          for (const c of e.chapters) {
            const under = aggregate.filter(
              (v) => v.volume.trim().toLowerCase() !== "none" && v.chapters.some((x) => parseLabel(x) === c),
            );
            expect(new Set(under.map((v) => parseLabel(v.volume) ?? v.volume))).toEqual(new Set([e.volume]));
          }
      }),
    );
  });

  it("adopted whole, never give a contested chapter to any book", () => {
    check(
      1000,
      fc.property(mapEntriesArb, aggregateArb, (operator, aggregate) => {
        fc.pre(validateOperatorEntries(operator).length === 0);
        const s = aggregateSuggestion(aggregate);
        const result = adoptSuggestion(operator, s.entries);
        expect(validateOperatorEntries(result.entries)).toEqual([]);
        const adopted = result.entries.filter((e) => result.adopted.includes(e.volume)).flatMap((e) => e.chapters);
        for (const c of s.conflicts) expect(adopted).not.toContain(c.chapter);
        for (const c of s.noBook) expect(adopted).not.toContain(c);
      }),
    );
  });
});
