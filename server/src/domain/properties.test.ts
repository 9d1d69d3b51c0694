/**
 * Invariants of map trust and coverage over randomly generated series (test-arbitraries.ts).
 * Runs thousands of generated series (the map editing rules are in properties-map-editing.test.ts). The method for "nothing derived from a hint": build the
 * index from the snapshot and from the same snapshot with the hints removed or changed; every
 * field a decision reads must be identical.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCoverageIndex, previewMapChange } from "./coverage.ts";
import { labelEquals, type Label } from "./labels.ts";
import { chaptersArb, mapEntriesArb, snapshotArb, sourcesArb, volumeLabel } from "./test-arbitraries.ts";
import { seriesForm } from "./series-form.ts";
import type { CoverageIndex, FileFacts, VerificationFacts } from "./types.ts";

function check<T>(numRuns: number, property: fc.IProperty<T>): void {
  fc.assert(property, { numRuns });
}

/** The index without the display-only estimate fields. */
function decisions(index: CoverageIndex) {
  return {
    ...index,
    chapters: index.chapters.map((c) => ({ ...c, estimatedBook: null })),
    books: index.books.map((b) => ({ ...b, estimatedChapters: [] })),
  };
}

/** The saved boundaries of an index (what catalogue data or chapter counts must never move). */
function boundaries(index: CoverageIndex) {
  const { books, unknownBooks, chapterToBook, conflicts, ambiguousBooks, revision } = index.map;
  return { books, unknownBooks, chapterToBook, conflicts, ambiguousBooks, revision };
}

describe("nothing derived from a suggestion, an estimate or a hint is evidence", () => {
  it("ignores catalogue, official and estimate maps entirely", () => {
    check(
      2500,
      fc.property(snapshotArb, (snap) => {
        const trusted = {
          ...snap,
          mapSources: snap.mapSources.filter((s) => s.kind === "operator" || s.kind === "reading"),
        };
        expect(buildCoverageIndex(snap)).toEqual(buildCoverageIndex(trusted));
      }),
    );
  });

  it("ignores the volume of estimate-tagged files, whatever it says", () => {
    check(
      1500,
      fc.property(snapshotArb, volumeLabel, (snap, other) => {
        const strip = (volume: Label | null) => ({
          ...snap,
          files: snap.files.map((f) => (f.tagSource === "estimate" ? { ...f, volume } : f)),
        });
        const expected = buildCoverageIndex(strip(null));
        expect(buildCoverageIndex(snap)).toEqual(expected);
        expect(buildCoverageIndex(strip(other))).toEqual(expected);
      }),
    );
  });

  it("never lets an estimate decide: estimates off changes only the estimate fields", () => {
    check(
      1500,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        expect(decisions(index)).toEqual(buildCoverageIndex(snap, { estimates: false }));
        for (const c of index.chapters) {
          // `book` comes from the operational map only; an estimate never shows as membership.
          expect(c.book).toBe(index.map.chapterToBook.get(c.number) ?? null);
          if (c.estimatedBook !== null) expect(c.book).toBeNull();
          if (c.book === null) expect(c.coverage).not.toBe("covered_by_volume");
        }
      }),
    );
  });

  it("keeps coverage when unmapped books are added (new volume counts move only estimates)", () => {
    check(
      800,
      fc.property(snapshotArb, fc.integer({ min: 9, max: 12 }), (snap, extraBooks) => {
        const added = Array.from({ length: extraBooks - 8 }, (_, i) => ({
          id: 900 + i,
          number: String(9 + i) as Label,
          monitored: true,
        }));
        const before = buildCoverageIndex(snap, { estimates: false });
        const after = buildCoverageIndex({ ...snap, volumes: [...snap.volumes, ...added] }, { estimates: false });
        expect(after.chapters).toEqual(before.chapters);
        expect(after.books.filter((b) => !added.some((a) => a.number === b.number))).toEqual(before.books);
      }),
    );
  });
});

describe("saved boundaries", () => {
  it("never move when catalogue data or the chapters change", () => {
    check(
      1500,
      fc.property(
        snapshotArb,
        sourcesArb(["catalogue", "official", "estimate"]),
        chaptersArb,
        (snap, suggestions, chapters) => {
          const changed = {
            ...snap,
            chapters,
            mapSources: [
              ...snap.mapSources.filter((s) => s.kind === "operator" || s.kind === "reading"),
              ...suggestions,
            ],
          };
          expect(boundaries(buildCoverageIndex(changed))).toEqual(boundaries(buildCoverageIndex(snap)));
        },
      ),
    );
  });

  it("never assign a contested chapter, let alone to the higher volume", () => {
    check(
      800,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        for (const [chapter, books] of index.map.conflicts) {
          expect(books.length).toBeGreaterThan(1);
          expect(index.map.chapterToBook.has(chapter)).toBe(false);
          const state = index.chapters.find((c) => c.number === chapter);
          expect(state).toMatchObject({ book: null, ambiguous: true, duplicateFileIds: [] });
          expect(state?.coverage).not.toBe("covered_by_volume");
          for (const b of books) expect(index.map.ambiguousBooks.has(b)).toBe(true);
        }
      }),
    );
  });

  it("survive a dry run of themselves unchanged", () => {
    check(
      300,
      fc.property(snapshotArb, (snap) => {
        // Several operator sources are one voice (united per book), so their entries together are the map.
        const current = snap.mapSources.filter((s) => s.kind === "operator").flatMap((s) => s.entries);
        const preview = previewMapChange(snap, current);
        expect(preview).toMatchObject({
          chapters: [],
          books: [],
          becomeDuplicateFileIds: [],
          stopDuplicateFileIds: [],
        });
      }),
    );
  });
});

describe("coverage invariants", () => {
  it("never wants what is covered, on disk or unmonitored", () => {
    check(
      1000,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        for (const c of index.chapters) {
          if (c.coverage === "covered_unmapped") expect(c.wanted).toBe(false);
          if (c.wanted)
            expect([c.coverage, c.onDisk, c.monitored, c.slotId !== null, snap.series.monitored]).toEqual([
              null,
              false,
              true,
              true,
              true,
            ]);
        }
        for (const c of index.chapters) if (c.wanted) expect(c.held).toBe(false);
        for (const b of index.books) {
          if (b.wanted)
            expect([b.owned && !b.replace, b.coverage, b.monitored, b.extra]).toEqual([false, null, true, false]);
          // Only the size asks for a replacement, and never while a proof applies.
          if (b.replace) expect([b.suspect, b.verified, b.coversChapters]).toEqual(["oversized pack", false, false]);
        }
      }),
    );
  });

  it("never puts a split chapter with a missing part on disk", () => {
    check(
      1000,
      fc.property(snapshotArb, (snap) => {
        for (const c of buildCoverageIndex(snap).chapters) {
          const complete = Array.from({ length: c.parts }, (_, i) => i + 1).every((p) => c.partsOnDisk.includes(p));
          expect(c.onDisk).toBe(complete);
        }
      }),
    );
  });

  it("finds duplicates only inside owned books that cover every chapter of the file", () => {
    check(
      1000,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        const books = new Map(index.books.map((b) => [b.number, b]));
        const retiring = new Set(
          snap.files
            .filter(
              (f) =>
                f.kind === "book" &&
                (f.origin === "download" || f.origin === "assembled") &&
                f.tagSource !== "estimate",
            )
            .map((f) => f.volume),
        );
        for (const c of index.chapters) {
          if (c.duplicateFileIds.length === 0) continue;
          expect(c.coverage).toBe("covered_by_volume");
          const book = books.get(c.book as Label);
          expect(book).toMatchObject({ owned: true, coversChapters: true });
          expect([...retiring].some((v) => v !== null && labelEquals(v, c.book as Label))).toBe(true);
          for (const id of c.duplicateFileIds) expect(book?.duplicateFileIds).toContain(id);
        }
      }),
    );
  });

  it("covers a book by chapters only from saved boundaries", () => {
    check(
      800,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        const chapters = new Map(index.chapters.map((c) => [c.number, c]));
        for (const b of index.books) {
          if (b.coverage !== "covered_by_chapters") continue;
          expect(index.map.books.size).toBeGreaterThan(0);
          expect(b.ambiguous || index.map.unknownBooks.has(b.number)).toBe(false);
          for (const c of b.chapters ?? []) if (!chapters.get(c)?.extra) expect(chapters.get(c)?.onDisk).toBe(true);
        }
      }),
    );
  });
});

describe("verified books: a proof lapses by itself and never retires a chapter file", () => {
  it("a proof that does not apply (stale digest or changed map entry) changes nothing", () => {
    check(
      1000,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        const stale = (v: VerificationFacts, i: number): VerificationFacts =>
          i % 2 === 0 ? { ...v, digest: "sha256:stale" } : { ...v, chapters: [...v.chapters, "99" as Label] };
        const withStale = buildCoverageIndex({ ...snap, verifications: snap.verifications.map(stale) });
        const without = buildCoverageIndex({ ...snap, verifications: [] });
        expect(withStale).toEqual(without);
        // The stale proofs the generator already made are inert too: every verified book's proof applies.
        for (const b of index.books)
          if (b.verified) expect(snap.verifications.some((v) => v.volume === b.number)).toBe(true);
      }),
    );
  });

  it("a verified book never adds a duplicate, and a sound book gains nothing from a proof", () => {
    check(
      1000,
      fc.property(snapshotArb, (snap) => {
        const withProofs = buildCoverageIndex(snap);
        const without = buildCoverageIndex({ ...snap, verifications: [] });
        const dupes = (i: CoverageIndex) => new Set(i.chapters.flatMap((c) => c.duplicateFileIds));
        const before = dupes(without);
        for (const id of dupes(withProofs)) expect(before.has(id)).toBe(true);
        for (const b of withProofs.books) {
          const plain = without.books.find((x) => x.number === b.number);
          expect(b.duplicateFileIds).toEqual(plain?.duplicateFileIds);
          if (b.suspect === null) expect({ ...b, verified: false }).toEqual(plain);
        }
      }),
    );
  });
});

describe("suspect books and proofs: suspect covers nothing, a proof lifts only the doubt", () => {
  const sound = (f: FileFacts) =>
    f.kind === "book" && f.tagSource !== "estimate" && (f.origin === "download" || f.origin === "assembled");

  it("a suspect book never covers on its own; covered_unmapped needs a book the service got itself", () => {
    check(
      1500,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        const books = new Map(index.books.map((b) => [b.number, b]));
        for (const b of index.books) if (b.suspect !== null && !b.verified) expect(b.coversChapters).toBe(false);
        for (const c of index.chapters) {
          if (c.coverage === "covered_by_volume") {
            expect(index.map.state).toBe("exact");
            const b = books.get(c.book as Label);
            expect(b?.owned && (b.suspect === null || b.verified)).toBe(true);
          }
          if (c.coverage === "covered_unmapped") expect(snap.files.some(sound)).toBe(true);
        }
        // Without a proof, nothing scanned, imported or translated covers anything.
        const unproven = buildCoverageIndex({ ...snap, verifications: [], files: snap.files.filter((f) => !sound(f)) });
        for (const c of unproven.chapters)
          if (c.coverage !== null) expect(unproven.books.find((b) => b.number === c.book)?.provenAssembly).toBe(true);
      }),
    );
  });

  it("no proof, page evidence or suspect book ever retires a file", () => {
    check(
      1500,
      fc.property(snapshotArb, fc.nat(), (snap, pick) => {
        const retiring = new Set(
          snap.files
            .filter(sound)
            .map((f) => f.volume)
            .filter((v): v is Label => v !== null),
        );
        const index = buildCoverageIndex(snap);
        for (const b of index.books)
          if (b.duplicateFileIds.length > 0) expect([...retiring].some((v) => labelEquals(v, b.number))).toBe(true);
        // Adopting page evidence = saving the book's operator entry and recording the proof: the
        // suspect book covers from then on, and still retires nothing.
        const suspects = index.books.filter((b) => b.owned && b.suspect !== null && b.provenAssembly === false);
        const b = suspects[pick % Math.max(1, suspects.length)];
        if (!b) return;
        const file = snap.files.find((f) => b.fileIds.includes(f.id) && f.kind === "book");
        if (!file) return;
        const chapters = index.chapters.filter((c) => c.book === null && !c.ambiguous).slice(0, 3);
        if (chapters.length === 0) return;
        const entry = { volume: b.number, chapters: chapters.map((c) => c.number) };
        const operator = snap.mapSources.find((m) => m.kind === "operator");
        const others = snap.mapSources.filter((m) => m.kind !== "operator");
        const entries = [...(operator?.entries ?? []).filter((e) => !labelEquals(e.volume, b.number)), entry];
        const adopted = buildCoverageIndex({
          ...snap,
          mapSources: [...others, { id: 9, kind: "operator", name: "operator", revision: 9, entries }],
          verifications: [
            ...snap.verifications.filter((v) => !labelEquals(v.volume, b.number)),
            {
              volume: b.number,
              fileId: file.id,
              digest: `sha256:${file.sha256}`,
              chapters: entry.chapters,
              sourceUrl: null,
              note: "page evidence",
              createdAt: "2024-01-01T00:00:00.000Z",
            },
          ],
        });
        const after = adopted.books.find((x) => x.number === b.number);
        expect(after?.suspect).toBe(b.suspect);
        expect(after?.duplicateFileIds).toEqual([]);
        for (const c of adopted.chapters) if (c.book === b.number) expect(c.duplicateFileIds).toEqual([]);
      }),
    );
  });
});

describe("one definition of wanted (coverage.ts)", () => {
  it("a books-form chapter is wanted only through an explicit assignment to a wanted book", () => {
    check(
      1500,
      fc.property(snapshotArb, (snap) => {
        const index = buildCoverageIndex(snap);
        if (seriesForm(snap.series) !== "books") return;
        const books = new Map(index.books.map((b) => [b.number, b]));
        for (const c of index.chapters)
          if (c.wanted) expect(c.book !== null && books.get(c.book)?.wanted === true).toBe(true);
      }),
    );
  });

  it("the map dry run shows the wanted flags the Wanted pass reads, before and after", () => {
    check(
      500,
      fc.property(snapshotArb, mapEntriesArb, (snap, entries) => {
        const preview = previewMapChange(snap, entries);
        const before = new Map(buildCoverageIndex(snap).chapters.map((c) => [c.number, c.wanted]));
        for (const c of preview.chapters) expect(c.before.wanted).toBe(before.get(c.number) ?? false);
      }),
    );
  });

  it("the managed edition governs the books, whatever the order the slots arrived in", () => {
    check(
      1000,
      fc.property(snapshotArb, fc.integer({ min: 1, max: 6 }), (snap, extra) => {
        const count = snap.series.editionBookCount ?? snap.series.knownBookCount;
        if (count === null) return;
        // Slots a larger count once created: unnamed by any file or map entry, they change nothing.
        const later = Array.from({ length: extra }, (_, i) => ({
          id: 900 + i,
          number: String(count + 1 + i) as Label,
          monitored: true,
        }));
        const named = new Set([
          ...snap.files.map((f) => f.volume),
          ...snap.mapSources.flatMap((m) => m.entries.map((e) => e.volume)),
        ]);
        const unnamed = later.filter((v) => ![...named].some((n) => n !== null && labelEquals(n, v.number)));
        const a = buildCoverageIndex(snap);
        const b = buildCoverageIndex({ ...snap, volumes: [...snap.volumes, ...unnamed] });
        expect(decisions(b)).toEqual(decisions(a));
        for (const book of a.books) if (book.extra) expect(book.wanted).toBe(false);
      }),
    );
  });
});
