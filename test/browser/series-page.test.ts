/**
 * The series page renders the server's grouping model: the nested layout (exact map) and the flat
 * one (no map), the filters, the order selector and Problems only in the address, monitoring from a
 * row menu, the plan wording, and axe
 * at desktop and phone size.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { seedLongSeries } from "./long-series.ts";
import {
  PHONE,
  launchBrowser,
  loggedInContext,
  seriesId,
  seriousViolations,
  startService,
  watchErrors,
  type Service,
} from "./harness.ts";

const HARBOR = "Harbor of Paper Cranes";
let service: Service;
let browser: Browser;
let harbor: number;
let moss: number;
let lanterns: number;

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  harbor = await seriesId(service, HARBOR);
  moss = await seriesId(service, "Moss & Meteor");
  lanterns = await seriesId(service, "Lanterns of the Salt Road");
  // Take the extra chapter 40.5 out of book 5: the map stays exact (an extra is no main chapter)
  // and 40.5 becomes a chapter without a book, the trailing group.
  const map = (await (await service.api("GET", `/api/manga/${harbor}/chapter-map`)).json()) as {
    revision: number;
    entries: { volume: string; chapters: string[] }[];
  };
  const entries = map.entries.map((e) => ({ volume: e.volume, chapters: e.chapters.filter((c) => c !== "40.5") }));
  const put = await service.api("PUT", `/api/manga/${harbor}/chapter-map`, { revision: map.revision, entries });
  if (put.status !== 200) throw new Error(`map: ${put.status} ${await put.text()}`);
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const group = (page: Page, book: string) => page.locator(`[data-group="book:${book}"]`);
const row = (page: Page, key: string) => page.locator(`[data-row="${key}"]`);
/** The h2 headings of the list, in page order (book groups, sections, the trailing group). */
const headings = (page: Page) =>
  page.locator(".content h2").evaluateAll((els) => els.map((e) => e.firstChild?.textContent?.trim() ?? ""));
/** Chapter rows rendered inside a group, in order. */
const chapterTitles = (scope: ReturnType<typeof group>) =>
  scope.locator('[data-row^="chapter:"] .title').evaluateAll((els) => els.map((e) => e.textContent?.trim() ?? ""));

async function open(ctx: BrowserContext, url: string): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(url);
  await page.getByRole("heading", { level: 1 }).waitFor();
  await page.locator('.content[aria-busy="false"]').waitFor();
  return page;
}

/** After a toolbar change: the new address, then the answer for it on screen. */
async function settled(page: Page, url: RegExp): Promise<void> {
  await page.waitForURL(url);
  await page.locator('.content[aria-busy="false"]').waitFor();
  await page.getByRole("status").filter({ hasText: "Updating…" }).waitFor({ state: "detached" });
}

describe("series page, exact map (nested)", () => {
  it("nests chapters under their books: owned books collapsed, unowned expanded, the trailing group last", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${harbor}`);
    const errors = watchErrors(page);
    expect(await page.getByTestId("map-state").textContent()).toBe("Exact map");
    expect(await headings(page)).toEqual(["Book 1", "Book 2", "Book 3", "Book 4", "Book 5", "Chapters without a book"]);

    // Owned book: collapsed, page count, its plan; the disclosure opens it.
    const book1 = group(page, "1");
    expect(await book1.getByTestId("owned").first().textContent()).toBe("Owned");
    expect(await book1.getByText("11 pages").isVisible()).toBe(true);
    expect(await book1.getByText("Book on disk").isVisible()).toBe(true);
    const disclosure = book1.getByRole("button", { name: "Show 8 chapters of Book 1" });
    expect(await disclosure.getAttribute("aria-expanded")).toBe("false");
    expect(await row(page, "chapter:1").count()).toBe(0);
    await disclosure.click();
    expect(await book1.getByRole("button", { name: "Hide 8 chapters of Book 1" }).getAttribute("aria-expanded")).toBe(
      "true",
    );
    expect(await chapterTitles(book1)).toEqual([
      "Chapter 1",
      "Chapter 2",
      "Chapter 3",
      "Chapter 4",
      "Chapter 5",
      "Chapter 6",
      "Chapter 7",
      "Chapter 8",
    ]);

    // Unowned book: expanded with how many of its chapters are on disk, problems as badges.
    const book4 = group(page, "4");
    expect(await book4.getByText("7 of 8 chapters on disk").isVisible()).toBe(true);
    expect(await book4.getByTestId("owned").first().textContent()).toBe("Not owned");
    expect(await book4.locator(".badge.warn", { hasText: "missing chapters: 28" }).isVisible()).toBe(true);
    expect((await chapterTitles(book4)).length).toBe(8);
    expect(await group(page, "5").getByText("8 of 8 chapters on disk").isVisible()).toBe(true);
    expect(await group(page, "5").getByRole("button", { name: "Assemble book Book 5" }).isVisible()).toBe(true);

    // The trailing group holds the chapter without a book.
    expect(await page.locator('[data-section="no-book"]').getByText("Chapter 40.5", { exact: true }).isVisible()).toBe(
      true,
    );

    // Interactive search is a row action (the book file search is not carried out yet, so not shown).
    await book4.getByRole("button", { name: "More actions for Book 4" }).click();
    const menu = page.getByRole("menu", { name: "More actions for Book 4" });
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual(["Stop monitoring", "Interactive search"]);
    await page.keyboard.press("Escape");
    // The menu closes on the next render: wait for it rather than racing it.
    await menu.waitFor({ state: "detached", timeout: 5_000 });
    expect(await menu.count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("shows the rows only once the panels above them have answered, so they do not move under the pointer", async () => {
    const ctx = await loggedInContext(browser, service);
    // Each panel in turn answers two seconds after the page's own query.
    for (const panel of ["seriesCatalogue", "continueReading", "torrentJobs"]) {
      const page = await ctx.newPage();
      const isPanel = (body: string | null) => body?.includes(`${panel}(`) === true;
      let answered = false;
      page.on("requestfinished", (request) => {
        if (isPanel(request.postData())) answered = true;
      });
      await page.route("**/graphql", async (route) => {
        if (isPanel(route.request().postData())) await new Promise((r) => setTimeout(r, 2_000));
        await route.continue();
      });
      await page.goto(`/series/${harbor}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.getByText("Loading the books and chapters…").waitFor();
      expect(await group(page, "1").count()).toBe(0);
      expect(await page.locator(".content").getAttribute("aria-busy")).toBe("true");

      await page.locator('.content[aria-busy="false"]').waitFor();
      // The page saw the answer before the test hears of it: allow the event a moment to arrive
      // (a list shown without this panel's answer would come more than a second too early).
      await expect.poll(() => answered, { message: panel, timeout: 1_000 }).toBe(true);
      expect(await page.getByTestId("catalogue-panel").getByText("Loading…").count()).toBe(0);
      const disclosure = group(page, "1").getByRole("button", { name: "Show 8 chapters of Book 1" });
      const before = await disclosure.boundingBox();
      await page.waitForLoadState("networkidle");
      expect(await disclosure.boundingBox()).toEqual(before);
      await page.close();
    }
    await ctx.close();
  });

  it("keeps the relevant groups and matching children for Missing, Downloaded and Problems only, in the address", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${harbor}`);

    await page.getByRole("radio", { name: "Missing" }).check();
    await settled(page, /filter=missing/);
    expect(await headings(page)).toEqual(["Book 4"]);
    expect(await chapterTitles(group(page, "4"))).toEqual(["Chapter 28"]);

    await page.getByRole("radio", { name: "Downloaded" }).check();
    await settled(page, /filter=downloaded/);
    expect(await headings(page)).toEqual(["Book 1", "Book 2", "Book 3", "Book 4", "Book 5", "Chapters without a book"]);
    expect(await chapterTitles(group(page, "4"))).toEqual([
      "Chapter 25",
      "Chapter 26",
      "Chapter 27",
      "Chapter 29",
      "Chapter 30",
      "Chapter 31",
      "Chapter 32",
    ]);

    // Back returns to the previous filter.
    await page.goBack();
    await settled(page, /filter=missing/);
    expect(await page.getByRole("radio", { name: "Missing" }).isChecked()).toBe(true);
    expect(await headings(page)).toEqual(["Book 4"]);

    await page.getByRole("radio", { name: "All" }).check();
    await settled(page, /\/series\/\d+$/);
    await page.getByRole("checkbox", { name: "Problems only" }).check();
    await settled(page, /problems=1/);
    expect(await headings(page)).toEqual(["Book 4"]);
    expect(await chapterTitles(group(page, "4"))).toEqual(["Chapter 28"]);

    // The address alone restores the view.
    const again = await open(ctx, `/series/${harbor}?filter=downloaded&problems=1`);
    expect(await again.getByRole("checkbox", { name: "Problems only" }).isChecked()).toBe(true);
    expect(await again.getByRole("radio", { name: "Downloaded" }).isChecked()).toBe(true);
    await ctx.close();
  });

  it("reverses the reading order and keeps the trailing group last", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${harbor}`);
    await page.getByRole("combobox", { name: "Order" }).selectOption({ label: "Reversed" });
    await settled(page, /order=desc/);
    expect(await headings(page)).toEqual(["Book 5", "Book 4", "Book 3", "Book 2", "Book 1", "Chapters without a book"]);
    expect((await chapterTitles(group(page, "4")))[0]).toBe("Chapter 32");
    await page.goBack();
    await settled(page, /\/series\/\d+$/);
    expect(await headings(page)).toEqual(["Book 1", "Book 2", "Book 3", "Book 4", "Book 5", "Chapters without a book"]);
    await ctx.close();
  });

  it("toggles monitoring from a row menu with the keyboard", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${harbor}`);
    const chapter25 = row(page, "chapter:25");
    const trigger = chapter25.getByRole("button", { name: "More actions for Chapter 25" });
    expect(await trigger.getAttribute("aria-haspopup")).toBe("menu");
    await trigger.focus();
    await page.keyboard.press("ArrowDown");
    const menu = page.getByRole("menu", { name: "More actions for Chapter 25" });
    await menu.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Stop monitoring");
    await page.keyboard.press("Enter");
    await chapter25.getByText("Not monitored").waitFor();

    const units = (await (await service.api("GET", `/api/manga/${harbor}/units`)).json()) as {
      units: { kind: string; number: string; monitored: boolean }[];
    };
    expect(units.units.find((u) => u.kind === "chapter" && u.number === "25")?.monitored).toBe(false);

    // The Monitored filter now leaves it out.
    await page.getByRole("radio", { name: "Monitored" }).check();
    await settled(page, /filter=monitored/);
    expect(await chapterTitles(group(page, "4"))).not.toContain("Chapter 25");
    await page.getByRole("radio", { name: "All" }).check();
    await settled(page, /\/series\/\d+$/);

    await row(page, "chapter:25").getByRole("button", { name: "More actions for Chapter 25" }).click();
    await page.getByRole("menuitem", { name: "Monitor" }).click();
    await row(page, "chapter:25").getByText("Not monitored").waitFor({ state: "detached" });
    await ctx.close();
  });

  it("words the plans by the chosen preference", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${harbor}`);
    const plan = () => group(page, "5").locator(".plan").first().textContent();
    const booksFirst = await plan();
    await page.getByRole("radio", { name: "Chapters first" }).check();
    await expect.poll(plan).not.toBe(booksFirst);
    const series = (await (await service.api("GET", `/api/manga/${harbor}`)).json()) as { plan_wording: string };
    expect(series.plan_wording).toBe("chapters_first");
    await page.getByRole("radio", { name: "Books first" }).check();
    await expect.poll(plan).toBe(booksFirst);
    await ctx.close();
  });
});

describe("series page, no map (flat)", () => {
  it("shows the Books and Chapters sections, the sentence and the map editor", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${moss}`);
    expect(await page.getByTestId("map-state").textContent()).toBe("No map");
    expect(await headings(page)).toEqual(["Chapters", "Books"]);
    expect(await page.getByTestId("notice").textContent()).toBe(
      "The content of each book is unknown: chapters are kept and no book counts as covered.",
    );
    expect(await page.getByRole("link", { name: "Open the map editor" }).getAttribute("href")).toBe(
      `/series/${moss}/map`,
    );
    expect(await page.locator('[data-section="books"] [data-row^="book:"]').count()).toBe(2);
    expect(await page.locator('[data-section="chapters"] [data-row^="chapter:"]').count()).toBe(20);
    // No groups, nothing nested.
    expect(await page.locator("[data-group]").count()).toBe(0);
    // An estimate is plain muted text, never a badge.
    const hint = page.getByText("estimated in book 1, not mapped").first();
    expect(await hint.isVisible()).toBe(true);
    expect(await hint.evaluate((el) => el.closest(".badge") === null && el.classList.contains("muted"))).toBe(true);
    await ctx.close();
  });

  it("says when a series does not exist", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await page.goto("/series/999999");
    await page.getByRole("heading", { level: 1, name: "Series not found" }).waitFor();
    expect(await page.getByRole("link", { name: "Back to the library" }).getAttribute("href")).toBe("/");
    await ctx.close();
  });

  it("says which filter hides everything and offers Show all", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${lanterns}?filter=missing`);
    await page.getByText("No book or chapter matches the Missing filter.").waitFor();
    await page.getByRole("button", { name: "Show all" }).click();
    await settled(page, /\/series\/\d+$/);
    expect(await page.locator('[data-row^="book:"]').count()).toBe(4);
    await ctx.close();
  });
});

describe("a 2,000-chapter series", () => {
  it("renders rows incrementally: the first ones at once, more on scrolling, all on request", async () => {
    const long = await seedLongSeries(service);
    const ctx = await loggedInContext(browser, service);
    const page = await open(ctx, `/series/${long}`);
    const errors = watchErrors(page);
    const rendered = () => page.locator("[data-row]").count();
    const first = await rendered();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(200);
    const status = page.getByText(/^Showing \d+ of \d+ rows\.$/);
    const total = Number(/of (\d+) rows/.exec((await status.textContent()) ?? "")?.[1]);
    expect(total).toBeGreaterThan(1_000);

    // The end of the list coming into view adds rows.
    await page.getByRole("button", { name: `Show all ${total}` }).scrollIntoViewIfNeeded();
    await expect.poll(rendered).toBeGreaterThan(first);

    await page.getByRole("button", { name: /^Show all \d+$/ }).click();
    await expect.poll(rendered).toBe(total);
    expect(await status.count()).toBe(0);
    // Still a working page: a group closes at once.
    await group(page, "200").getByRole("button", { name: "Hide 10 chapters of Book 200" }).click();
    expect(await group(page, "200").locator("[data-row^='chapter:']").count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});

describe("accessibility", () => {
  it("has no serious axe violations on both layouts, at desktop and phone size", async () => {
    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      for (const id of [harbor, moss]) {
        const page = await open(ctx, `/series/${id}`);
        expect(await seriousViolations(page)).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await page.close();
      }
      await ctx.close();
    }
  });
});
