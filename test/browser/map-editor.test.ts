/**
 * The map editor against the real service and the demo library: book starts with the live
 * coverage preview, saving (the series page then nests chapters under their books), a stale
 * revision explained and reloaded, adopting a catalogue suggestion, removing the map.
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

interface MapAnswer {
  chapterMap: { revision: number; state: string; entries: { volume: string; chapters: string[] }[] };
}
const mapOf = (id: number) =>
  service.gql<MapAnswer>(
    "query($id: Int!) { chapterMap(seriesId: $id) { revision state entries { volume chapters } } }",
    { id },
  );

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => String(a + i));

async function previewText(page: Page): Promise<string> {
  return (
    await page.locator("section", { has: page.getByRole("heading", { name: "What saving changes" }) }).innerText()
  ).trim();
}

describe("map editor", () => {
  it("enters book starts, previews the change live, saves, and the series page nests chapters under books", async () => {
    const id = await seriesId(service, "Moss & Meteor");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto(`/series/${id}/map`);
    await page.getByRole("heading", { level: 1, name: "Chapter map" }).waitFor();

    // The known books are listed, waiting for their starts.
    const start1 = page.getByRole("textbox", { name: "First chapter of book 1" });
    const start2 = page.getByRole("textbox", { name: "First chapter of book 2" });
    expect(await start1.inputValue()).toBe("");
    await page.getByText("Fill in every book's start first. The preview appears then.").waitFor();

    await start1.fill("1");
    await start2.fill("7");
    // Without an end the last book's content stays unknown: the plan says so.
    await page
      .getByText("The end of book 2 is not implied: give its last chapter. Saving leaves its chapters unknown.")
      .waitFor();
    await page.getByText("Book 1: chapters 1–6").waitFor();
    const before = await previewText(page);
    expect(await page.getByTestId("implied-end").first().innerText()).toBe("6 (6 chapters)");
    expect(await page.getByTestId("implied-end").nth(1).innerText()).toBe("unknown");

    await page.getByLabel(/The last book ends at chapter/).fill("12");
    await page.getByText("Book 2: chapters 7–12").waitFor();
    const after = await previewText(page);
    expect(after).not.toBe(before);
    // The scanned books are hand imports: they cover nothing until a proof applies, so the books'
    // chapters change and no book starts covering.
    expect(after).toContain("Books whose chapters change");
    expect(after).not.toContain("Owned books that will cover their chapters");
    expect(after).toContain("No map → exact map");
    expect(await page.getByText(/is not implied/).count()).toBe(0);
    expect(await page.getByTestId("implied-end").nth(1).innerText()).toBe("12 (6 chapters)");

    // A problem shows on its row and holds the save back.
    await start2.fill("0");
    await page.getByText("Book 2 starts at 0, not after book 1 (1).").waitFor();
    expect(await start2.getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("button", { name: "Save the map" }).isDisabled()).toBe(true);
    await start2.fill("7");
    await page.getByText("Book 2: chapters 7–12").waitFor();

    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Save the map" }).click();
    await page.waitForURL(`**/series/${id}`);
    // Exact map: each book is a group with its chapters nested under it.
    const show = page.getByRole("button", { name: /Show 6 chapters of Book 1/ });
    await show.waitFor();
    await show.click();
    const nested = page.getByRole("list", { name: /Chapters of Book 1/ });
    await nested.waitFor();
    expect(await nested.getByRole("listitem").count()).toBe(6);
    await page.getByRole("button", { name: /Show 6 chapters of Book 2/ }).waitFor();

    const saved = await mapOf(id);
    expect(saved.chapterMap.state).toBe("EXACT");
    expect(saved.chapterMap.entries).toEqual([
      { volume: "1", chapters: range(1, 6) },
      { volume: "2", chapters: range(7, 12) },
    ]);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("explains a stale revision, keeps the edits, reloads and saves", async () => {
    const id = await seriesId(service, "Moss & Meteor");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await page.goto(`/series/${id}/map`);
    const start2 = page.getByRole("textbox", { name: "First chapter of book 2" });
    await start2.waitFor();
    // The saved map comes back as it was saved: starts and the last book's end.
    expect(await start2.inputValue()).toBe("7");
    expect(await page.getByLabel(/The last book ends at chapter/).inputValue()).toBe("12");
    await page.getByText("No change in coverage.").waitFor();
    await start2.fill("8");
    await page.getByText("Book 2: chapters 8–12 (was chapters 7–12)").waitFor();
    await page.getByText("Chapter 7 (book 2 → book 1)").waitFor();

    // Someone else saves meanwhile.
    const current = await mapOf(id);
    const res = await service.api("PUT", `/api/manga/${id}/chapter-map`, {
      revision: current.chapterMap.revision,
      entries: [
        { volume: "1", chapters: range(1, 5) },
        { volume: "2", chapters: range(6, 12) },
      ],
    });
    expect(res.status).toBe(200);

    await page.getByRole("button", { name: "Save the map" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Someone changed the map meanwhile" });
    await alert.waitFor();
    expect(await alert.innerText()).toContain("The map was not saved; your edits are kept here.");
    expect(await start2.inputValue()).toBe("8");
    expect(page.url()).toContain("/map");
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Reload the current map" }).click();
    const reloaded = page.getByRole("status").filter({ hasText: "Reloaded the current map" });
    await reloaded.waitFor();
    expect(await reloaded.innerText()).toContain("book 2 from chapter 6");
    expect(await start2.inputValue()).toBe("8");
    await page.getByRole("button", { name: "Keep my starts" }).click();
    await page.getByText("Book 2: chapters 8–12").waitFor();

    await page.getByRole("button", { name: "Save the map" }).click();
    await page.waitForURL(`**/series/${id}`);
    const saved = await mapOf(id);
    expect(saved.chapterMap.revision).toBe(current.chapterMap.revision + 2);
    expect(saved.chapterMap.entries).toEqual([
      { volume: "1", chapters: range(1, 7) },
      { volume: "2", chapters: range(8, 12) },
    ]);
    await ctx.close();
  });

  it("removes the operator map after showing what changes", async () => {
    const id = await seriesId(service, "Moss & Meteor");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await page.goto(`/series/${id}/map`);
    await page.getByRole("button", { name: "Remove operator map" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove the operator map?" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("Exact map → no map");
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Remove the map" }).click();
    await page.getByText("The operator map was removed.").waitFor();
    expect(await page.getByRole("textbox", { name: "First chapter of book 1" }).inputValue()).toBe("");
    expect((await mapOf(id)).chapterMap.entries).toEqual([]);
    await ctx.close();
  });

  it("adopts a catalogue suggestion into the editor and ignores one for the visit", async () => {
    const id = await seriesId(service, "The Clockmaker's Apprentice");
    const res = await service.api("POST", `/api/manga/${id}/chapter-map/suggestions`, {
      source: "catalogue:test",
      entries: [
        { volume: "1", chapters: range(1, 10) },
        { volume: "2", chapters: range(11, 20) },
      ],
    });
    expect(res.status).toBe(201);

    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      await page.goto(`/series/${id}/map`);
      const suggestion = page.getByRole("article", { name: "catalogue:test" });
      await suggestion.waitFor();
      expect(await suggestion.innerText()).toContain("Book 2: chapters 11–20");
      await suggestion.getByRole("button", { name: "Adopt catalogue:test" }).click();
      await page.getByText("Filled the starts of 2 books from catalogue:test. Check the preview, then save.").waitFor();
      expect(await page.getByRole("textbox", { name: "First chapter of book 1" }).inputValue()).toBe("1");
      expect(await page.getByRole("textbox", { name: "First chapter of book 2" }).inputValue()).toBe("11");
      expect(await page.getByLabel(/The last book ends at chapter/).inputValue()).toBe("20");
      await page
        .locator("section", { has: page.getByRole("heading", { name: "What saving changes" }) })
        .getByText("Book 2: chapters 11–20")
        .waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      await suggestion.getByRole("button", { name: "Ignore catalogue:test" }).click();
      await page.getByText("catalogue:test is hidden for this visit").waitFor();
      expect(await page.getByRole("article", { name: "catalogue:test" }).count()).toBe(0);
      await ctx.close();
    }
    // Nothing was saved: a suggestion counts only once the operator saves it.
    expect((await mapOf(id)).chapterMap.entries).toEqual([]);
  });
});
