/**
 * A newcomer's first session, in Chromium against a service that starts empty (no demo library),
 * with a Suwayomi-compatible server started here: the empty library says how to add a series, a
 * series made in the web client names its folder, files put there show after a rescan, linking a
 * source brings chapters to the series page and the downloads page live. Pages that subscribe to
 * live events show a change made before their subscription reached the server (the WebSocket is
 * held back here): they ask again once it is connected. The map editor fits a phone's width, and
 * Settings says why Suwayomi did not answer in words.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { jpeg, zip } from "../corpus/zip-bytes.ts";
import { PHONE, browserSuite, loggedInContext, watchErrors, type Service } from "./harness.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  slowPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "../../server/test/fakes/suwayomi-server.ts";

let service: Service;
let browser: Browser;
let fake: FakeSuwayomi;
const SOURCE: FakeSource = { id: "7701", name: "MangaDex", lang: "en" };

browserSuite(
  (s, b) => {
    service = s;
    browser = b;
  },
  { DEMO_LIBRARY: "0", DOWNLOADS_TOTAL: "1", DOWNLOAD_PAGE_CONCURRENCY: "1", DOWNLOAD_POLL_MS: "200" },
);

beforeAll(async () => {
  const pages = await drawnChapter(4, 7);
  fake = await startFakeSuwayomi({
    sources: [SOURCE],
    works: [
      fakeWork({
        id: 701,
        title: "Lantern Orchard",
        source: SOURCE,
        // Chapter 4's last page takes its time: its download is seen under way, three pages in.
        chapters: [3, 4].map((n) =>
          fakeChapter({
            chapterNumber: n,
            pages: n === 4 ? [...pages.slice(0, -1), slowPage(pages.at(-1)!, 4_000)] : pages,
          }),
        ),
      }),
    ],
  });
});
afterAll(() => fake.close());

async function cbz(pages: number, seed: number): Promise<Buffer> {
  const entries = [];
  for (let i = 1; i <= pages; i++)
    entries.push({ name: `${String(i).padStart(3, "0")}.jpg`, data: await jpeg(seed + i) });
  return zip(entries);
}

async function createSeries(title: string): Promise<{ id: number; folder: string }> {
  const res = await service.api("POST", "/api/manga", { title });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; folder: string };
}

async function putChapter(folder: string, name: string, seed: number): Promise<void> {
  const dir = path.join(service.libraryRoot, folder);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, name), await cbz(3, seed));
}

/**
 * Holds the page's graphql-ws connection until the returned function is called: the page sees its
 * socket open, but nothing reaches the server (so no subscription is live) until then.
 */
async function holdLiveConnection(page: Page): Promise<() => void> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  await page.routeWebSocket(/\/graphql$/, async (ws) => {
    const held: (string | Buffer)[] = [];
    ws.onMessage((m) => held.push(m));
    await gate;
    const server = ws.connectToServer();
    ws.onMessage((m) => server.send(m));
    for (const m of held) server.send(m);
  });
  return release;
}

/** A loopback port nothing listens on (taken from the system, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Elements of the main area that scroll sideways or stick out of the screen (phone layouts). */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("main *")) {
      if (el.closest(".visually-hidden")) continue;
      const style = getComputedStyle(el);
      const scrolls = style.overflowX === "auto" || style.overflowX === "scroll";
      if (scrolls && el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName}.${el.className} scrolls`);
      if (el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        out.push(`${el.tagName}.${el.className} sticks out`);
    }
    return out;
  });

describe("a newcomer's first session", () => {
  it("the empty library points to Add a series; the new series names its folder; files put there show after Rescan", async () => {
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto("/");
    await page.getByRole("heading", { name: "Your library is empty" }).waitFor();
    await page.locator(".empty").getByRole("link", { name: "Add a series" }).click();
    await page.waitForURL("**/add-series");
    await page.getByLabel("Title").fill("Quiet Harbour");
    await page.getByRole("button", { name: "Add “Quiet Harbour”" }).click();
    await page.waitForURL(/\/series\/\d+$/);
    const hint = page.getByTestId("empty-hint");
    await hint.waitFor();
    expect(await hint.innerText()).toContain("Quiet Harbour/ under the library root");
    expect(await hint.getByRole("link", { name: "Sources" }).getAttribute("href")).toMatch(/\/series\/\d+\/sources$/);

    await putChapter("Quiet Harbour", "Quiet Harbour c001.cbz", 10);
    await page.getByRole("button", { name: "Rescan" }).click();
    await page.locator('[data-row="chapter:1"]').waitFor();
    expect(await sideways(page)).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("a change made before the series page's subscription is live shows once it connects, without a reload", async () => {
    const { id, folder } = await createSeries("Held Signal");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    const release = await holdLiveConnection(page);
    await page.goto(`/series/${id}`);
    await page.getByTestId("empty-hint").waitFor();

    await putChapter(folder, "Held Signal c001.cbz", 20);
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    // Neither the page's query (already answered) nor its subscription (not live) saw the scan.
    expect(await page.locator('[data-row="chapter:1"]').count()).toBe(0);
    release();
    await page.locator('[data-row="chapter:1"]').waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("the library page shows series a scan found while it was open, without a reload", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    const release = await holdLiveConnection(page);
    await page.goto("/");
    await page.getByRole("link", { name: /Held Signal/ }).waitFor();

    // Before the page's subscription is live: shown once it connects.
    await putChapter("Pale Lantern", "Pale Lantern c001.cbz", 30);
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    release();
    await page.getByRole("link", { name: /Pale Lantern/ }).waitFor({ timeout: 15_000 });

    // And while it is live: pushed.
    await putChapter("Amber Tide", "Amber Tide c001.cbz", 40);
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    await page.getByRole("link", { name: /Amber Tide/ }).waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("Settings says in words why Suwayomi did not answer, never fetch's bare `fetch failed`", async () => {
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto("/settings");
    const form = page.getByRole("form", { name: "Suwayomi" });
    await form.getByLabel("Use Suwayomi").check();
    await form.getByLabel("URL").fill(`http://127.0.0.1:${await closedPort()}`);
    await form.getByRole("button", { name: "Save Suwayomi settings" }).click();
    const alert = form.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toContain("nothing answers at that address (connection refused)");
    expect(await alert.innerText()).not.toContain("fetch failed");
    expect(await sideways(page)).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("Suwayomi set up, a source linked on the Sources page: the downloads page and the series page show progress in words and the series page gains the chapters live", async () => {
    await service.gql(
      `mutation($url: String!) { updateSourceSettings(input: { suwayomi: { enabled: true, url: $url, auth: NONE } }) { suwayomi { configured } } }`,
      { url: fake.url },
    );
    const { id } = await createSeries("Lantern Orchard");
    const ctx = await loggedInContext(browser, service, PHONE);
    const series = await ctx.newPage();
    const downloads = await ctx.newPage();
    const sources = await ctx.newPage();
    const seriesErrors = watchErrors(series);
    const downloadErrors = watchErrors(downloads);
    const sourceErrors = watchErrors(sources);
    // Held until both are open: whatever happens before they are live still shows.
    const releaseSeries = await holdLiveConnection(series);
    const releaseDownloads = await holdLiveConnection(downloads);
    await series.goto(`/series/${id}`);
    await series.getByTestId("empty-hint").waitFor();
    await downloads.goto("/downloads");
    await downloads.getByText("No downloads yet.").waitFor();

    await sources.goto(`/series/${id}/sources`);
    await sources.getByLabel("Provider").selectOption({ label: "MangaDex (en)" });
    await sources.getByRole("button", { name: "Search", exact: true }).click();
    const work = sources.getByRole("list", { name: "Search results" }).getByRole("listitem").first();
    await work.getByRole("button", { name: "Link this work…" }).click();
    await sources
      .getByRole("dialog", { name: "Link this work?" })
      .getByRole("button", { name: "Link this work", exact: true })
      .click();
    await sources.getByText("Linked “Lantern Orchard”.").waitFor();
    releaseSeries();
    releaseDownloads();

    // Chapter 4 waits on its last page: three of four pages, in words a person reads.
    await downloads.getByText("Chapter 4: 3 of 4 pages · 75 %").waitFor({ timeout: 20_000 });
    // The series page says what is under way for it, with the same progress, until it is published.
    const underWay = series.getByTestId("series-downloads");
    await underWay.getByText("Chapter 4: 3 of 4 pages · 75 %").waitFor({ timeout: 20_000 });
    expect(await underWay.getByRole("link", { name: "See the downloads" }).getAttribute("href")).toBe("/downloads");
    await series.locator('[data-row="chapter:3"]').getByText("Owned", { exact: true }).waitFor({ timeout: 20_000 });
    await series.locator('[data-row="chapter:4"]').getByText("Owned", { exact: true }).waitFor({ timeout: 20_000 });
    await downloads.getByText("Under way (0)").waitFor({ timeout: 20_000 });
    await underWay.waitFor({ state: "detached", timeout: 20_000 });
    for (const p of [series, downloads]) expect(await sideways(p)).toEqual([]);
    expect([...seriesErrors, ...downloadErrors, ...sourceErrors]).toEqual([]);
    await ctx.close();
  });

  it("the map editor's table fits a phone's width: Remove is on screen, nothing scrolls sideways", async () => {
    const { id, folder } = await createSeries("Narrow Ledger");
    await putChapter(folder, "Narrow Ledger c001.cbz", 50);
    await putChapter(folder, "Narrow Ledger c002.cbz", 60);
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto(`/series/${id}/map`);
    await page.getByRole("heading", { level: 1, name: "Chapter map" }).waitFor();
    const remove = page.getByRole("button", { name: /^Remove / }).first();
    await remove.waitFor();
    const box = await remove.boundingBox();
    const frame = await page.locator("table.starts").locator("xpath=..").boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(frame!.x + frame!.width + 0.5);
    expect(await sideways(page)).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
