/** Units built on the real coverage index (coverage.ts), grouped as the series page shows them. */
import { describe, expect, it } from "vitest";
import { buildCoverageIndex } from "./coverage.ts";
import { groupSeriesPage } from "./grouping.ts";
import { seriesForm } from "./series-form.ts";
import { bookFile, chapterFile, labels, proofFor, snapshot, type SnapshotSpec } from "./test-fixtures.ts";
import type { Unit } from "./types.ts";
import { buildUnitsView } from "./units.ts";

const order = (units: Unit[]) => units.map((u) => `${u.kind === "book" ? "B" : "c"}${u.number}`);

describe("with the real coverage index (coverage.ts)", () => {
  const build = (spec: SnapshotSpec) => {
    const snap = snapshot(spec);
    return { snap, view: buildUnitsView(snap, buildCoverageIndex(snap, { form: seriesForm(snap.series) })) };
  };
  const finished = {
    series: { status: "finished" as const, knownBookCount: 3 },
    volumes: "1-3",
    chapters: "1-9",
    operator: { "1": "1-3", "2": "4-6", "3": "7-9" },
  };

  it("a mixed series with an exact map: plans, duplicates inside and the page groups", () => {
    const dup = chapterFile("2");
    const { view } = build({
      ...finished,
      files: [bookFile("1"), dup, chapterFile("4"), chapterFile("5"), chapterFile("6"), chapterFile("8")],
    });
    expect(view).toMatchObject({ form: "books", map: "exact", status: null });
    expect(order(view.units)).toEqual(["B1", "c1", "c2", "c3", "B2", "c4", "c5", "c6", "B3", "c7", "c8", "c9"]);
    expect(view.units.filter((u) => u.kind === "book").map((u) => u.plan)).toEqual([
      "book on disk",
      "assemble when its chapters are complete",
      "in part",
    ]);
    const page = groupSeriesPage(view, { filter: "all", reversed: false, problemsOnly: false });
    expect(page.groups[0]!.duplicates?.fileIds).toEqual([dup.id]);
    expect(page.groups[0]!.book.pageCount).toBe(200);
    expect(page.groups[1]!.book.primary?.id).toBe("assemble_book");
    expect(page.groups[2]!.coverText).toBe("1 of 3 chapters on disk");
  });

  // A hand import is suspect and covers only once verified (it used to cover on its own).
  it("a verified hand-imported book covers its missing chapters but shows no duplicates", () => {
    const book = bookFile("1", { origin: "import" });
    const { view } = build({ ...finished, files: [book, chapterFile("2")], verifications: [proofFor(book, "1-3")] });
    const ch = (n: string) => view.units.find((u) => u.kind === "chapter" && u.number === n)!;
    expect(ch("1").coverage).toBe("covered_by_volume");
    // Covered by the verified book, yet never its duplicate (a proof never retires a chapter file).
    expect(ch("2")).toMatchObject({ owned: true, coverage: "covered_by_volume", duplicateFileIds: [] });
    expect(
      groupSeriesPage(view, { filter: "all", reversed: false, problemsOnly: false }).groups[0]!.duplicates,
    ).toBeNull();
  });

  it("without a map: flat, chapters covered_unmapped by the owned book", () => {
    const { view } = build({ ...finished, operator: undefined, files: [bookFile("1"), chapterFile("2")] });
    expect(view.map).toBe("none");
    expect(order(view.units)).toEqual(["B1", "B2", "B3", ...labels("1-9").map((l) => `c${l}`)]);
    expect(view.units.find((u) => u.number === "1" && u.kind === "chapter")!.coverage).toBe("covered_unmapped");
    expect(groupSeriesPage(view, { filter: "all", reversed: false, problemsOnly: false }).layout).toBe("flat");
  });

  it("every book complete from chapters, a stray owned book: all chapters", () => {
    const files = [bookFile("2"), ...labels("1-9").map((l) => chapterFile(l))];
    const { view } = build({ ...finished, files });
    expect(view.status).toBe("all chapters");
    const page = groupSeriesPage(view, { filter: "all", reversed: false, problemsOnly: false });
    expect(page.groups[1]!.note).toBe("Redundant: the whole series completes from chapters.");
  });

  it("a running series keeps its uncollected tail after the last book, outside every group", () => {
    const { view } = build({
      series: { status: "running", knownBookCount: 2 },
      volumes: "1-2",
      chapters: "1-12",
      operator: { "1": "1-5", "2": "6-10" },
      files: labels("1-12").map((l) => chapterFile(l)),
    });
    expect(view).toMatchObject({ form: "chapters", map: "exact" });
    expect(order(view.units)).toEqual([
      "c1",
      "c2",
      "c3",
      "c4",
      "c5",
      "B1",
      "c6",
      "c7",
      "c8",
      "c9",
      "c10",
      "B2",
      "c11",
      "c12",
    ]);
    const page = groupSeriesPage(view, { filter: "all", reversed: false, problemsOnly: false });
    expect(page.loose?.children.map((r) => r.number)).toEqual(["11", "12"]);
  });
});
