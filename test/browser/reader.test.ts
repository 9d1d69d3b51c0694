/**
 * The reader against the real service and the demo library: page by page (right to left by
 * default), keys and taps, preloading, continuous mode, remembered settings, and marking the
 * chapters of a book to submit them as a reading.
 */
import { describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import {
  PHONE,
  loggedInContext,
  seriesId,
  seriousViolations,
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

async function fileOf(
  title: string,
  kind: "BOOK" | "CHAPTER",
  number: string,
): Promise<{ seriesId: number; fileId: number }> {
  const id = await seriesId(service, title);
  const data = await service.gql<{ units: { units: { kind: string; number: string; fileIds: number[] }[] } }>(
    "query($id: Int!) { units(seriesId: $id) { units { kind number fileIds } } }",
    { id },
  );
  const unit = data.units.units.find((u) => u.kind === kind && u.number === number);
  const fileId = unit?.fileIds[0];
  if (fileId === undefined) throw new Error(`no file for ${title} ${kind} ${number}`);
  return { seriesId: id, fileId };
}

/** The shown page image has been decoded (naturalWidth > 0). */
async function loaded(page: Page, name: string | RegExp): Promise<void> {
  const img = page.getByRole("img", { name, exact: true });
  await img.waitFor();
  await page.waitForFunction(
    (el) => el instanceof HTMLImageElement && el.complete && el.naturalWidth > 0,
    await img.elementHandle(),
    { timeout: 15_000 },
  );
}

const counter = (page: Page) => page.getByTestId("page-counter");

describe("reader", () => {
  it("reads a book page by page right to left, with keys, taps and preloading", async () => {
    const { seriesId: sid, fileId } = await fileOf("Lanterns of the Salt Road", "BOOK", "1");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    const requested: string[] = [];
    page.on("request", (r) => requested.push(new URL(r.url()).pathname));

    await page.goto(`/read/${fileId}`);
    await loaded(page, "Page 1 of 11");
    expect(await counter(page).innerText()).toBe("Page 1 of 11");
    expect(await page.getByRole("button", { name: "Right to left" }).getAttribute("aria-pressed")).toBe("true");
    // The next pages are fetched while page 1 is shown.
    await expect
      .poll(() => requested.filter((p) => /\/api\/files\/\d+\/pages\/[234]$/.test(p)).sort())
      .toEqual([`/api/files/${fileId}/pages/2`, `/api/files/${fileId}/pages/3`, `/api/files/${fileId}/pages/4`]);

    // Right to left: ← goes on, → goes back.
    await page.keyboard.press("ArrowLeft");
    await loaded(page, "Page 2 of 11");
    expect(await counter(page).innerText()).toBe("Page 2 of 11");
    await page.keyboard.press("ArrowRight");
    await loaded(page, "Page 1 of 11");
    await page.keyboard.press("Space");
    await loaded(page, "Page 2 of 11");
    await page.keyboard.press("End");
    await loaded(page, "Page 11 of 11");
    await page.keyboard.press("ArrowLeft");
    await page.getByRole("status").filter({ hasText: "This is the last page." }).waitFor();
    await page.keyboard.press("Home");
    await loaded(page, "Page 1 of 11");

    // A tap on the left third goes on (right to left), on the right third back.
    const box = await page.getByRole("img", { name: "Page 1 of 11" }).boundingBox();
    if (!box) throw new Error("page image not laid out");
    const viewport = page.viewportSize() ?? { width: 1280, height: 860 };
    await page.mouse.click(viewport.width * 0.1, box.y + box.height / 2);
    await loaded(page, "Page 2 of 11");
    await page.mouse.click(viewport.width * 0.9, box.y + box.height / 2);
    await loaded(page, "Page 1 of 11");

    expect(await seriousViolations(page)).toEqual([]);

    // Left to right, remembered for the series.
    await page.getByRole("button", { name: "Right to left" }).click();
    await page.keyboard.press("ArrowRight");
    await loaded(page, "Page 2 of 11");
    expect(page.url()).toContain("page=2");
    await page.reload();
    await loaded(page, "Page 2 of 11");
    expect(await page.getByRole("button", { name: "Right to left" }).getAttribute("aria-pressed")).toBe("false");
    await page.getByRole("button", { name: "Right to left" }).click();

    // Escape goes back to the series.
    await page.keyboard.press("Escape");
    await page.waitForURL(`**/series/${sid}`);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("shows several pages in continuous mode, and a webtoon opens continuous", async () => {
    const { fileId } = await fileOf("Lanterns of the Salt Road", "BOOK", "2");
    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      // The address names the page: the reader would otherwise resume where the first viewport stopped.
      await page.goto(`/read/${fileId}?page=1`);
      await loaded(page, "Page 1 of 12");
      await page.getByRole("button", { name: "Continuous" }).click();
      expect(await page.getByRole("button", { name: "Continuous" }).getAttribute("aria-pressed")).toBe("true");
      expect(await page.getByRole("img", { name: /^Page \d+ of 12$/ }).count()).toBe(12);
      await loaded(page, "Page 1 of 12");
      await loaded(page, "Page 2 of 12");
      await loaded(page, "Page 3 of 12");
      // Scrolling moves the counter.
      await page
        .getByRole("region", { name: "Pages, scroll to read" })
        .evaluate((el) => el.scrollBy(0, el.clientHeight * 3));
      await expect.poll(async () => await counter(page).innerText()).not.toBe("Page 1 of 12");
      // The slider jumps.
      await page.getByRole("slider", { name: "Page" }).fill("9");
      await loaded(page, "Page 9 of 12");
      await expect.poll(async () => await counter(page).innerText()).toBe("Page 9 of 12");
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Page by page" }).click();
      await ctx.close();
    }

    const webtoon = await fileOf("Skyline Greenhouse", "CHAPTER", "1");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await page.goto(`/read/${webtoon.fileId}`);
    await page.getByRole("region", { name: "Pages, scroll to read" }).waitFor();
    expect(await page.getByRole("button", { name: "Continuous" }).getAttribute("aria-pressed")).toBe("true");
    expect(await page.getByRole("button", { name: "Right to left" }).getAttribute("aria-pressed")).toBe("false");
    expect(await page.getByRole("button", { name: "Mark chapters" }).count()).toBe(0);
    await loaded(page, "Page 1 of 3");
    await ctx.close();
  });

  it("marks where each chapter starts in a book and registers the reading", async () => {
    const { seriesId: sid, fileId } = await fileOf("Moss & Meteor", "BOOK", "1");
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto(`/read/${fileId}`);
    await loaded(page, "Page 1 of 11");
    await page.getByRole("button", { name: "Mark chapters" }).click();
    const panel = page.getByRole("complementary", { name: "Mark chapters" });
    const input = panel.getByRole("textbox", { name: "Chapter starting on page 1" });
    expect(await input.inputValue()).toBe("1");
    await panel.getByRole("button", { name: "Mark page 1" }).click();

    for (const [pageNo, chapter] of [
      [4, "2"],
      [8, "3"],
    ] as const) {
      await page.getByRole("slider", { name: "Page" }).fill(String(pageNo));
      await loaded(page, `Page ${pageNo} of 11`);
      const field = panel.getByRole("textbox", { name: `Chapter starting on page ${pageNo}` });
      expect(await field.inputValue()).toBe(chapter);
      await panel.getByRole("button", { name: `Mark page ${pageNo}` }).click();
    }
    const marks = panel.getByRole("list", { name: "Chapter marks" });
    expect((await marks.innerText()).replace(/\s+/g, " ")).toContain("Page 4 → chapter 2");
    // A wrong mark is removed and made again.
    await panel.getByRole("button", { name: "Remove the mark on page 8" }).click();
    expect(await marks.getByRole("listitem").count()).toBe(2);
    await panel.getByRole("button", { name: "Mark page 8" }).click();
    expect(await marks.getByRole("listitem").count()).toBe(3);
    expect(await seriousViolations(page)).toEqual([]);

    await panel.getByRole("button", { name: "Submit book 1: chapters 1–3" }).click();
    await panel.getByText("The reading was registered: book 1 holds chapters 1–3.").waitFor();
    expect(await panel.getByRole("link", { name: "Open the map editor" }).getAttribute("href")).toBe(
      `/series/${sid}/map`,
    );

    const map = await service.gql<{ chapterMap: { readings: { volume: string; chapters: string[] }[] } }>(
      "query($id: Int!) { chapterMap(seriesId: $id) { readings { volume chapters } } }",
      { id: sid },
    );
    expect(map.chapterMap.readings).toEqual([{ volume: "1", chapters: ["1", "2", "3"] }]);
    // The map editor lists it among the readings.
    await panel.getByRole("link", { name: "Open the map editor" }).click();
    const readings = page.locator("section", { has: page.getByRole("heading", { name: "Readings" }) });
    await readings.getByText("Book 1: chapters 1–3").waitFor();

    // Book 2 claiming chapter 3 conflicts with book 1's reading: the error says what to do.
    const book2 = await fileOf("Moss & Meteor", "BOOK", "2");
    await page.goto(`/read/${book2.fileId}`);
    // Book 2 was scanned from the pages of chapters 7–12 (a title page, then their pages).
    await loaded(page, /^Page 1 of \d+$/);
    await page.getByRole("button", { name: "Mark chapters" }).click();
    const field = panel.getByRole("textbox", { name: "Chapter starting on page 1" });
    await expect.poll(() => field.inputValue()).toBe("4");
    await field.fill("3");
    await panel.getByRole("button", { name: "Mark page 1" }).click();
    await panel.getByRole("button", { name: "Submit book 2: chapters 3" }).click();
    const alert = panel.getByRole("alert");
    await alert.waitFor();
    expect(await alert.getAttribute("data-code")).toBe("reading_conflicts_with_map");
    expect(await alert.innerText()).toContain("The map gives this book other chapters.");
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
