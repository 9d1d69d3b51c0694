import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, loggedInContext, seriousViolations, startService, type Service } from "./harness.ts";

let service: Service;
let browser: Browser;
beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe("harness", () => {
  it("opens the library logged in", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await page.goto("/");
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    expect(await page.title()).toContain("Library");
    expect(await seriousViolations(page)).toEqual([]);
    await ctx.close();
  });
});
