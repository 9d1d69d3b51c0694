/**
 * The sources page against the real service, with a Suwayomi-compatible server started here on
 * 127.0.0.1 and set up through the settings API: the Wanted list explains itself before anything
 * is linked, a work is linked only by search and the operator's confirmation, its priority is set,
 * and the Wanted pass run from the page queues the offered chapters and words the others' reasons.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import {
  PHONE,
  browserSuite,
  loggedInContext,
  seriesId,
  seriousViolations,
  watchErrors,
  type Service,
} from "./harness.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  heldPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "../../server/test/fakes/suwayomi-server.ts";
import { zip } from "../corpus/zip-bytes.ts";

let service: Service;
let browser: Browser;
let fake: FakeSuwayomi;
const SOURCE: FakeSource = { id: "8801", name: "MangaDex", lang: "en" };
/** Lets chapter 28's last page go. */
let releaseChapter28: () => void = () => undefined;

browserSuite((s, b) => {
  service = s;
  browser = b;
});

async function setUp(): Promise<void> {
  const pages = await drawnChapter(4, 5);
  const hold = new Promise<void>((r) => (releaseChapter28 = r));
  fake = await startFakeSuwayomi({
    sources: [SOURCE, { id: "8802", name: "LectorManga", lang: "es" }],
    works: [
      fakeWork({
        id: 501,
        title: "Harbor of Paper Cranes",
        source: SOURCE,
        // Chapter 28's last page waits for the test: its download stays under way while the page is
        // checked (a quick download would read "Fetched" before the test looks at it).
        chapters: [27, 28, 29].map((n) =>
          fakeChapter({
            chapterNumber: n,
            pages: n === 28 ? [...pages.slice(0, -1), heldPage(pages.at(-1)!, hold)] : pages,
          }),
        ),
      }),
      fakeWork({
        id: 502,
        title: "Harbor of Paper Cranes: Side Stories",
        source: SOURCE,
        chapters: [fakeChapter({ chapterNumber: 1, pages })],
      }),
    ],
  });
  await service.gql(
    `mutation($url: String!) { updateSourceSettings(input: { suwayomi: { enabled: true, url: $url, auth: NONE } }) { suwayomi { configured } } }`,
    {
      url: fake.url,
    },
  );
}

/** The label of the provider the search form has chosen. */
const selectedProvider = (page: Page) =>
  page.getByLabel("Provider").evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent?.trim() ?? null);

async function openSources(page: Page, id: number): Promise<void> {
  await page.goto(`/series/${id}/sources`);
  await page.getByRole("heading", { level: 1, name: "Sources" }).waitFor();
  await page.waitForFunction(() => !document.body.innerText.includes("Loading the sources"));
}

const mappings = async (id: number) =>
  (
    await service.gql<{ sourceMappings: { sourceId: string; priority: number; offers: number }[] }>(
      "query($id: Int!) { sourceMappings(seriesId: $id) { sourceId priority offers } }",
      { id },
    )
  ).sourceMappings;

describe("sources page", () => {
  it("links a work by search and confirmation, sets its priority, and runs the Wanted pass with reasons in words", async () => {
    await setUp();
    try {
      const id = await seriesId(service, "Harbor of Paper Cranes");
      const ctx = await loggedInContext(browser, service);
      const page = await ctx.newPage();
      const errors = watchErrors(page);

      // From the series page's header.
      await page.goto(`/series/${id}`);
      await page.getByRole("link", { name: "Sources", exact: true }).click();
      await page.waitForURL(`**/series/${id}/sources`);
      await page.waitForFunction(() => !document.body.innerText.includes("Loading the sources"));
      await page.getByText("No source is linked yet.").waitFor();
      expect(await page.getByText("No pass has run yet.").count()).toBe(1);
      // The refresh button sits at the right end of its heading's row, as the Wanted pass button does.
      const refreshBox = await page.getByRole("button", { name: "Refresh from sources" }).boundingBox();
      const emptyBox = await page.getByText("No source is linked yet.").locator("xpath=../..").boundingBox();
      expect(Math.abs(refreshBox!.x + refreshBox!.width - (emptyBox!.x + emptyBox!.width))).toBeLessThan(2);

      // Before linking: chapter 28 (and so book 4) is wanted because no source offers it.
      await page.getByRole("button", { name: "Run the Wanted pass now" }).click();
      await page.getByText("The Wanted pass ran: nothing new was queued.").waitFor();
      const entries = page.getByTestId("wanted-entry");
      await entries.first().waitFor();
      const chapter28 = entries.filter({ hasText: "Chapter 28" });
      expect(await chapter28.innerText()).toContain(
        "No linked source offers it. Link another source, or refresh the linked ones.",
      );
      expect(await chapter28.innerText()).toContain("no offers");
      expect(await chapter28.getByText("No source", { exact: true }).count()).toBe(1);
      expect(await entries.filter({ hasText: "Book 4" }).count()).toBe(1);

      // Search: Suwayomi is set up, so the search starts on its source in the series' language
      // (not the drop folder); the box starts with the series title; nothing is linked by the search itself.
      await page.getByLabel("Provider").locator("option", { hasText: "MangaDex (en)" }).waitFor({ state: "attached" });
      expect(await selectedProvider(page)).toBe("MangaDex (en)");
      expect(await page.getByLabel("Title").inputValue()).toBe("Harbor of Paper Cranes");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      const results = page.getByRole("list", { name: "Search results" }).getByRole("listitem");
      await results.first().waitFor();
      expect(await results.count()).toBe(2);
      expect(await mappings(id)).toEqual([]);
      const work = results.filter({ hasText: "work 501" });
      expect(await work.innerText()).toContain("MangaDex · en");

      await work.getByRole("button", { name: "Link this work…" }).click();
      const dialog = page.getByRole("dialog", { name: "Link this work?" });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain("Harbor of Paper Cranes");
      await dialog.getByRole("button", { name: "Link this work", exact: true }).click();
      await page.getByText("Linked “Harbor of Paper Cranes”.").waitFor();
      // The result itself reads as linked at once: no second link is offered.
      expect(await work.getByText("Linked", { exact: true }).count()).toBe(1);
      expect(await work.getByRole("button", { name: "Link this work…" }).count()).toBe(0);
      expect(await page.getByText(/3 offers \(3 new, 0 changed, 0 gone\)/).count()).toBe(1);
      const card = page.getByTestId("source-mapping");
      await card.waitFor();
      expect(await card.innerText()).toContain("3 offers");
      expect(await card.innerText()).toContain("No downloads yet");
      expect(await mappings(id)).toMatchObject([{ sourceId: "501", offers: 3 }]);
      // The search now says the work is linked.
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await results.filter({ hasText: "work 501" }).getByText("Linked", { exact: true }).waitFor();

      // Priority through the number input.
      const priority = page.getByLabel(/^Priority of /);
      await priority.fill("5");
      await priority.press("Tab");
      await expect.poll(async () => (await mappings(id))[0]?.priority, { timeout: 10_000 }).toBe(5);

      // Linking ran the pass already (the offered chapter is on its way); a pass from the page
      // queues nothing more, and the rest keep their reason.
      await page.getByRole("button", { name: "Run the Wanted pass now" }).click();
      await page.getByText("The Wanted pass ran: nothing new was queued.").waitFor();
      await chapter28.getByText(/^(Queued|Downloading)$/).waitFor();
      expect(await chapter28.innerText()).toMatch(
        /A download (was queued by the last Wanted pass|of it is already under way)\./,
      );
      expect(await seriousViolations(page)).toEqual([]);
      // Once its download is published, the same ledger says so: not "Queued" until the next pass.
      releaseChapter28();
      await chapter28.getByText("Fetched", { exact: true }).waitFor({ timeout: 20_000 });
      expect(await chapter28.innerText()).toContain(
        "Downloaded since the last Wanted pass; the next pass takes it off this list.",
      );
      expect(await chapter28.innerText()).toContain("1 offer, 1 in a chosen language");
      expect(await page.getByText(/1 slot fetched since the last pass\./).count()).toBe(1);
      expect(await page.getByRole("link", { name: "See the downloads" }).count()).toBe(1);

      expect(await seriousViolations(page)).toEqual([]);

      // A Spanish series starts on the Spanish source.
      const created = await service.api("POST", "/api/manga", { title: "Puerto de Grullas", language: "es" });
      expect(created.status).toBe(201);
      await openSources(page, ((await created.json()) as { id: number }).id);
      await page
        .getByLabel("Provider")
        .locator("option", { hasText: "LectorManga (es)" })
        .waitFor({ state: "attached" });
      expect(await selectedProvider(page)).toBe("LectorManga (es)");
      expect(errors).toEqual([]);
      await ctx.close();
    } finally {
      releaseChapter28();
      await fake.close();
    }
  });

  it("names the drop folder's files it could not offer, with the reason in words, until they are fixed", async () => {
    const id = await seriesId(service, "The Clockmaker's Apprentice");
    const settings = (await (await service.api("GET", "/api/settings/sources")).json()) as {
      drop_folder: { path: string };
    };
    const work = path.join(settings.drop_folder.path, "Clockmaker Drop");
    mkdirSync(work, { recursive: true });
    const pages = await drawnChapter(3, 9);
    const good = await zip(pages.map((p, i) => ({ name: `00${i + 1}.jpg`, data: p.bytes })));
    writeFileSync(path.join(work, "Clockmaker c090.cbz"), good);
    // Cut short, as a copy still under way leaves it.
    writeFileSync(path.join(work, "Clockmaker c091.cbz"), good.subarray(0, 600));
    const linked = await service.api("POST", `/api/manga/${id}/sources`, {
      provider: "drop-folder",
      source_id: "Clockmaker Drop",
      language: "en",
    });
    expect(linked.status).toBe(201);

    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openSources(page, id);
    const problems = page.getByTestId("drop-problems");
    await problems.waitFor();
    await problems.getByText("1 file could not be offered").click();
    await problems.getByText("Clockmaker c091.cbz").waitFor();
    expect(await problems.innerText()).toContain("The archive is truncated (still being copied?).");
    expect(await seriousViolations(page)).toEqual([]);

    // The copy finished: a refresh from the page offers it and the problem is gone.
    writeFileSync(path.join(work, "Clockmaker c091.cbz"), good);
    await page.getByRole("button", { name: "Refresh from sources" }).click();
    await expect.poll(() => problems.count(), { timeout: 10_000 }).toBe(0);
    await expect
      .poll(async () => (await mappings(id)).find((m) => m.sourceId === "Clockmaker Drop")?.offers, { timeout: 10_000 })
      .toBe(2);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("says where the drop folder is when a search there finds nothing, and finds the work once it is there", async () => {
    const id = await seriesId(service, "Lanterns of the Salt Road");
    const settings = (await (await service.api("GET", "/api/settings/sources")).json()) as {
      drop_folder: { path: string };
    };
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openSources(page, id);
    await page.getByLabel("Provider").selectOption({ label: "Drop folder" });
    await page.getByLabel("Title").fill("Salt Road Drop");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const status = page.getByRole("status").filter({ hasText: "Nothing found in the drop folder" });
    await status.waitFor();
    expect(await status.innerText()).toContain(`in a folder named as its title in ${settings.drop_folder.path}`);
    expect(await seriousViolations(page)).toEqual([]);

    const work = path.join(settings.drop_folder.path, "Salt Road Drop");
    mkdirSync(work, { recursive: true });
    const pages = await drawnChapter(2, 11);
    writeFileSync(
      path.join(work, "Salt Road c001.cbz"),
      await zip(pages.map((p, i) => ({ name: `00${i + 1}.jpg`, data: p.bytes }))),
    );
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const results = page.getByRole("list", { name: "Search results" }).getByRole("listitem");
    await results.first().waitFor();
    expect(await results.first().innerText()).toContain("Salt Road Drop");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("has no serious axe violations at phone size and fits the screen", async () => {
    const id = await seriesId(service, "Moss & Meteor");
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    await openSources(page, id);
    await page.getByRole("heading", { level: 2, name: "Link a source" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await ctx.close();
  });

  it("lists what is wanted across the library on the Wanted page, filtered by reason, at desktop and phone size", async () => {
    // A series no source offers anything for: its map makes chapters 1–2 and book 1 wanted.
    const created = await service.api("POST", "/api/manga", { title: "Quiet Orchard" });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: number }).id;
    const mapped = await service.api("PUT", `/api/manga/${id}/chapter-map`, {
      revision: 0,
      entries: [{ volume: "1", chapters: ["1", "2"] }],
    });
    expect(mapped.status).toBe(200);

    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Wanted" }).click();
    await page.waitForURL("**/wanted");
    await page.getByRole("heading", { level: 1, name: "Wanted" }).waitFor();
    // No pass has run for it yet: the page runs the scheduled pass over every series on request.
    const group = page.getByRole("region", { name: "Quiet Orchard" });
    await page.getByText(/The next one runs/).waitFor();
    expect(await group.count()).toBe(0);
    await page.getByRole("button", { name: "Run the Wanted pass for every series" }).click();
    await page.getByText(/^The Wanted pass ran for \d+ series/).waitFor({ timeout: 30_000 });
    await group.waitFor();
    expect(await page.getByText(/^Last pass over every series/).count()).toBe(1);
    const entries = group.getByTestId("wanted-entry");
    expect(await entries.count()).toBe(3);
    const chapter1 = entries.filter({ hasText: "Chapter 1" });
    expect(await chapter1.getByText("No source", { exact: true }).count()).toBe(1);
    expect(await chapter1.innerText()).toContain("No linked source offers it.");
    expect(await entries.filter({ hasText: "Book 1" }).count()).toBe(1);
    expect(await group.getByRole("link", { name: "Sources and Wanted pass" }).getAttribute("href")).toBe(
      `/series/${id}/sources`,
    );
    expect(await seriousViolations(page)).toEqual([]);

    // "On the way" asks the server for those reasons only: this series has none.
    await page.getByRole("button", { name: "On the way" }).click();
    await page.waitForURL("**/wanted?show=on-the-way");
    await expect.poll(() => group.count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByRole("button", { name: "On the way" }).getAttribute("aria-pressed")).toBe("true");
    await page.getByRole("button", { name: "Needs a source" }).click();
    await page.waitForURL("**/wanted?show=needs-source");
    await group.waitFor();
    expect(await group.getByTestId("wanted-entry").count()).toBe(3);
    expect(errors).toEqual([]);
    await ctx.close();

    const phone = await loggedInContext(browser, service, PHONE);
    const small = await phone.newPage();
    await small.goto("/wanted");
    await small.getByRole("region", { name: "Quiet Orchard" }).waitFor();
    expect(await seriousViolations(small)).toEqual([]);
    const overflow = await small.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.close();
  });
});
