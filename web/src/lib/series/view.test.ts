import { describe, expect, it } from "vitest";
import type { BookGroup, PageRow, RowAction, SeriesPage } from "$lib/types";
import {
  actionHref,
  emptyViewText,
  isEmptyPage,
  isOpen,
  offersAssembly,
  parseViewOptions,
  viewOptionsSearch,
  windowPage,
} from "./view";

function row(kind: PageRow["kind"], number: string, extra: Partial<PageRow> = {}): PageRow {
  return {
    key: `${kind.toLowerCase()}:${number}`,
    kind,
    number,
    title: `${kind === "BOOK" ? "Book" : "Chapter"} ${number}`,
    owned: false,
    ownedText: "Not owned",
    monitored: true,
    pageCount: null,
    planText: null,
    fileIds: [],
    problems: [],
    estimateHint: null,
    primary: null,
    menu: [],
    ...extra,
  };
}

function group(book: string, chapters: string[], collapsed: boolean): BookGroup {
  return {
    key: `book:${book}`,
    book: row("BOOK", book, { owned: collapsed }),
    collapsed,
    coverText: null,
    duplicates: null,
    note: null,
    children: chapters.map((c) => row("CHAPTER", c)),
  };
}

function page(extra: Partial<SeriesPage> = {}): SeriesPage {
  return {
    seriesId: 1,
    form: "BOOKS",
    map: "EXACT",
    status: null,
    planWording: "BOOKS_FIRST",
    layout: "GROUPED",
    groups: [],
    sections: [],
    loose: null,
    notice: null,
    offerMapEditor: false,
    ...extra,
  };
}

const grouped = page({
  groups: [group("1", ["1", "2", "3"], true), group("2", ["4", "5", "6"], false), group("3", ["7", "8"], false)],
  loose: { key: "no-book", title: "Chapters without a book", children: [row("CHAPTER", "8.5")] },
});

describe("toolbar state in the URL", () => {
  it("reads the filter, order and problems, defaulting what is unknown", () => {
    expect(parseViewOptions(new URLSearchParams("filter=missing&order=desc&problems=1"))).toEqual({
      filter: "MISSING",
      reversed: true,
      problemsOnly: true,
    });
    expect(parseViewOptions(new URLSearchParams("filter=bogus&order=up&problems=yes"))).toEqual({
      filter: "ALL",
      reversed: false,
      problemsOnly: false,
    });
  });

  it("writes only what differs from the default and keeps other parameters", () => {
    const current = new URLSearchParams("filter=missing&x=1");
    expect(viewOptionsSearch(current, { filter: "ALL", reversed: false, problemsOnly: false })).toBe("?x=1");
    expect(viewOptionsSearch(new URLSearchParams(), { filter: "DOWNLOADED", reversed: true, problemsOnly: true })).toBe(
      "?filter=downloaded&order=desc&problems=1",
    );
    expect(viewOptionsSearch(new URLSearchParams(), { filter: "ALL", reversed: false, problemsOnly: false })).toBe("");
  });

  it("round-trips", () => {
    const o = { filter: "MONITORED", reversed: true, problemsOnly: false } as const;
    expect(parseViewOptions(new URLSearchParams(viewOptionsSearch(new URLSearchParams(), o)))).toEqual(o);
  });

  it("names the filter that hides everything", () => {
    expect(emptyViewText({ filter: "MISSING", reversed: false, problemsOnly: false })).toBe(
      "No book or chapter matches the Missing filter.",
    );
    expect(emptyViewText({ filter: "ALL", reversed: true, problemsOnly: true })).toMatch(
      /^Problems only hides everything/,
    );
    expect(emptyViewText({ filter: "MONITORED", reversed: false, problemsOnly: true })).toMatch(
      /Monitored filter with Problems only/,
    );
  });
});

describe("actions", () => {
  const a = (id: RowAction["id"]): RowAction => ({ id, label: id });

  it("sees whether any book offers assembly", () => {
    expect(offersAssembly(grouped)).toBe(false);
    const g = group("4", [], false);
    g.book.primary = a("ASSEMBLE_BOOK");
    expect(offersAssembly(page({ groups: [g] }))).toBe(true);
  });
});

describe("windowPage", () => {
  it("renders everything within the limit, closed groups as their book row only", () => {
    const w = windowPage(grouped, new Map(), 1_000);
    expect(w.blocks.map((b) => b.key)).toEqual(["book:1", "book:2", "book:3", "no-book"]);
    const first = w.blocks[0];
    expect(first?.type === "group" && first.open).toBe(false);
    expect(first?.type === "group" && first.children).toEqual([]);
    // 3 book rows + 3 + 2 open children + 1 loose row
    expect(w.total).toBe(9);
    expect(w.shown).toBe(9);
  });

  it("follows the user's choice over the server's collapsed flag", () => {
    const choices = new Map([
      ["book:1", true],
      ["book:2", false],
    ]);
    expect(isOpen(grouped.groups[0]!, choices)).toBe(true);
    const w = windowPage(grouped, choices, 1_000);
    expect(w.total).toBe(3 + 3 + 2 + 1);
    const second = w.blocks[1];
    expect(second?.type === "group" && second.children.length).toBe(0);
  });

  it("opens every group while the page is narrowed by a filter, unless the user closed it", () => {
    expect(isOpen(grouped.groups[0]!, new Map(), true)).toBe(true);
    expect(isOpen(grouped.groups[0]!, new Map([["book:1", false]]), true)).toBe(false);
    expect(windowPage(grouped, new Map(), 1_000, true).total).toBe(3 + 3 + 3 + 2 + 1);
  });

  it("stops at the limit in the middle of a group and counts what is left", () => {
    const w = windowPage(grouped, new Map(), 4);
    // book 1 (closed), book 2 and two of its chapters
    expect(w.shown).toBe(4);
    expect(w.total).toBe(9);
    expect(w.blocks.map((b) => b.key)).toEqual(["book:1", "book:2"]);
    const second = w.blocks[1];
    expect(second?.type === "group" && second.children.map((c) => c.number)).toEqual(["4", "5"]);
  });

  it("handles 2,000 rows quickly and only renders the window", () => {
    const chapters = Array.from({ length: 2_000 }, (_, i) => row("CHAPTER", String(i + 1)));
    const flat = page({
      layout: "FLAT",
      map: "NONE",
      sections: [
        { key: "chapters", title: "Chapters", rows: chapters },
        { key: "books", title: "Books", rows: [] },
      ],
    });
    const w = windowPage(flat, new Map(), 120);
    expect(w.shown).toBe(120);
    expect(w.total).toBe(2_000);
    // The empty Books section is left out.
    expect(w.blocks.map((b) => b.key)).toEqual(["chapters"]);
  });

  it("keeps the trailing group last", () => {
    const w = windowPage({ ...grouped, groups: [...grouped.groups].reverse() }, new Map(), 1_000);
    expect(w.blocks.at(-1)?.key).toBe("no-book");
  });

  it("tells an empty page", () => {
    expect(isEmptyPage(page())).toBe(true);
    expect(isEmptyPage(page({ sections: [{ key: "books", title: "Books", rows: [] }] }))).toBe(true);
    expect(isEmptyPage(grouped)).toBe(false);
  });
});

describe("actionHref", () => {
  it("links READ to the reader on the first file and EDIT_MAP to the map editor", () => {
    expect(actionHref({ id: "READ", label: "Read" }, { fileIds: [7, 8] }, 3)).toBe("/read/7");
    expect(actionHref({ id: "READ", label: "Read" }, { fileIds: [] }, 3)).toBeNull();
    expect(actionHref({ id: "EDIT_MAP", label: "Set boundaries" }, { fileIds: [] }, 3)).toBe("/series/3/map");
    expect(actionHref({ id: "MONITOR", label: "Monitor" }, { fileIds: [7] }, 3)).toBeNull();
  });
});
