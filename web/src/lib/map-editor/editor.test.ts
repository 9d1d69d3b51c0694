import { describe, expect, it } from "vitest";
import {
  addRow,
  adoptionVolumes,
  adoptSuggestion,
  impliedEnd,
  initialForm,
  makeRow,
  notesForRow,
  notesWithoutRow,
  removeRow,
  sameStarts,
  sentence,
  startsFromRows,
} from "./editor";
import type { MapSuggestion } from "./types";

const strip = (rows: { volume: string; start: string }[]) => rows.map((r) => ({ volume: r.volume, start: r.start }));

describe("editor rows", () => {
  it("opens with the saved map: its starts, unknown books kept, the last end", () => {
    const form = initialForm(
      {
        entries: [
          { volume: "1", chapters: ["1", "2", "3"] },
          { volume: "2", chapters: ["7", "8"] },
          { volume: "3", chapters: [] },
          { volume: "4", chapters: ["12", "12.5"] },
        ],
        bookStarts: [
          { volume: "1", start: "1" },
          { volume: "2", start: "7" },
          { volume: "4", start: "12" },
        ],
      },
      ["9"],
    );
    expect(strip(form.rows)).toEqual([
      { volume: "1", start: "1" },
      { volume: "2", start: "7" },
      { volume: "3", start: "" },
      { volume: "4", start: "12" },
    ]);
    expect(form.lastEnd).toBe("12.5");
    expect(
      initialForm(
        {
          entries: [
            { volume: "1", chapters: ["1"] },
            { volume: "2", chapters: [] },
          ],
          bookStarts: [{ volume: "1", start: "1" }],
        },
        [],
      ).lastEnd,
    ).toBe("");
  });

  it("opens without a map with the known books in the service's order, else book 1", () => {
    const none = { entries: [], bookStarts: [] };
    expect(strip(initialForm(none, ["1", "2", "10", "2"]).rows)).toEqual([
      { volume: "1", start: "" },
      { volume: "2", start: "" },
      { volume: "10", start: "" },
    ]);
    expect(strip(initialForm(none, []).rows)).toEqual([{ volume: "1", start: "" }]);
    expect(initialForm(none, []).lastEnd).toBe("");
  });

  it("adds the book the service names next and removes a row", () => {
    const rows = [makeRow("1", "1"), makeRow("2.5", "9")];
    // The service's `nextWhole` for ["1", "2.5"].
    const more = addRow(rows, "3");
    expect(more.at(-1)?.volume).toBe("3");
    expect(addRow([], "1").at(-1)?.volume).toBe("1");
    expect(removeRow(more, rows[0]!.id).map((r) => r.volume)).toEqual(["2.5", "3"]);
    expect(new Set(more.map((r) => r.id)).size).toBe(3);
  });

  it("sends complete rows and names the half-filled ones", () => {
    const a = makeRow("1", " 1 ");
    const b = makeRow("2", "");
    const c = makeRow("", "");
    const d = makeRow("", "7");
    const input = startsFromRows([a, b, c, d]);
    expect(input.starts).toEqual([{ volume: "1", start: "1" }]);
    expect(input.missing).toEqual([
      { id: b.id, message: "Enter the chapter where book 2 starts, or remove the row." },
      { id: d.id, message: "Enter the book number." },
    ]);
  });

  it("places the plan's messages on their row", () => {
    const rows = [makeRow("01", "1"), makeRow("2", "1")];
    const notes = [
      { code: "starts_not_increasing", message: "book 2 starts at 1, not after book 1 (1)", volume: "2" },
      { code: "duplicate_volume", message: "book 1 is listed twice", volume: "1" },
      { code: "invalid_chapter", message: 'end "x" is not an exact number', volume: null },
      { code: "x", message: "book 9", volume: "9" },
    ];
    expect(notesForRow(notes, rows[0]!).map((n) => n.code)).toEqual(["duplicate_volume"]);
    expect(notesForRow(notes, rows[1]!).map((n) => n.code)).toEqual(["starts_not_increasing"]);
    expect(notesWithoutRow(notes, rows).map((n) => n.code)).toEqual(["invalid_chapter", "x"]);
    expect(sentence("book 1 is listed twice")).toBe("Book 1 is listed twice.");
    expect(sentence("Done.")).toBe("Done.");
  });

  it("shows the implied end from the plan", () => {
    const entries = [
      { volume: "1", chapters: ["1", "2", "2.5", "3"] },
      { volume: "2", chapters: [] },
    ];
    expect(impliedEnd(entries, "01")).toEqual({ end: "3", count: 4 });
    expect(impliedEnd(entries, "2")).toEqual({ end: null, count: 0 });
    expect(impliedEnd(entries, "3")).toBeNull();
  });

  it("compares starts regardless of order and spelling", () => {
    expect(
      sameStarts(
        [
          { volume: "1", start: "01" },
          { volume: "2", start: "7" },
        ],
        [
          { volume: "2", start: "7" },
          { volume: "1", start: "1" },
        ],
      ),
    ).toBe(true);
    expect(sameStarts([{ volume: "1", start: "1" }], [{ volume: "1", start: "2" }])).toBe(false);
  });
});

describe("adopting a suggestion", () => {
  const suggestion: MapSuggestion = {
    source: "catalogue:test",
    kind: "CATALOGUE",
    revision: 1,
    entries: [
      {
        volume: "1",
        chapters: ["1", "2", "3", "4", "5", "6"],
        status: "OPEN",
        adoptable: ["1", "2", "3", "4", "5", "6"],
        conflicts: [],
      },
      { volume: "2", chapters: ["7", "8", "9", "10", "11", "12"], status: "OPEN", adoptable: [], conflicts: [] },
      { volume: "3", chapters: [], status: "OPEN", adoptable: [], conflicts: [] },
    ],
  };

  it("fills each book's start and the last book's end", () => {
    const rows = [makeRow("1"), makeRow("2", "99")];
    expect(adoptionVolumes(rows, suggestion)).toEqual(["1", "2", "1", "2", "3"]);
    const out = adoptSuggestion(rows, suggestion, null, ["1", "2", "3"]);
    expect(strip(out.rows)).toEqual([
      { volume: "1", start: "1" },
      { volume: "2", start: "7" },
    ]);
    expect(out.rows[0]!.id).toBe(rows[0]!.id);
    expect(out.lastEnd).toBe("12");
    expect(out.volumes).toEqual(["1", "2"]);
  });

  it("keeps other books and leaves the end alone when a later book follows", () => {
    const rows = [makeRow("3", "13")];
    const out = adoptSuggestion(rows, suggestion, "20", ["1", "2", "3"]);
    expect(strip(out.rows)).toEqual([
      { volume: "1", start: "1" },
      { volume: "2", start: "7" },
      { volume: "3", start: "13" },
    ]);
    expect(out.lastEnd).toBe("20");
  });

  it("places the rows in the service's order, empty and unknown rows last", () => {
    const rows = [makeRow(""), makeRow("10", "40"), makeRow("x"), makeRow("02.50", "9")];
    // The service's answer for these numbers: "x" and "" are not numbers, "02.50" is "2.5".
    const out = adoptSuggestion(rows, suggestion, null, ["1", "2", "2.5", "3", "10"]);
    expect(strip(out.rows)).toEqual([
      { volume: "1", start: "1" },
      { volume: "2", start: "7" },
      { volume: "02.50", start: "9" },
      { volume: "10", start: "40" },
      { volume: "x", start: "" },
      { volume: "", start: "" },
    ]);
    expect(out.lastEnd).toBeNull();
  });
});
