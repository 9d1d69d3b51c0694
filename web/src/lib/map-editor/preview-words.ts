/**
 * The server's MapChangePreview in words, grouped and short: which books become covered or
 * assemblable or stop being covered, which chapters change, which chapter files become or stop
 * being duplicates. Only restates what the server computed.
 */
import { mapLabel, plural } from "$lib/format";
import { compactRanges } from "./labels";
import type { ChapterSide, MapChangePreview } from "./types";

export interface PreviewGroup {
  key: string;
  heading: string;
  tone: "good" | "info" | "warn" | "bad";
  items: string[];
}

function books(numbers: string[]): string {
  return numbers.length === 1 ? `Book ${numbers[0]}` : `Books ${compactRanges(numbers)}`;
}

function chaptersText(numbers: string[]): string {
  return numbers.length === 1 ? `Chapter ${numbers[0]}` : `Chapters ${compactRanges(numbers)}`;
}

/** Chapters grouped by the book they are placed in: "Chapters 1–6 (book 1)". */
function byBook(changes: { number: string; side: ChapterSide }[]): string[] {
  const groups = new Map<string, string[]>();
  for (const c of changes) {
    const key = c.side.book ?? "";
    groups.set(key, [...(groups.get(key) ?? []), c.number]);
  }
  return [...groups].map(([book, numbers]) =>
    book ? `${chaptersText(numbers)} (book ${book})` : chaptersText(numbers),
  );
}

const isCovered = (s: ChapterSide) => s.coverage !== null;

export function describePreview(preview: MapChangePreview): PreviewGroup[] {
  const groups: PreviewGroup[] = [];
  const push = (key: string, heading: string, tone: PreviewGroup["tone"], items: string[]) => {
    if (items.length > 0) groups.push({ key, heading, tone, items });
  };

  if (preview.mapBefore !== preview.mapAfter) {
    push("map", "Map", "info", [`${mapLabel(preview.mapBefore)} → ${mapLabel(preview.mapAfter).toLowerCase()}`]);
  }

  const b = preview.books;
  const assemblable = b.filter(
    (x) => x.after.coverage === "COVERED_BY_CHAPTERS" && x.before.coverage !== "COVERED_BY_CHAPTERS",
  );
  const unassemblable = b.filter(
    (x) => x.before.coverage === "COVERED_BY_CHAPTERS" && x.after.coverage !== "COVERED_BY_CHAPTERS",
  );
  const cover = b.filter((x) => x.after.coversChapters && !x.before.coversChapters);
  const uncover = b.filter((x) => x.before.coversChapters && !x.after.coversChapters);
  const withChapters = (x: (typeof b)[number]) => {
    const chapters = x.after.chapters ?? [];
    return chapters.length > 0 ? `Book ${x.number}: chapters ${compactRanges(chapters)}` : `Book ${x.number}`;
  };
  push("books-cover", "Owned books that will cover their chapters", "good", cover.map(withChapters));
  push(
    "books-assemble",
    "Books complete from their chapters on disk (can be assembled)",
    "good",
    assemblable.map(withChapters),
  );
  push(
    "books-uncover",
    "Owned books that stop covering chapters",
    "warn",
    uncover.map((x) => `Book ${x.number}`),
  );
  push(
    "books-unassemble",
    "Books no longer complete from their chapters",
    "warn",
    unassemblable.map((x) => `Book ${x.number}`),
  );
  const grouped = new Set([...cover, ...assemblable, ...uncover, ...unassemblable]);
  const sameChapters = (x: string[] | null, y: string[] | null) => (x ?? []).join(",") === (y ?? []).join(",");
  const reshaped = b.filter((x) => !grouped.has(x) && !sameChapters(x.before.chapters, x.after.chapters));
  push(
    "books-chapters",
    "Books whose chapters change",
    "info",
    reshaped.map((x) => {
      const words = (list: string[] | null) =>
        !list?.length ? "unknown" : list.length === 1 ? `chapter ${list[0]}` : `chapters ${compactRanges(list)}`;
      return `Book ${x.number}: ${words(x.after.chapters)} (was ${words(x.before.chapters)})`;
    }),
  );
  const nowWanted = b.filter((x) => x.after.wanted && !x.before.wanted).map((x) => x.number);
  const noLongerWanted = b.filter((x) => !x.after.wanted && x.before.wanted).map((x) => x.number);
  if (nowWanted.length) push("books-wanted", "Books that will be searched for", "info", [books(nowWanted)]);
  if (noLongerWanted.length) push("books-unwanted", "Books no longer searched for", "info", [books(noLongerWanted)]);

  const c = preview.chapters;
  const newlyCovered = c
    .filter((x) => isCovered(x.after) && !isCovered(x.before))
    .map((x) => ({ number: x.number, side: x.after }));
  const placed = c
    .filter(
      (x) =>
        isCovered(x.after) &&
        isCovered(x.before) &&
        x.before.book === null &&
        (x.after.coverage !== x.before.coverage || x.after.book !== null),
    )
    .map((x) => ({ number: x.number, side: x.after }));
  const moved = new Map<string, string[]>();
  for (const x of c) {
    if (x.before.book === null || x.after.book === null || x.before.book === x.after.book) continue;
    const key = `book ${x.before.book} → book ${x.after.book}`;
    moved.set(key, [...(moved.get(key) ?? []), x.number]);
  }
  const uncovered = c.filter((x) => !isCovered(x.after) && isCovered(x.before)).map((x) => x.number);
  push("chapters-covered", "Chapters that become covered", "good", byBook(newlyCovered));
  push("chapters-placed", "Chapters now placed in a book", "info", byBook(placed));
  push(
    "chapters-moved",
    "Chapters that move to another book",
    "info",
    [...moved].map(([key, numbers]) => `${chaptersText(numbers)} (${key})`),
  );
  if (uncovered.length)
    push("chapters-uncovered", "Chapters that stop being covered", "warn", [chaptersText(uncovered)]);
  const wanted = c.filter((x) => x.after.wanted && !x.before.wanted).map((x) => x.number);
  const unwanted = c.filter((x) => !x.after.wanted && x.before.wanted).map((x) => x.number);
  if (wanted.length) push("chapters-wanted", "Chapters that will be fetched", "info", [chaptersText(wanted)]);
  if (unwanted.length) push("chapters-unwanted", "Chapters no longer fetched", "info", [chaptersText(unwanted)]);

  const dupChapters = c.filter((x) => x.becomeDuplicates.length > 0).map((x) => x.number);
  const undupChapters = c.filter((x) => x.stopDuplicates.length > 0).map((x) => x.number);
  if (preview.becomeDuplicateFileIds.length > 0) {
    const files = plural(preview.becomeDuplicateFileIds.length, "chapter file");
    const verb = preview.becomeDuplicateFileIds.length === 1 ? "becomes a duplicate" : "become duplicates";
    push("dup", "Duplicates", "warn", [
      `${files} ${verb}${dupChapters.length ? ` (${chaptersText(dupChapters).toLowerCase()})` : ""}; nothing is retired until you retire them.`,
    ]);
  }
  if (preview.stopDuplicateFileIds.length > 0) {
    const files = plural(preview.stopDuplicateFileIds.length, "chapter file");
    const verb = preview.stopDuplicateFileIds.length === 1 ? "stops" : "stop";
    push("undup", "No longer duplicates", "info", [
      `${files} ${verb} being duplicates${undupChapters.length ? ` (${chaptersText(undupChapters).toLowerCase()})` : ""}.`,
    ]);
  }
  return groups;
}

export const NO_CHANGE = "No change in coverage.";
