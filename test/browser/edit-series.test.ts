/**
 * Edit series from the series page: the dialog sends only what changed through `updateSeries`,
 * the page then shows the form and badges the service answers; a refusal stands next to its field
 * and changes nothing; the dialog works by keyboard and at phone size (axe, nothing sideways).
 */
import { describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  PHONE,
  browserSuite,
  loggedInContext,
  seriesId,
  seriousViolations,
  watchErrors,
  type Service,
} from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

interface SeriesJson {
  title: string;
  form: string;
  form_override: string | null;
  language: string;
  status: string;
  known_book_count: number | null;
  webtoon: boolean;
  monitored: boolean;
}

const read = async (id: number) => (await (await service.api("GET", `/api/manga/${id}`)).json()) as SeriesJson;
const badges = (page: Page) => page.locator(".series-head .badges .badge").allTextContents();
const rows = (page: Page) =>
  page.locator("[data-row]").evaluateAll((els) => els.map((e) => e.getAttribute("data-row") ?? ""));
const completion = (page: Page) => page.getByTestId("series-completion").textContent();
const dialogOf = (page: Page) => page.getByRole("dialog", { name: "Edit series" });

async function openSeries(ctx: BrowserContext, id: number): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(`/series/${id}`);
  await page.getByRole("heading", { level: 1 }).waitFor();
  await page.locator('.content[aria-busy="false"]').waitFor();
  return page;
}

/** Opens the dialog and waits for the series' fields in it. */
async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Edit series…" }).click();
  const dialog = dialogOf(page);
  await dialog.getByRole("textbox", { name: "Title" }).waitFor();
  return dialog;
}

/** The `input` of the next updateSeries request the page sends. */
function nextUpdateInput(page: Page): Promise<Record<string, unknown>> {
  return page
    .waitForRequest((r) => r.url().endsWith("/graphql") && (r.postData() ?? "").includes("mutation UpdateSeries"))
    .then(
      (r) => (JSON.parse(r.postData() ?? "{}") as { variables: { input: Record<string, unknown> } }).variables.input,
    );
}

describe("edit series", () => {
  it("marks a books series a webtoon, paused, with a book count: only those fields travel, the page shows the new form", async () => {
    const id = await seriesId(service, "Lanterns of the Salt Road");
    const ctx = await loggedInContext(browser, service);
    const page = await openSeries(ctx, id);
    const errors = watchErrors(page);
    expect(await badges(page)).toEqual(["Books", "Finished", "No map"]);
    expect(await rows(page)).toEqual(["book:1", "book:2", "book:3", "book:4"]);
    expect(await completion(page)).toBe("All books");

    const dialog = await openDialog(page);
    expect(await dialog.getByRole("textbox", { name: "Title" }).inputValue()).toBe("Lanterns of the Salt Road");
    expect(await dialog.getByRole("textbox", { name: "Language", exact: true }).inputValue()).toBe("en");
    expect(await dialog.getByRole("combobox", { name: "Publication status" }).inputValue()).toBe("FINISHED");
    expect(await dialog.getByRole("textbox", { name: "Known book count" }).inputValue()).toBe("4");
    expect(await dialog.getByRole("textbox", { name: "Edition book count" }).inputValue()).toBe("");
    expect(await dialog.getByRole("radio", { name: "Automatic" }).isChecked()).toBe(true);
    expect(await dialog.getByText("Automatic follows the publication status").textContent()).toContain("(now: Books)");
    expect(await dialog.getByRole("checkbox", { name: "Monitored" }).isChecked()).toBe(true);

    await dialog.getByRole("checkbox", { name: "Webtoon" }).check();
    await dialog.getByRole("combobox", { name: "Publication status" }).selectOption({ label: "Paused" });
    await dialog.getByRole("textbox", { name: "Known book count" }).fill("6");
    await dialog.getByRole("checkbox", { name: "Monitored" }).uncheck();
    const sent = nextUpdateInput(page);
    await dialog.getByRole("button", { name: "Save" }).click();
    expect(await sent).toEqual({ webtoon: true, status: "PAUSED", knownBookCount: 6, monitored: false });
    await dialog.waitFor({ state: "hidden" });

    // A webtoon is chapters whatever its book count: the service says so, the page shows it.
    await expect.poll(() => badges(page)).toEqual(["Chapters", "Paused", "Webtoon", "Not monitored", "No map"]);
    // The book count brought its books along: the two not on disk are listed, and as the series is
    // no longer monitored, they are not counted missing.
    await expect.poll(() => rows(page)).toEqual(["book:1", "book:2", "book:3", "book:4", "book:5", "book:6"]);
    expect(await completion(page)).toBe("Nothing missing");
    const after = await read(id);
    expect(after).toMatchObject({
      form: "chapters",
      form_override: null,
      status: "paused",
      known_book_count: 6,
      webtoon: true,
      monitored: false,
      title: "Lanterns of the Salt Road",
      language: "en",
    });

    // Forcing the form: Books wins over the webtoon rule; Automatic gives the decision back.
    const again = await openDialog(page);
    expect(await again.getByRole("checkbox", { name: "Webtoon" }).isChecked()).toBe(true);
    expect(await again.getByText("Automatic follows the publication status").textContent()).toContain(
      "(now: Chapters)",
    );
    await again.getByRole("radio", { name: "Books" }).check();
    const forced = nextUpdateInput(page);
    await again.getByRole("button", { name: "Save" }).click();
    expect(await forced).toEqual({ formOverride: "BOOKS" });
    await expect.poll(async () => (await badges(page))[0]).toBe("Books");
    expect((await read(id)).form_override).toBe("books");

    const back = await openDialog(page);
    expect(await back.getByRole("radio", { name: "Books" }).isChecked()).toBe(true);
    await back.getByRole("radio", { name: "Automatic" }).check();
    const cleared = nextUpdateInput(page);
    await back.getByRole("button", { name: "Save" }).click();
    expect(await cleared).toEqual({ formOverride: null });
    await expect.poll(async () => (await badges(page))[0]).toBe("Chapters");
    expect(await read(id)).toMatchObject({ form: "chapters", form_override: null });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("shows a refused language next to its field, changes nothing and stays open; fixed, it saves", async () => {
    const id = await seriesId(service, "Moss & Meteor");
    const before = await read(id);
    const ctx = await loggedInContext(browser, service);
    const page = await openSeries(ctx, id);
    const dialog = await openDialog(page);
    await dialog.getByRole("textbox", { name: "Title" }).fill("Moss and Meteor");
    const language = dialog.getByRole("textbox", { name: "Language", exact: true });
    await language.fill("english");
    await dialog.getByRole("button", { name: "Save" }).click();

    const message = dialog.locator("#edit-series-language-error");
    await message.waitFor();
    expect(await message.textContent()).toContain("language must be a language code");
    expect(await language.getAttribute("aria-invalid")).toBe("true");
    expect((await language.getAttribute("aria-describedby"))?.split(" ")).toContain("edit-series-language-error");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("edit-series-language");
    expect(await dialog.isVisible()).toBe(true);
    // Nothing changed, not even the valid title sent with it.
    expect(await read(id)).toEqual(before);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Moss & Meteor");

    // A count box that is no number is held back with a word, before anything is sent.
    await language.fill("en");
    await dialog.getByRole("textbox", { name: "Known book count" }).fill("four");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByText("Enter a whole number").waitFor();
    expect(await message.count()).toBe(0);
    expect(await read(id)).toEqual(before);

    await dialog.getByRole("textbox", { name: "Known book count" }).fill("");
    const sent = nextUpdateInput(page);
    await dialog.getByRole("button", { name: "Save" }).click();
    expect(await sent).toEqual({ title: "Moss and Meteor" });
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("heading", { level: 1, name: "Moss and Meteor" }).waitFor();
    expect(await read(id)).toEqual({ ...before, title: "Moss and Meteor" });
    await ctx.close();
  });

  it("opens again when its opener is pressed right after Escape, before the browser reports the close", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    const ctx = await loggedInContext(browser, service);
    const page = await openSeries(ctx, id);
    const errors = watchErrors(page);
    const dialog = await openDialog(page);
    // One task: the close request (as Escape sends it) and the opener's click, before `close` arrives.
    await page.evaluate(() => {
      const open = document.querySelector<HTMLDialogElement & { requestClose(): void }>("dialog[open]")!;
      open.requestClose();
      [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === "Edit series…")!.click();
    });
    await dialog.getByRole("textbox", { name: "Title" }).waitFor();
    // Still open once the earlier close has been reported.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.getByRole("textbox", { name: "Title" }).inputValue()).toBe("Harbor of Paper Cranes");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("works by keyboard and at phone size: Escape drops the draft, focus returns, axe clean, nothing sideways", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await openSeries(ctx, id);
    const errors = watchErrors(page);
    const dialog = await openDialog(page);
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // The last control and the footer are reachable on the small screen.
    const assemble = dialog.getByRole("checkbox", { name: "Assemble books automatically" });
    await assemble.scrollIntoViewIfNeeded();
    expect(await assemble.isVisible()).toBe(true);
    expect(await dialog.getByRole("button", { name: "Save" }).isVisible()).toBe(true);

    await dialog.getByRole("textbox", { name: "Title" }).fill("Not kept");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Edit series…");
    expect((await read(id)).title).toBe("Harbor of Paper Cranes");

    // Opened again, the dialog shows the series as the service has it, not the dropped draft.
    await page.keyboard.press("Enter");
    const again = dialogOf(page);
    await again.getByRole("textbox", { name: "Title" }).waitFor();
    expect(await again.getByRole("textbox", { name: "Title" }).inputValue()).toBe("Harbor of Paper Cranes");
    await again.getByRole("checkbox", { name: "Assemble books automatically" }).check();
    await again.getByRole("button", { name: "Save" }).click();
    await again.waitFor({ state: "hidden" });
    await expect
      .poll(
        async () =>
          ((await (await service.api("GET", `/api/manga/${id}`)).json()) as Record<string, unknown>)
            .assemble_books_automatically,
      )
      .toBe(true);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
