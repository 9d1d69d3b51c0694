/**
 * The download queue against the real service, with a Suwayomi-compatible server started here on
 * 127.0.0.1 (slow pages, one download at a time): the empty queue says how downloads start; a
 * chapter progresses live to published and the series page then shows it owned; a queued download
 * is cancelled after a confirm; a degraded one shows the verdict's reasons in words; a release is
 * blocked with its cancel or afterwards, listed under "Blocked releases", and unblocked there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  chapterWithBlackCards,
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
const SOURCE: FakeSource = { id: "9901", name: "MangaDex", lang: "en" };
const PROVIDER = `suwayomi:${SOURCE.id}`;

// One download at a time, one page at a time: progress has visible steps and later rows stay queued.
browserSuite(
  (s, b) => {
    service = s;
    browser = b;
  },
  { DOWNLOADS_TOTAL: "1", DOWNLOADS_PER_PROVIDER: "1", DOWNLOAD_PAGE_CONCURRENCY: "1", DOWNLOAD_POLL_MS: "200" },
);

beforeAll(async () => {
  fake = await startFakeSuwayomi({ works: [], sources: [SOURCE] });
});
afterAll(() => fake.close());

interface Row {
  id: number;
  seriesId: number;
  chapter: string | null;
  state: string;
}
const queueOf = async () =>
  (await service.gql<{ downloadQueue: Row[] }>("{ downloadQueue { id seriesId chapter state } }")).downloadQueue;

async function configure(): Promise<void> {
  await service.gql(
    `mutation($url: String!) { updateSourceSettings(input: { suwayomi: { enabled: true, url: $url, auth: NONE } }) { suwayomi { configured } } }`,
    {
      url: fake.url,
    },
  );
}

/**
 * Search then link (what the sources page does), then run the Wanted pass. Linking refreshes the
 * source and plans already, so the count is the series' downloads in the queue afterwards.
 */
async function linkAndPass(id: number, workId: number): Promise<number> {
  await service.gql(`mutation($id: Int!, $p: String!) { searchSources(seriesId: $id, provider: $p) { providerId } }`, {
    id,
    p: PROVIDER,
  });
  await service.gql(
    `mutation($id: Int!, $p: String!, $w: String!) { linkSource(seriesId: $id, provider: $p, sourceId: $w, language: "en") { mapping { id } } }`,
    {
      id,
      p: PROVIDER,
      w: String(workId),
    },
  );
  await service.gql(`mutation($id: Int!) { runWantedPass(seriesId: $id) { queued } }`, { id });
  return (await queueOf()).filter((d) => d.seriesId === id).length;
}

/** Retires the files of these chapters through the reviewed retirement, so they are wanted again. */
async function retireChapters(id: number, numbers: string[]): Promise<void> {
  const files = (
    await service.gql<{ audit: { files: { id: number; number: string | null; kind: string }[] } }>(
      "query($id: Int!) { audit(seriesId: $id) { files { id number kind } } }",
      { id },
    )
  ).audit.files;
  const ids = files.filter((f) => f.number !== null && numbers.includes(f.number)).map((f) => f.id);
  expect(ids).toHaveLength(numbers.length);
  const preview = await service.gql<{ previewRetirement: { confirmation: string } }>(
    "mutation($id: Int!, $f: [Int!]!) { previewRetirement(seriesId: $id, fileIds: $f) { confirmation } }",
    { id, f: ids },
  );
  await service.gql(
    "mutation($id: Int!, $c: String!) { retireFiles(seriesId: $id, confirmation: $c) { retired { fileId } } }",
    { id, c: preview.previewRetirement.confirmation },
  );
}

async function openQueue(page: Page): Promise<void> {
  await page.goto("/downloads");
  await page.getByRole("heading", { level: 1, name: "Downloads" }).waitFor();
  await page.waitForFunction(() => !document.body.innerText.includes("Loading the downloads"));
}

const row = (page: Page, title: string, subject: string) =>
  page.getByTestId("download").filter({ hasText: `${title} · ${subject}` });

describe("download queue", () => {
  it("says how downloads start while empty; axe clean at desktop and phone size", async () => {
    await configure();
    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      await page.goto("/");
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Downloads" }).click();
      await page.waitForURL("**/downloads");
      await page.getByText("No downloads yet.").waitFor();
      expect(await page.locator("main").innerText()).toContain("run the Wanted pass");
      expect(await seriousViolations(page)).toEqual([]);
      await ctx.close();
    }
  });

  it("shows a chapter progressing live to published; the series page then shows it owned", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    const pages = (await drawnChapter(6, 28)).map((p) => slowPage(p, 400));
    fake.works.push(
      fakeWork({
        id: 601,
        title: "Harbor of Paper Cranes",
        source: SOURCE,
        chapters: [fakeChapter({ chapterNumber: 28, pages })],
      }),
    );
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openQueue(page);
    await page.getByText("No downloads yet.").waitFor();

    expect(await linkAndPass(id, 601)).toBe(1);
    const ch28 = row(page, "Harbor of Paper Cranes", "Chapter 28");
    await ch28.waitFor({ timeout: 15_000 });
    // Live progress from the subscription: a bar with pages done of the total.
    await ch28.getByRole("progressbar").waitFor({ timeout: 15_000 });
    await ch28.getByText(/Chapter 28: [1-5] of 6 pages/).waitFor({ timeout: 15_000 });
    await ch28.getByText("Published", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await ch28.innerText()).toContain("In the library (6 pages)");
    expect(await page.getByRole("heading", { name: "Under way (0)" }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await ch28.getByRole("link", { name: "Harbor of Paper Cranes" }).click();
    await page.waitForURL(`**/series/${id}`);
    const chapterRow = page.locator('[data-row="chapter:28"]');
    await chapterRow.waitFor({ timeout: 15_000 });
    expect(await chapterRow.getByTestId("owned").innerText()).toBe("Owned");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("cancels a queued download after a confirm, and words a degraded one", async () => {
    const id = await seriesId(service, "The Clockmaker's Apprentice");
    await retireChapters(id, ["5", "6", "7"]);
    const slow = (await drawnChapter(8, 5)).map((p) => slowPage(p, 500));
    fake.works.push(
      fakeWork({
        id: 602,
        title: "The Clockmaker's Apprentice",
        source: SOURCE,
        chapters: [
          fakeChapter({ chapterNumber: 5, pages: await chapterWithBlackCards(25, 4, 9) }),
          fakeChapter({ chapterNumber: 6, pages: slow }),
          fakeChapter({ chapterNumber: 7, pages: slow }),
        ],
      }),
    );
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openQueue(page);
    expect(await linkAndPass(id, 602)).toBe(3);
    const title = "The Clockmaker's Apprentice";

    // One at a time: chapter 7 waits in the queue behind the others.
    const ch7 = row(page, title, "Chapter 7");
    await ch7.waitFor({ timeout: 15_000 });
    expect(await ch7.getAttribute("data-state")).toBe("QUEUED");
    // This row's download: a later pass may queue the still-wanted chapter again as a new download.
    const ch7Id = (await queueOf()).find((d) => d.seriesId === id && d.chapter === "7")!.id;
    await ch7.getByRole("button", { name: /^Cancel / }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this download?" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("Chapter 7");
    await dialog.getByRole("button", { name: "Cancel download" }).click();
    await page.getByText(`Cancelled Chapter 7 of ${title}.`).waitFor();
    await ch7.getByText("Cancelled", { exact: true }).waitFor({ timeout: 10_000 });
    expect((await queueOf()).find((d) => d.id === ch7Id)?.state).toBe("CANCELLED");

    // Chapter 5 came with 4 black cards of 25 pages: degraded, in words.
    const ch5 = row(page, title, "Chapter 5");
    await ch5.getByText("Degraded", { exact: true }).waitFor({ timeout: 30_000 });
    await ch5
      .getByText("4 of 25 pages are black cards (16 %, more than the 15 % allowed).")
      .waitFor({ timeout: 15_000 });
    expect(await seriousViolations(page)).toEqual([]);
    // The row leads to what the Wanted pass plans for the series.
    await ch5.getByRole("link", { name: `What the Wanted pass plans for ${title}` }).click();
    await page.waitForURL(`**/series/${id}/sources#wanted-heading`);
    const wanted = page.getByRole("region", { name: "Wanted" });
    await wanted.getByText("Chapter 5", { exact: false }).first().waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);

    // Leave nothing running behind the test.
    for (const d of (await queueOf()).filter((r) => ["QUEUED", "WAITING", "FETCHING", "JUDGING"].includes(r.state))) {
      await service.gql("mutation($id: Int!) { cancelDownload(id: $id) { id } }", { id: d.id }).catch(() => undefined);
    }
    await ctx.close();
  });

  it("blocks a release with its cancel or afterwards; the blocklist lists them and lifts a block", async () => {
    const title = "The Clockmaker's Apprentice";
    const id = await seriesId(service, title);
    await retireChapters(id, ["11", "12"]);
    const slow = (await drawnChapter(8, 11)).map((p) => slowPage(p, 500));
    fake.works.push(
      fakeWork({
        id: 603,
        title,
        source: SOURCE,
        chapters: [fakeChapter({ chapterNumber: 11, pages: slow }), fakeChapter({ chapterNumber: 12, pages: slow })],
      }),
    );
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openQueue(page);
    expect(await linkAndPass(id, 603)).toBeGreaterThanOrEqual(2);

    // Chapter 12 waits in the queue: cancel it and block its release in the same dialog.
    const ch12 = row(page, title, "Chapter 12").and(page.locator('[data-state="QUEUED"]'));
    await ch12.waitFor({ timeout: 15_000 });
    await ch12.getByRole("button", { name: /^Cancel / }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this download?" });
    await dialog.waitFor();
    await dialog.getByRole("checkbox", { name: /Block this release/ }).check();
    await dialog.getByRole("button", { name: "Cancel and block" }).click();
    await page
      .getByText(`Cancelled Chapter 12 of ${title} and blocked its release; another release is looked for now.`)
      .waitFor();
    const blockedList = page.getByRole("region", { name: /Blocked releases/ });
    await blockedList.getByRole("heading", { name: "Blocked releases (1)" }).waitFor({ timeout: 10_000 });
    expect(await blockedList.getByTestId("blocked-release").innerText()).toContain(`${title} · Chapter 12`);
    const cancelled12 = row(page, title, "Chapter 12").and(page.locator('[data-state="CANCELLED"]'));
    await cancelled12.getByText("Release blocked").waitFor({ timeout: 10_000 });

    // Chapter 11: cancelled without a block, then blocked from its row.
    const ch11 = row(page, title, "Chapter 11").and(page.locator('[data-state="FETCHING"], [data-state="QUEUED"]'));
    await ch11.waitFor({ timeout: 15_000 });
    await ch11.getByRole("button", { name: /^Cancel / }).click();
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Cancel download" }).click();
    await page.getByText(`Cancelled Chapter 11 of ${title}.`).waitFor();
    const cancelled11 = row(page, title, "Chapter 11").and(page.locator('[data-state="CANCELLED"]'));
    await cancelled11.getByRole("button", { name: /^Block release of / }).click({ timeout: 10_000 });
    const blockDialog = page.getByRole("dialog", { name: "Block this release?" });
    await blockDialog.getByRole("button", { name: "Block release" }).click();
    await page.getByText(`Blocked the release of Chapter 11 of ${title}; another release is looked for now.`).waitFor();
    await blockedList.getByRole("heading", { name: "Blocked releases (2)" }).waitFor({ timeout: 10_000 });
    await cancelled11.getByText("Release blocked").waitFor({ timeout: 10_000 });
    expect(await seriousViolations(page)).toEqual([]);

    // Lifting a block.
    await blockedList.getByRole("button", { name: `Unblock ${title} Chapter 12` }).click();
    await blockedList
      .getByText(`Unblocked Chapter 12 of ${title}: the next Wanted pass may choose it again.`)
      .waitFor();
    await blockedList.getByRole("heading", { name: "Blocked releases (1)" }).waitFor();
    const rest = await service.gql<{ blocklist: { chapter: string }[] }>("{ blocklist { chapter } }");
    expect(rest.blocklist.map((b) => b.chapter)).toEqual(["11"]);

    // The series' Sources page lists its blocks too.
    await page.goto(`/series/${id}/sources`);
    const ofSeries = page.getByRole("region", { name: /Blocked releases/ });
    await ofSeries.getByRole("heading", { name: "Blocked releases (1)" }).waitFor({ timeout: 10_000 });
    expect(await ofSeries.getByTestId("blocked-release").innerText()).toContain(`${title} · Chapter 11`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);

    for (const d of (await queueOf()).filter((r) => ["QUEUED", "WAITING", "FETCHING", "JUDGING"].includes(r.state))) {
      await service.gql("mutation($id: Int!) { cancelDownload(id: $id) { id } }", { id: d.id }).catch(() => undefined);
    }
    await ctx.close();
  });
});
