/**
 * The series page in Chromium against a service that starts empty: series made through the public
 * API from files written here (docs/rules.md, "Series form", "Plans", "Series page grouping"). A
 * books-form series without a map shows Books before Chapters with the one sentence and the map
 * editor, never a book badge from a catalogue suggestion; an exact map nests chapters under their
 * books, the header says `all chapters` and the stray book is redundant; then `all books`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { jpeg, zip } from "../corpus/zip-bytes.ts";
import { browserSuite, loggedInContext, watchErrors, type Service } from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite(
  (s, b) => {
    service = s;
    browser = b;
  },
  { DEMO_LIBRARY: "0" },
);

async function cbz(pages: number): Promise<Buffer> {
  const entries = [];
  for (let i = 1; i <= pages; i++) entries.push({ name: `${String(i).padStart(3, "0")}.jpg`, data: await jpeg(i) });
  return zip(entries);
}

/** A series created through POST /api/manga with these files (name suffix → pages), scanned. */
async function seriesWith(title: string, fields: Record<string, unknown>, files: Record<string, number>) {
  const res = await service.api("POST", "/api/manga", { title, ...fields });
  expect(res.status).toBe(201);
  const s = (await res.json()) as { id: number; folder: string };
  const folder = path.join(service.libraryRoot, s.folder);
  await mkdir(folder, { recursive: true });
  for (const [name, pages] of Object.entries(files))
    await writeFile(path.join(folder, `${title} ${name}.cbz`), await cbz(pages));
  expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
  return { id: s.id, folder };
}

async function putMap(id: number, entries: { volume: string; chapters: string[] }[]) {
  const current = (await (await service.api("GET", `/api/manga/${id}/chapter-map`)).json()) as { revision: number };
  const res = await service.api("PUT", `/api/manga/${id}/chapter-map`, { revision: current.revision, entries });
  expect(res.status).toBe(200);
}

async function open(ctx: BrowserContext, url: string): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(url);
  await page.getByRole("heading", { level: 1 }).waitFor();
  await page.locator('.content[aria-busy="false"]').waitFor();
  return page;
}
/** The h2 headings of the list, in page order (book groups, sections, the trailing group). */
const headings = (page: Page) =>
  page.locator(".content h2").evaluateAll((els) => els.map((e) => e.firstChild?.textContent?.trim() ?? ""));
const rowTitles = (page: Page, scope: string) =>
  page.locator(`${scope} [data-row] .title`).evaluateAll((els) => els.map((e) => e.textContent?.trim() ?? ""));

describe("series page from an empty service", () => {
  it("books form without a map: Books then Chapters, the sentence, the map editor, rows in reading order, no book badge from a hint", async () => {
    const { id } = await seriesWith(
      "Cedar Signal",
      { status: "finished", known_book_count: 2 },
      { v01: 9, "- c000": 3, "- c001": 3, "- c001.5": 3, "- c002": 3, "- c010": 3 },
    );
    const suggestion = await service.api("POST", `/api/manga/${id}/chapter-map/suggestions`, {
      source: "catalogue:probe",
      entries: [
        { volume: "1", chapters: ["0", "1", "1.5", "2"] },
        { volume: "2", chapters: ["10"] },
      ],
    });
    expect(suggestion.status).toBe(201);

    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${id}`);
    const errors = watchErrors(page);
    expect(await page.locator(".series-head .badge.info").first().textContent()).toBe("Books");
    expect(await page.getByTestId("map-state").textContent()).toBe("No map");
    expect(await headings(page)).toEqual(["Books", "Chapters"]);
    expect(await page.getByTestId("notice").textContent()).toBe(
      "The content of each book is unknown: chapters are kept and no book counts as covered.",
    );
    expect(await page.getByRole("link", { name: "Open the map editor" }).getAttribute("href")).toBe(
      `/series/${id}/map`,
    );
    expect(await page.locator("[data-group]").count()).toBe(0);
    expect(await rowTitles(page, '[data-section="books"]')).toEqual(["Book 1", "Book 2"]);
    expect(await rowTitles(page, '[data-section="chapters"]')).toEqual([
      "Chapter 0",
      "Chapter 1",
      "Chapter 1.5",
      "Chapter 2",
      "Chapter 10",
    ]);
    // The owned book shows its page count; no chapter row carries a book badge.
    expect(await page.locator('[data-row="book:1"]').getByText("9 pages").isVisible()).toBe(true);
    const chapterBadges = await page
      .locator('[data-section="chapters"] [data-row] .badge')
      .evaluateAll((els) => els.map((e) => e.textContent?.trim() ?? ""));
    for (const b of chapterBadges) expect(b).not.toMatch(/book/i);

    // Reversed: each section's rows in the opposite order, Books still first.
    await page.getByRole("combobox", { name: "Order" }).selectOption({ label: "Reversed" });
    await page.waitForURL(/order=desc/);
    await expect
      .poll(() => rowTitles(page, '[data-section="chapters"]'))
      .toEqual(["Chapter 10", "Chapter 2", "Chapter 1.5", "Chapter 1", "Chapter 0"]);
    expect(await headings(page)).toEqual(["Books", "Chapters"]);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("exact map: chapters under their books, `All chapters` with the stray book redundant, then `All books`", async () => {
    const { id, folder } = await seriesWith(
      "Birch Relay",
      { status: "finished", known_book_count: 2 },
      { v01: 11, "- c001": 3, "- c002": 3, "- c003": 3, "- c004": 3 },
    );
    await putMap(id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
    ]);
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${id}`);
    const errors = watchErrors(page);
    expect(await page.getByTestId("map-state").textContent()).toBe("Exact map");
    expect(await page.getByTestId("series-completion").textContent()).toBe("All chapters");
    expect(await headings(page)).toEqual(["Book 1", "Book 2"]);
    expect(await page.getByTestId("notice").count()).toBe(0);

    // The owned book: closed, its page count, redundant in a series that completes from chapters.
    const book1 = page.locator('[data-group="book:1"]');
    expect(await book1.getByText("11 pages").isVisible()).toBe(true);
    expect(await book1.getByText("Redundant: the whole series completes from chapters.").isVisible()).toBe(true);
    expect(await book1.getByRole("button", { name: "Show 2 chapters of Book 1" }).getAttribute("aria-expanded")).toBe(
      "false",
    );
    // The unowned book: open, which chapters cover it, and the assembly offered.
    const book2 = page.locator('[data-group="book:2"]');
    expect(await book2.getByText("2 of 2 chapters on disk").isVisible()).toBe(true);
    expect(await rowTitles(page, '[data-group="book:2"] .children')).toEqual(["Chapter 3", "Chapter 4"]);
    expect(await book2.getByRole("button", { name: "Assemble book Book 2" }).isVisible()).toBe(true);

    // Problems only hides what is fine: book 2 and the chapters are; the scanned book 1 is a hand
    // import that covers nothing until verified, a stated problem.
    await page.getByRole("checkbox", { name: "Problems only" }).check();
    await page.waitForURL(/problems=1/);
    await expect.poll(() => headings(page)).toEqual(["Book 1"]);
    expect(await page.locator('[data-row^="chapter:"]').count()).toBe(0);

    await writeFile(path.join(folder, "Birch Relay v02.cbz"), await cbz(10));
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    const again = await open(ctx, `/series/${id}`);
    await expect.poll(() => again.getByTestId("series-completion").textContent()).toBe("All books");
    expect(await again.getByText("Redundant: the whole series completes from chapters.").count()).toBe(0);
    expect(
      await again
        .locator('[data-group="book:2"]')
        .getByRole("button", { name: "Show 2 chapters of Book 2" })
        .getAttribute("aria-expanded"),
    ).toBe("false");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("the form override moves a running series to books and back", async () => {
    const { id } = await seriesWith("Alder Lines", { status: "running" }, { v01: 8, "- c003": 3 });
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${id}`);
    expect(await page.locator(".series-head .badge.info").first().textContent()).toBe("Chapters");
    expect(await headings(page)).toEqual(["Chapters", "Books"]);
    expect((await service.api("PATCH", `/api/manga/${id}`, { form_override: "books" })).status).toBe(200);
    await page.reload();
    await page.locator('.content[aria-busy="false"]').waitFor();
    expect(await page.locator(".series-head .badge.info").first().textContent()).toBe("Books");
    expect(await headings(page)).toEqual(["Books", "Chapters"]);
    const plan = () => page.locator('[data-row="book:1"] .plan').textContent();
    expect(await plan()).toBe("Book on disk");
    // Live: the open page follows the change back to the rules (it is subscribed by now).
    expect((await service.api("PATCH", `/api/manga/${id}`, { form_override: null })).status).toBe(200);
    await expect.poll(() => page.locator(".series-head .badge.info").first().textContent()).toBe("Chapters");
    await expect.poll(() => headings(page)).toEqual(["Chapters", "Books"]);
    await ctx.close();
  });
});
