/**
 * The acquisition screens against the real service and a Suwayomi-compatible server started here on
 * 127.0.0.1, set up through the public API: the Calendar page (month view and list, overdue series,
 * the address for calendar apps) and the series page's Interactive search (every offer with its
 * verdict, one fetched by hand).
 */
import { describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { browserSuite, loggedInContext, seriousViolations, watchErrors, type Service } from "./harness.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "../../server/test/fakes/suwayomi-server.ts";

let service: Service;
let browser: Browser;
const SRC: FakeSource = { id: "8901", name: "Weekly Scans", lang: "en" };
const OTHER: FakeSource = { id: "8902", name: "Second Scans", lang: "en" };
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;

browserSuite((s, b) => {
  service = s;
  browser = b;
});

/** A series linked to the fake through the API (unmonitored: nothing fetched by itself). */
async function linkedSeries(fake: FakeSuwayomi, title: string, works: [FakeSource, number][]): Promise<number> {
  const res = await service.api("POST", "/api/manga", { title });
  const { id } = (await res.json()) as { id: number };
  await service.api("PATCH", `/api/manga/${id}`, { monitored: false });
  for (const [src, work] of works) {
    const r = await service.api("POST", `/api/manga/${id}/sources`, {
      provider: src.id,
      source_id: String(work),
      language: "en",
      priority: src === SRC ? 10 : 0,
    });
    if (r.status !== 201) throw new Error(`link failed: ${r.status} ${await r.text()}`);
  }
  await service.api("PATCH", `/api/manga/${id}`, { monitored: true });
  void fake;
  return id;
}

describe("acquisition screens", () => {
  it("Calendar: the expected chapter in the month view and the list, the overdue series below, the feed's address", async () => {
    const pages = await drawnChapter(3, 1);
    // Weekly, last release two days ago (expected in five days); and one that stopped 40 days ago.
    const weekly = (n: number, lastAgo: number) =>
      Array.from({ length: n }, (_, i) =>
        fakeChapter({ chapterNumber: i + 1, uploadDate: today - (lastAgo + (n - 1 - i) * 7) * DAY + 3_600_000, pages }),
      );
    const fake = await startFakeSuwayomi({
      sources: [SRC, OTHER],
      works: [
        fakeWork({ id: 1, title: "Calendar Wave", source: SRC, chapters: weekly(6, 2) }),
        fakeWork({ id: 2, title: "Quiet Harbour", source: SRC, chapters: weekly(5, 40) }),
        fakeWork({ id: 3, title: "Calendar Wave", source: OTHER, chapters: weekly(6, 2) }),
      ],
    });
    try {
      await service.gql(
        `mutation($url: String!) { updateSourceSettings(input: { suwayomi: { enabled: true, url: $url, auth: NONE } }) { suwayomi { configured } } }`,
        { url: fake.url },
      );
      const wave = await linkedSeries(fake, "Calendar Wave", [
        [SRC, 1],
        [OTHER, 3],
      ]);
      await linkedSeries(fake, "Quiet Harbour", [[SRC, 2]]);

      const context = await loggedInContext(browser, service);
      const page = await context.newPage();
      const errors = watchErrors(page);
      const expected = new Date(today + 5 * DAY);
      const month = expected.toISOString().slice(0, 7);
      await page.goto(`/calendar?month=${month}`);
      await page.getByRole("heading", { level: 1, name: "Calendar" }).waitFor();
      await page.getByRole("link", { name: "Calendar", exact: true }).waitFor();
      const cell = page.locator("table.month td").filter({ hasText: "Calendar Wave · 7" });
      await cell.waitFor();
      expect(await cell.locator(".day").innerText()).toBe(String(expected.getUTCDate()));
      // The rule is worded with the service's figures (GET /api/rules).
      await page.getByText("(3 to 62 days apart, at least four dated releases)", { exact: false }).waitFor();
      const list = page.getByRole("region", { name: /Expected in/ });
      await expect.poll(() => list.innerText()).toContain("Chapter 7 expected (every 7 days");
      const overdue = page.getByRole("region", { name: /Overdue/ });
      expect(await overdue.innerText()).toContain("Quiet Harbour");
      expect(await seriousViolations(page)).toEqual([]);

      // The address for calendar apps: it opens the feed with no other credential; a new one retires it.
      const feed = page.getByRole("region", { name: "Subscribe in a calendar app" });
      const address = feed.getByRole("textbox", { name: "Calendar address" });
      await expect.poll(() => address.inputValue()).toMatch(/\/api\/calendar\.ics\?key=[0-9a-f]{48}$/);
      const first = await address.inputValue();
      const ics = await fetch(first);
      expect(ics.status).toBe(200);
      expect(await ics.text()).toContain("SUMMARY:Calendar Wave: chapter 7 expected");
      await feed.getByRole("button", { name: "New address…" }).click();
      const confirm = page.getByRole("dialog", { name: "Make a new calendar address?" });
      await confirm.getByRole("button", { name: "Make a new address" }).click();
      await feed.getByText("A new address is ready; the old one no longer works.").waitFor();
      const second = await address.inputValue();
      expect(second).not.toBe(first);
      expect((await fetch(first)).status).toBe(401);
      expect((await fetch(second)).status).toBe(200);
      expect(await seriousViolations(page)).toEqual([]);

      // Interactive search on chapter 3 of the linked series: both offers, the preferred one first.
      await page.goto(`/series/${wave}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.getByRole("button", { name: "More actions for Chapter 3" }).click();
      await page.getByRole("menuitem", { name: "Interactive search" }).click();
      const dialog = page.getByRole("dialog", { name: /Interactive search: Chapter 3/ });
      await dialog.getByRole("table").waitFor();
      const rows = dialog.locator("tbody tr");
      await expect.poll(() => rows.count()).toBe(2);
      expect(await rows.nth(0).innerText()).toContain("Would be chosen");
      expect(await rows.nth(0).innerText()).toContain("Weekly Scans (en)");
      expect(await rows.nth(1).innerText()).toContain("Ranked lower");
      expect(await seriousViolations(page)).toEqual([]);
      await rows
        .nth(1)
        .getByRole("button", { name: /Fetch Chapter 3 from Second Scans/ })
        .click();
      await dialog.getByText(/Queued 1 download from Second Scans/).waitFor();
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await fake.close();
    }
  });
});
