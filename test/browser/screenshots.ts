/**
 * Writes the README's screenshots (docs/screenshots/*.png) from the real service with the demo
 * library, in Debian's Chromium: `pnpm screenshots`. Not a test: it only takes pictures.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { DESKTOP, PHONE, launchBrowser, loggedInContext, seriesId, startService } from "./harness.ts";

const out = path.resolve(import.meta.dirname, "..", "..", "docs", "screenshots");
mkdirSync(out, { recursive: true });

const service = await startService();
const browser = await launchBrowser();
try {
  const mapped = await seriesId(service, "Harbor of Paper Cranes");
  const unmapped = await seriesId(service, "Moss & Meteor");
  const books = await seriesId(service, "Lanterns of the Salt Road");
  const units = (await (await service.api("GET", `/api/manga/${books}/units`)).json()) as {
    units: { file_ids: number[] }[];
  };
  const firstBookFile = units.units.find((u) => u.file_ids.length > 0)?.file_ids[0];

  const shoot = async (page: Page, url: string, name: string, ready: (p: Page) => Promise<unknown>) => {
    await page.goto(url);
    await ready(page);
    // Lazy images and fonts settle.
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: false });
    console.log(`wrote docs/screenshots/${name}.png`);
  };
  const h1 = (p: Page) => p.getByRole("heading", { level: 1 }).first().waitFor();

  const desktop = await (await loggedInContext(browser, service, DESKTOP)).newPage();
  await shoot(desktop, "/", "library", h1);
  await shoot(desktop, `/series/${mapped}`, "series-grouped", h1);
  await shoot(desktop, `/series/${unmapped}`, "series-flat", h1);
  await shoot(desktop, `/series/${unmapped}/map`, "map-editor", h1);
  await shoot(desktop, `/series/${mapped}/audit`, "audit", h1);
  if (firstBookFile !== undefined)
    await shoot(desktop, `/read/${firstBookFile}`, "reader", (p) => p.locator("img").first().waitFor());

  const phone = await (await loggedInContext(browser, service, PHONE)).newPage();
  await shoot(phone, `/series/${mapped}`, "series-phone", h1);
} finally {
  await browser.close();
  await service.stop();
}
