import { describe, expect, it } from "vitest";
import {
  assignmentRefusal,
  bookNamedBy,
  describeFiles,
  matchRequestedBooks,
  withoutBook,
  type PendingBook,
} from "./torrent-assignment.ts";

const file = (name: string, progress = 1) => ({ name, size: 1000, progress });

describe("which file of a torrent is named for which book", () => {
  it.each([
    ["Blue Harbor v01-05 (Digital)/Blue Harbor v02 (Digital).cbz", "2"],
    ["Blue Harbor v03.cbz", "3"],
    ["Blue Harbor Vol. 4.zip", "4"],
    ["Blue Harbor v01-05 (Digital)/Blue Harbor v01-02.cbz", null], // a pack inside the pack
    ["Blue Harbor - Second Book.cbz", null], // no number
    ["Blue Harbor c012.cbz", null], // a chapter, not a book
  ])("%s → %s", (name, book) => {
    expect(bookNamedBy(name, "Blue Harbor")).toBe(book);
  });

  it("lists every file sorted, with the format and why it may not be assigned", () => {
    const view = describeFiles(
      [file("P/Blue Harbor v02.pdf"), file("P/Blue Harbor v01.cbz", 0.5), file("P/notes.nfo"), file("P/b.CBZ")],
      "Blue Harbor",
    );
    expect(view.map((f) => [f.name, f.format, f.assignable, f.refusal, f.namedBook])).toEqual([
      ["P/b.CBZ", "archive", true, null, null],
      ["P/Blue Harbor v01.cbz", "archive", false, "incomplete", "1"],
      ["P/Blue Harbor v02.pdf", "other_book", false, "unsupported_format", "2"],
      ["P/notes.nfo", "other", false, "unsupported_format", null],
    ]);
  });
});

describe("requested books against the torrent's files", () => {
  const files = [
    file("R/Reef Line v01.cbz"),
    file("R/Reef Line - Second Book.cbz"),
    file("R/Reef Line v03.cbz"),
    file("R/Reef Line v03 (alt scan).cbz"),
    file("R/Reef Line v04.pdf"),
    file("R/Reef Line v05.cbz"),
  ];

  it("imports a book one archive is named for; the others wait, saying why (never the first in sort order)", () => {
    const m = matchRequestedBooks(["1", "2", "3", "4"], files, "Reef Line");
    expect([...m.found]).toEqual([["1", "R/Reef Line v01.cbz"]]);
    expect(m.pending.map((p) => [p.book, p.reason])).toEqual([
      ["2", "not_found_by_name"],
      ["3", "ambiguous"],
      ["4", "not_found_by_name"], // a PDF is no archive
    ]);
    expect(m.pending[1]!.detail).toContain("Reef Line v03 (alt scan).cbz");
  });

  it("matches labels exactly as numbers (01 is 1), and ignores books nobody asked for", () => {
    const m = matchRequestedBooks(["5"], files, "Reef Line");
    expect([...m.found]).toEqual([["5", "R/Reef Line v05.cbz"]]);
    expect(m.pending).toEqual([]);
  });
});

describe("an operator's assignment", () => {
  const pending: PendingBook[] = [
    { book: "2", reason: "not_found_by_name", detail: "" },
    { book: "3", reason: "ambiguous", detail: "" },
  ];
  const job = { state: "awaiting_assignment", pending };
  const files = describeFiles(
    [file("R/Second.cbz"), file("R/v03.pdf"), file("R/partial.cbz", 0.4), file("R/Reef Line v01.cbz")],
    "Reef Line",
  );

  it("may assign any complete archive to a waiting book, even one named for another book", () => {
    expect(assignmentRefusal(job, files, "R/Second.cbz", "2")).toBeNull();
    expect(assignmentRefusal(job, files, "R/Reef Line v01.cbz", "3.0")).toBeNull();
  });

  it.each([
    [{ state: "imported", pending }, "R/Second.cbz", "2", "torrent_job_not_awaiting_assignment"],
    [job, "R/Second.cbz", "1", "torrent_book_not_pending"],
    [job, "R/missing.cbz", "2", "torrent_file_not_found"],
    [job, "R/v03.pdf", "3", "torrent_file_not_assignable"],
    [job, "R/partial.cbz", "3", "torrent_file_not_assignable"],
  ])("refuses %#", (j, name, book, code) => {
    expect(assignmentRefusal(j, files, name, book)?.code).toBe(code);
  });

  it("takes the assigned book off the list", () => {
    expect(withoutBook(pending, "2.0").map((p) => p.book)).toEqual(["3"]);
  });
});
