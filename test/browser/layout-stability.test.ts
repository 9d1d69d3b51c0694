/**
 * Pages do not move while they load: nothing shown shifts when a later answer arrives (a panel's
 * text replacing "Loading…", a shelf appearing above a list, a thumbnail of another shape), so a
 * click made as soon as something is shown lands on it. Chromium's Layout Instability API reports
 * every shift not caused by input; each page is loaded with its API answers held back in two
 * orders (the page's first request answered last at desktop size, first at phone size).
 */
import { describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { browserSuite, loggedInContext, PHONE, seriesId, type Service } from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

interface Shift {
  value: number;
  sources: string[];
}

/** Holds the n-th API request of the page `delay(n)` ms before it goes out. */
async function holdRequests(page: Page, delay: (n: number) => number): Promise<void> {
  let n = 0;
  await page.route(/\/(graphql|api\/)/, async (route) => {
    const wait = delay(n++);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await route.continue();
  });
}

async function shiftsWhileLoading(page: Page, url: string): Promise<Shift[]> {
  await page.addInitScript(() => {
    const seen: { value: number; sources: string[] }[] = [];
    (window as unknown as { __shifts: typeof seen }).__shifts = seen;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as {
        value: number;
        hadRecentInput: boolean;
        sources?: { node: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
      }[]) {
        if (e.hadRecentInput) continue;
        seen.push({
          value: e.value,
          sources: (e.sources ?? []).map((s) => {
            const text = (s.node?.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 40);
            return `${s.node?.nodeName ?? "?"} "${text}" y ${s.previousRect.y} → ${s.currentRect.y}`;
          }),
        });
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  await page.goto(url);
  await page.waitForLoadState("networkidle");
  // A shift is reported with the next frame.
  await page.waitForTimeout(300);
  return page.evaluate(() => (window as unknown as { __shifts: Shift[] }).__shifts);
}

describe("layout stability", () => {
  it("keeps every page still while its answers arrive, at desktop and phone size", async () => {
    const harbor = await seriesId(service, "Harbor of Paper Cranes");
    const lanterns = await seriesId(service, "Lanterns of the Salt Road");
    const units = await service.gql<{ units: { units: { fileIds: number[] }[] } }>(
      "query($id: Int!) { units(seriesId: $id) { units { fileIds } } }",
      { id: lanterns },
    );
    const fileId = units.units.units.find((u) => u.fileIds.length > 0)?.fileIds[0];
    if (fileId === undefined) throw new Error("no file in the demo series");
    // Something to continue reading: the library and the series page show a shelf above their lists.
    expect((await service.api("PUT", `/api/files/${fileId}/progress`, { page: 3 })).status).toBe(200);

    // The page evidence is worked out in the background on its first request; the panel growing
    // when that work ends, seconds later, is news rather than loading: let it end first.
    await expect
      .poll(
        async () =>
          (
            await service.gql<{ pageEvidence: { status: string } }>(
              "query($id: Int!) { pageEvidence(seriesId: $id) { status } }",
              { id: harbor },
            )
          ).pageEvidence.status,
        { timeout: 60_000, interval: 500 },
      )
      .not.toBe("computing");

    const urls = [
      "/",
      `/series/${harbor}`,
      `/series/${lanterns}`,
      `/series/${harbor}/sources`,
      `/series/${harbor}/map`,
      `/series/${harbor}/audit`,
      `/series/${harbor}/verified`,
      `/series/${harbor}/translations`,
      "/wanted",
      "/downloads",
      "/calendar",
      "/settings",
      "/recycle-bin",
      "/add-series",
      `/read/${fileId}`,
    ];
    // One order per size (both at both sizes found nothing more, at twice the time).
    const runs = [
      {
        size: "desktop",
        viewport: undefined,
        order: "first request last",
        delay: (n: number) => Math.max(0, 600 - 100 * n),
      },
      { size: "phone", viewport: PHONE, order: "first request first", delay: (n: number) => Math.min(100 * n, 600) },
    ];
    const moved: string[] = [];
    for (const { size, viewport, order, delay } of runs) {
      const ctx = await loggedInContext(browser, service, viewport);
      for (const url of urls) {
        const page = await ctx.newPage();
        await holdRequests(page, delay);
        for (const s of await shiftsWhileLoading(page, url))
          moved.push(`${url} (${size}, ${order}): ${s.value.toFixed(4)} ${s.sources.join("; ")}`);
        await page.close();
      }
      await ctx.close();
    }
    expect(moved).toEqual([]);
  }, 300_000);
});
