/**
 * The library page: a card per series with its cover, form and completion; search and the has-gaps
 * filter (kept in the address); the empty states; keyboard use; axe at desktop and phone size.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { jpeg, zip } from "../corpus/zip-bytes.ts";
import {
  PHONE,
  loggedInContext,
  seriousViolations,
  startService,
  watchErrors,
  type Service,
  browserSuite,
} from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

const cards = (page: Page) => page.getByRole("main").getByRole("listitem");
const card = (page: Page, title: string) => cards(page).filter({ has: page.getByText(title, { exact: true }) });

async function openLibrary(page: Page, url = "/"): Promise<void> {
  await page.goto(url);
  await page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
  await cards(page).first().waitFor();
}

describe("library", () => {
  it("shows every series as a card with its cover, form and completion", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openLibrary(page);
    expect(await cards(page).count()).toBe(5);
    await expect.poll(() => page.getByText("5 series").isVisible()).toBe(true);

    // Every card's cover is a first-page thumbnail that really loaded.
    const covers = page.getByRole("img", { name: /^Cover of / });
    expect(await covers.count()).toBe(5);
    for (const img of await covers.all()) {
      await img.scrollIntoViewIfNeeded();
      await expect
        .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), { timeout: 20_000 })
        .toBe(true);
      expect(await img.getAttribute("loading")).toBe("lazy");
    }

    const harbor = card(page, "Harbor of Paper Cranes");
    expect(await harbor.getByRole("img", { name: "Cover of Harbor of Paper Cranes" }).count()).toBe(1);
    expect(await harbor.getByText("Books", { exact: true }).isVisible()).toBe(true);
    expect((await harbor.getByTestId("completion").textContent())?.trim()).toBe("1 book missing · 1 chapter missing");
    expect((await card(page, "Lanterns of the Salt Road").getByTestId("completion").textContent())?.trim()).toBe(
      "all books",
    );
    expect(await card(page, "The Clockmaker's Apprentice").getByText("Chapters", { exact: true }).isVisible()).toBe(
      true,
    );
    expect(await card(page, "Skyline Greenhouse").getByText("Webtoon", { exact: true }).isVisible()).toBe(true);

    // A card is one link to its series.
    await harbor.getByRole("link").click();
    await page.waitForURL(/\/series\/\d+$/);
    await page.getByRole("heading", { level: 1, name: "Harbor of Paper Cranes" }).waitFor();
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("searches by title as you type, ignoring case and accents, and offers to clear a search without match", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openLibrary(page);
    const search = page.getByRole("searchbox", { name: "Search by title" });

    await search.pressSequentially("MÉTÉOR");
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await card(page, "Moss & Meteor").count()).toBe(1);
    expect(await page.getByText("1 of 5 series").isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get("q")).toBe("MÉTÉOR");

    await search.fill("");
    await search.pressSequentially("zzz");
    await page.getByText("No series matches “zzz”.").waitFor();
    expect(await cards(page).count()).toBe(0);
    await page.getByRole("button", { name: "Clear the filters" }).click();
    await expect.poll(() => cards(page).count()).toBe(5);
    expect(await search.inputValue()).toBe("");
    await ctx.close();
  });

  it("keeps only series with gaps with the Has gaps filter, also after a reload", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openLibrary(page);
    const toggle = page.getByRole("button", { name: "Has gaps" });
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    await toggle.click();
    expect(await toggle.getAttribute("aria-pressed")).toBe("true");
    // Harbor misses chapter 28; Moss's scanned books hold chapters 1–6 unproven (a hand import
    // covers no chapter on its own), so those remain holes.
    await expect.poll(() => cards(page).count()).toBe(2);
    expect(await card(page, "Harbor of Paper Cranes").count()).toBe(1);
    expect(await card(page, "Moss & Meteor").count()).toBe(1);
    expect(new URL(page.url()).searchParams.get("gaps")).toBe("1");

    await page.reload();
    await cards(page).first().waitFor();
    expect(await cards(page).count()).toBe(2);
    expect(await page.getByRole("button", { name: "Has gaps" }).getAttribute("aria-pressed")).toBe("true");

    // With a search that no series with gaps matches, the page says so.
    await page.getByRole("searchbox", { name: "Search by title" }).fill("lanterns");
    await page.getByText("No series with gaps matches “lanterns”.").waitFor();
    await page.getByRole("button", { name: "Clear the filters" }).click();
    await expect.poll(() => cards(page).count()).toBe(5);
    await ctx.close();
  });

  it("works with the keyboard: search, filter, then open a series", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openLibrary(page);
    await page.getByRole("searchbox", { name: "Search by title" }).focus();
    await page.keyboard.type("harbor");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Has gaps");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("href"))).toMatch(/^\/series\/\d+$/);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Harbor of Paper Cranes" }).waitFor();
    await ctx.close();
  });

  it("has no serious axe violations and no sideways scrolling, at desktop and phone size", async () => {
    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      await openLibrary(page);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      if (viewport === PHONE) {
        // The grid collapses to two columns.
        const boxes = await Promise.all((await cards(page).all()).slice(0, 3).map((c) => c.boundingBox()));
        expect(boxes[0]?.y).toBe(boxes[1]?.y);
        expect(boxes[2]?.y).toBeGreaterThan(boxes[0]?.y ?? 0);
      }
      await ctx.close();
    }
  });
});

describe("empty library", () => {
  let empty: Service;
  beforeAll(async () => {
    empty = await startService({ DEMO_LIBRARY: "0" });
  });
  afterAll(async () => {
    await empty?.stop();
  });

  it("says to put CBZ files under the library root and scan, and the scan shows them", async () => {
    const ctx = await loggedInContext(browser, empty);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto("/");
    await page.getByRole("heading", { name: "Your library is empty" }).waitFor();
    // The sentence names where the library root is on the server.
    expect(
      await page
        .getByText(
          `Put your CBZ files under the library root, ${empty.libraryRoot}, one folder per series, then scan the library.`,
        )
        .isVisible(),
    ).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    const folder = path.join(empty.libraryRoot, "Paper Lantern");
    await mkdir(folder, { recursive: true });
    await writeFile(
      path.join(folder, "Paper Lantern v01.cbz"),
      await zip([
        { name: "001.jpg", data: await jpeg(1) },
        { name: "002.jpg", data: await jpeg(2) },
      ]),
    );

    await page.getByRole("button", { name: "Scan library" }).click();
    await page.getByText("Scan finished: 1 new file, 1 new series.").waitFor();
    await cards(page).first().waitFor();
    expect(await card(page, "Paper Lantern").count()).toBe(1);

    // A library with series keeps a scan button beside its heading: a new folder appears with it.
    const second = path.join(empty.libraryRoot, "Quiet Orchard");
    await mkdir(second, { recursive: true });
    await writeFile(path.join(second, "Quiet Orchard c001.cbz"), await zip([{ name: "001.jpg", data: await jpeg(3) }]));
    await page.getByRole("button", { name: "Scan library" }).click();
    await page.getByText("Scan finished: 1 new file, 1 new series.").waitFor();
    await card(page, "Quiet Orchard").waitFor();
    expect(await page.getByText("Scan finished:").count()).toBe(1);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
