/**
 * Book assembly from the series page: the series action (per-book outcomes, then a fresh preview of
 * the remaining books) and one book from its preview (pages, chapters, files with their sha256) to
 * the new book on the page, through a stale preview that offers a fresh one. Then a chapter file
 * arriving inside an assembled book: the page updates live with the duplicates note, and the
 * duplicates go to the recycle bin after a preview.
 */
import { copyFile, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import {
  launchBrowser,
  loggedInContext,
  seriesId,
  startService,
  watchErrors,
  watchLibraryEvents,
  type Service,
} from "./harness.ts";

const HARBOR = "Harbor of Paper Cranes";
let service: Service;
let browser: Browser;
let harbor: number;
let dir: string;
let spare: string;

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  harbor = await seriesId(service, HARBOR);
  dir = path.join(service.libraryRoot, HARBOR);
  // A chapter file kept aside: assembly sends the library's copies to the recycle bin.
  spare = path.join(await mkdtemp(path.join(os.tmpdir(), "assembly-spare-")), "chapter.cbz");
  await copyFile(path.join(dir, `${HARBOR} - c025.cbz`), spare);
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const group = (page: Page, book: string) => page.locator(`[data-group="book:${book}"]`);

async function openHarbor(page: Page): Promise<void> {
  await page.goto(`/series/${harbor}`);
  await page.getByRole("heading", { level: 1, name: HARBOR }).waitFor();
  await page.locator('.content[aria-busy="false"]').waitFor();
}

interface BinEntry {
  original_path: string;
  reason: string;
}
const bin = async () => (await (await service.api("GET", "/api/recycle-bin")).json()) as BinEntry[];

describe("assembly", () => {
  it("assembles all books that can be, says why the others cannot, and previews the remaining ones afresh", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openHarbor(page);
    await page.getByRole("button", { name: "Assemble all books…" }).click();
    const dialog = page.getByRole("dialog", { name: "Assemble all books" });
    await dialog.getByText("1 book of 2 not on disk can be assembled from chapters.", { exact: false }).waitFor();
    const book4 = dialog.getByRole("listitem").filter({ hasText: "Book 4" });
    expect(await book4.getByText("Refused").isVisible()).toBe(true);
    expect(await book4.getByText(/^Not assembled: /).isVisible()).toBe(true);
    expect(
      await dialog.getByRole("listitem").filter({ hasText: "Book 5" }).getByText("Ready", { exact: true }).isVisible(),
    ).toBe(true);

    await dialog.getByRole("button", { name: "Assemble 1 book" }).click();
    await dialog.getByText("1 book assembled.").waitFor({ timeout: 60_000 });
    expect(await dialog.getByText("Still not on disk: book 4.").isVisible()).toBe(true);
    const done5 = dialog.getByRole("listitem").filter({ hasText: "Book 5" });
    expect(
      await done5
        .getByText(
          /^Assembled: Harbor of Paper Cranes\/Harbor of Paper Cranes - v005 \[en\]\.cbz, \d+ pages; 10 chapter files to the recycle bin$/,
        )
        .isVisible(),
    ).toBe(true);

    // The fresh preview looks at book 4 only, still refused: nothing to confirm.
    await dialog.getByRole("button", { name: "Fresh preview of the remaining books" }).click();
    await dialog.getByText("0 books of 1 not on disk can be assembled from chapters.", { exact: false }).waitFor();
    expect(await dialog.getByRole("button", { name: /^Assemble \d/ }).count()).toBe(0);
    await dialog.getByRole("button", { name: "Close", exact: true }).last().click();

    // The page shows book 5 owned; its chapter files went to the recycle bin.
    await expect.poll(() => group(page, "5").getByTestId("owned").first().textContent()).toBe("Owned");
    expect((await bin()).filter((e) => e.reason === "assembled into v005")).toHaveLength(10);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("assembles one book from its preview to the new book on the page, through a stale preview", async () => {
    // Chapter 28 arrives (a scan records it): book 4 can now be assembled.
    await copyFile(path.join(dir, `${HARBOR} - c027.cbz`), path.join(dir, `${HARBOR} - c028.cbz`));
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);

    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openHarbor(page);
    await group(page, "4").getByRole("button", { name: "Assemble book Book 4" }).click();
    const dialog = page.getByRole("dialog", { name: "Assemble book 4" });
    await dialog.getByText(`${HARBOR} - v004 [en].cbz`, { exact: true }).waitFor();
    expect(await dialog.getByText("25, 26, 27, 28, 29, 30, 31, 32").isVisible()).toBe(true);
    // The files with their sha256: shortened on screen, whole in the title.
    const hashes = dialog.locator("code[data-sha256]");
    expect(await hashes.count()).toBe(8);
    const full = await hashes.first().getAttribute("title");
    expect(full).toMatch(/^[0-9a-f]{64}$/);
    expect(await hashes.first().textContent()).toBe(`${full?.slice(0, 8)}…${full?.slice(-4)}`);
    expect(await dialog.getByText(`${HARBOR}/${HARBOR} - c028.cbz`, { exact: true }).isVisible()).toBe(true);
    const pages = dialog.getByTestId("assembly-pages");
    const countedPages = async () => {
      await expect.poll(() => pages.textContent().then((t) => t?.trim())).toMatch(/^\d+$/);
      return Number((await pages.textContent())?.trim());
    };
    expect(await countedPages()).toBeGreaterThan(0);

    // A source file changes after the preview: the confirm is refused and a fresh preview offered.
    await copyFile(path.join(dir, `${HARBOR} - c026.cbz`), path.join(dir, `${HARBOR} - c028.cbz`));
    await dialog.getByRole("button", { name: "Assemble book 4" }).click();
    await dialog.getByRole("alert").waitFor();
    expect(await dialog.getByRole("alert").getAttribute("data-code")).toMatch(
      /^(snapshot_stale|assembly_changed_files)$/,
    );
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    await dialog.getByRole("button", { name: "Open a fresh preview" }).click();
    await dialog.getByText(`${HARBOR} - v004 [en].cbz`, { exact: true }).waitFor();
    // The new chapter 28 has its own page count: the preview counts again.
    const pageCount = await countedPages();

    // Confirm: live progress through the subscription, then the outcome.
    const seen: string[] = [];
    await page.exposeFunction("__progress", (text: string) => seen.push(text));
    await page.evaluate(() => {
      new MutationObserver(() => {
        const label = document.querySelector("dialog .progress span")?.textContent;
        if (label) (window as unknown as { __progress: (t: string) => void }).__progress(label);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await dialog.getByRole("button", { name: "Assemble book 4" }).click();
    await dialog.getByText("Book 4 is on disk.").waitFor({ timeout: 60_000 });
    // Steps reported by the assemblyProgress subscription, not only the dialog's "starting".
    expect(
      seen.some((label) => /^Book 4: (checking the chapter files|writing the chapters|publishing)/.test(label)),
    ).toBe(true);
    expect(await dialog.getByText(`${HARBOR}/${HARBOR} - v004 [en].cbz`, { exact: true }).isVisible()).toBe(true);
    expect(await dialog.getByText(`${pageCount} pages`).isVisible()).toBe(true);
    expect(await dialog.getByText("8 chapter files went to the recycle bin.").isVisible()).toBe(true);
    await dialog.getByRole("button", { name: "Close", exact: true }).last().click();

    await expect.poll(() => group(page, "4").getByTestId("owned").first().textContent()).toBe("Owned");
    expect(await group(page, "4").getByText(`${pageCount} pages`).isVisible()).toBe(true);
    expect((await bin()).filter((e) => e.reason === "assembled into v004")).toHaveLength(8);
    // Nothing is left to assemble.
    expect(await page.getByRole("button", { name: "Assemble all books…" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("updates live when a scan adds a chapter file inside an assembled book: the duplicates note appears", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    const events = watchLibraryEvents(page);
    await openHarbor(page);
    // The subscription is registered before the library changes (an unchanged scan pushes scan_finished).
    await events.untilLive(service);
    expect(
      await group(page, "5")
        .getByText(/duplicates inside/)
        .count(),
    ).toBe(0);
    await copyFile(spare, path.join(dir, `${HARBOR} - c033.cbz`));
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    // No reload: the libraryEvents subscription refetches the page.
    await group(page, "5").getByText("duplicates inside: 1 chapter file").waitFor({ timeout: 15_000 });
    expect(await group(page, "5").getByRole("button", { name: "Retire 1 duplicate chapter file…" }).isVisible()).toBe(
      true,
    );
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("retires the duplicates of a book into the recycle bin after a preview", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openHarbor(page);
    await group(page, "5").getByRole("button", { name: "Retire 1 duplicate chapter file…" }).click();
    const dialog = page.getByRole("dialog", { name: "Retire duplicates inside book 5" });
    await dialog.getByText(`${HARBOR}/${HARBOR} - c033.cbz`).waitFor();
    const fileId = Number((await dialog.locator(".files li .muted").first().textContent())?.replace("#", ""));
    expect(fileId).toBeGreaterThan(0);
    await dialog.getByRole("button", { name: "Move 1 file to the recycle bin" }).click();
    await dialog.getByText("1 chapter file went to the recycle bin.").waitFor();
    expect(await dialog.getByRole("link", { name: "Open the recycle bin" }).getAttribute("href")).toBe("/recycle-bin");

    const entries = (await (await service.api("GET", "/api/recycle-bin")).json()) as {
      file_id: number;
      original_path: string;
    }[];
    expect(entries.some((e) => e.file_id === fileId && e.original_path === `${HARBOR}/${HARBOR} - c033.cbz`)).toBe(
      true,
    );

    await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
    await group(page, "5")
      .getByText(/duplicates inside/)
      .waitFor({ state: "detached" });
    await ctx.close();
  });
});
