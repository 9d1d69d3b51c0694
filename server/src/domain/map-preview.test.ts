import { describe, expect, it } from "vitest";
import { previewMapChange } from "./coverage.ts";
import { bookFile, chapterFile, mapEntries, snapshot, type SnapshotSpec } from "./test-fixtures.ts";

describe("previewMapChange (PUT/DELETE …/chapter-map?dry_run=true)", () => {
  const book1 = bookFile("1");
  const file2 = chapterFile("2");
  const file5 = chapterFile("5");
  const base: SnapshotSpec = { chapters: "1-6", volumes: "1-2", files: [book1, file2, file5] };

  it("shows chapters becoming covered and files becoming duplicates when a map is saved", () => {
    const preview = previewMapChange(snapshot(base), mapEntries({ "1": "1-3", "2": "4-6" }));
    expect(preview).toMatchObject({
      revision: 0,
      mapBefore: "none",
      mapAfter: "exact",
      becomeDuplicateFileIds: [file2.id],
      stopDuplicateFileIds: [],
    });
    const two = preview.chapters.find((c) => c.number === "2");
    expect(two).toEqual({
      number: "2",
      before: { coverage: "covered_unmapped", book: null, wanted: false },
      after: { coverage: "covered_by_volume", book: "1", wanted: false },
      becomeDuplicates: [file2.id],
      stopDuplicates: [],
    });
    const four = preview.chapters.find((c) => c.number === "4");
    expect(four?.after).toEqual({ coverage: null, book: "2", wanted: true });
    const b1 = preview.books.find((b) => b.number === "1");
    expect(b1).toMatchObject({
      before: { coversChapters: false, chapters: null },
      after: { coversChapters: true, chapters: ["1", "2", "3"] },
      becomeDuplicates: [file2.id],
    });
  });

  it("shows duplicates disappearing when the map is removed ([] or null)", () => {
    const spec = { ...base, operator: { "1": "1-3", "2": "4-6" } };
    for (const entries of [[], null]) {
      const preview = previewMapChange(snapshot(spec), entries);
      expect(preview).toMatchObject({
        revision: 1,
        mapBefore: "exact",
        mapAfter: "none",
        becomeDuplicateFileIds: [],
        stopDuplicateFileIds: [file2.id],
      });
      expect(preview.chapters.find((c) => c.number === "2")?.stopDuplicates).toEqual([file2.id]);
    }
  });

  it("lists nothing when the map does not change", () => {
    const spec = { ...base, operator: { "1": "1-3", "2": "4-6" } };
    const preview = previewMapChange(snapshot(spec), mapEntries({ "1": "1-3", "2": "4-6" }));
    expect(preview).toMatchObject({ chapters: [], books: [], becomeDuplicateFileIds: [], stopDuplicateFileIds: [] });
  });

  it("shows a moved boundary: one chapter changes book, its file stops being a duplicate", () => {
    const spec = { ...base, files: [book1, chapterFile("3")], operator: { "1": "1-3", "2": "4-6" } };
    const snap = snapshot(spec);
    const file3 = snap.files[1]?.id;
    const preview = previewMapChange(snap, mapEntries({ "1": "1-2", "2": "3-6" }));
    expect(preview.chapters.map((c) => [c.number, c.before.book, c.after.book])).toEqual([["3", "1", "2"]]);
    expect(preview.stopDuplicateFileIds).toEqual([file3]);
    expect(preview.books.map((b) => b.number)).toEqual(["1", "2"]);
  });

  it("keeps readings and suggestions as they are", () => {
    const spec = { ...base, reading: { "2": "4-6" }, catalogue: { "1": "1-3" } };
    const preview = previewMapChange(snapshot(spec), []);
    expect(preview).toMatchObject({ mapBefore: "partial", mapAfter: "partial", chapters: [], books: [] });
  });

  it("shows a new conflict as chapters leaving their book", () => {
    const spec = { ...base, operator: { "1": "1-3", "2": "4-6" } };
    const preview = previewMapChange(snapshot(spec), mapEntries({ "1": "1-4", "2": "4-6" }));
    const four = preview.chapters.find((c) => c.number === "4");
    expect(four?.before.book).toBe("2");
    expect(four?.after.book).toBeNull();
  });
});
