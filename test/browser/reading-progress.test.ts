/**
 * The web reader keeps the place on the server: it resumes where the reader stopped (the address
 * naming no page), and the library and series pages offer "Continue reading".
 */
import { describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { browserSuite, loggedInContext, seriesId, seriousViolations, watchErrors, type Service } from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

async function bookFile(title: string, number: string): Promise<{ seriesId: number; fileId: number }> {
  const id = await seriesId(service, title);
  const data = await service.gql<{ units: { units: { kind: string; number: string; fileIds: number[] }[] } }>(
    "query($id: Int!) { units(seriesId: $id) { units { kind number fileIds } } }",
    { id },
  );
  const fileId = data.units.units.find((u) => u.kind === "BOOK" && u.number === number)?.fileIds[0];
  if (fileId === undefined) throw new Error(`no book ${number} in ${title}`);
  return { seriesId: id, fileId };
}

async function shown(page: Page, name: string): Promise<void> {
  const img = page.getByRole("img", { name, exact: true });
  await img.waitFor();
  await page.waitForFunction(
    (el) => el instanceof HTMLImageElement && el.complete && el.naturalWidth > 0,
    await img.elementHandle(),
    { timeout: 15_000 },
  );
}

async function storedPage(fileId: number): Promise<number> {
  const res = await service.api("GET", `/api/files/${fileId}/progress`);
  return ((await res.json()) as { page: number }).page;
}

describe("reading progress in the web reader", () => {
  it("resumes where the reader stopped and offers it under Continue reading", async () => {
    const { seriesId: sid, fileId } = await bookFile("Lanterns of the Salt Road", "1");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);

    await page.goto(`/read/${fileId}`);
    await shown(page, "Page 1 of 11");
    await page.getByRole("button", { name: "Right to left" }).click();
    for (const n of [2, 3, 4]) {
      await page.keyboard.press("ArrowRight");
      await shown(page, `Page ${n} of 11`);
    }
    // Saved a moment after the page settles.
    await expect.poll(() => storedPage(fileId), { timeout: 10_000 }).toBe(4);

    // The library offers it; the card opens the reader at page 4 (no page in the address).
    await page.goto("/");
    const card = page.getByRole("region", { name: "Continue reading" }).locator(`a[data-file-id="${fileId}"]`);
    await card.waitFor();
    expect(await card.innerText()).toContain("Page 4 of 11");
    expect(await seriousViolations(page)).toEqual([]);
    await card.click();
    await page.waitForURL(`**/read/${fileId}*`);
    await shown(page, "Page 4 of 11");

    // The series page offers the same place.
    await page.goto(`/series/${sid}`);
    await page.getByRole("region", { name: "Continue reading" }).locator(`a[data-file-id="${fileId}"]`).waitFor();

    // A place set elsewhere (another app) is where the reader opens next time.
    await service.api("PUT", `/api/files/${fileId}/progress`, { page: 7 });
    await page.goto(`/read/${fileId}`);
    await shown(page, "Page 7 of 11");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("shows the library's cards only once Continue reading has answered, so they do not move", async () => {
    const { fileId } = await bookFile("Lanterns of the Salt Road", "1");
    expect((await service.api("PUT", `/api/files/${fileId}/progress`, { page: 3 })).status).toBe(200);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    const held = (body: string | null) => body?.includes("continueReading(") === true;
    let answered = false;
    page.on("requestfinished", (request) => {
      if (held(request.postData())) answered = true;
    });
    // The shelf's answer comes two seconds after the library's.
    await page.route("**/graphql", async (route) => {
      if (held(route.request().postData())) await new Promise((r) => setTimeout(r, 2_000));
      await route.continue();
    });
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
    await page.getByText("Loading the library…").waitFor();
    const grid = page.locator("ul.grid > li");
    expect(await grid.count()).toBe(0);

    await grid.first().waitFor();
    // The page saw the answer before the test hears of it (a grid shown without it would come
    // more than a second too early).
    await expect.poll(() => answered, { timeout: 1_000 }).toBe(true);
    expect(await page.getByRole("region", { name: "Continue reading" }).isVisible()).toBe(true);
    const before = await grid.first().boundingBox();
    await page.waitForLoadState("networkidle");
    expect(await grid.first().boundingBox()).toEqual(before);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
