/**
 * The recycle bin against the real service and the demo library: two files retired from the
 * audit appear in the bin, one is restored (the audit lists it again), the other purged after a
 * confirm that says it is permanent (gone from the bin, checked through the API); a taken
 * original path is explained; the empty bin says what it is for.
 */
import { copyFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import {
  PHONE,
  loggedInContext,
  seriesId,
  seriousViolations,
  watchErrors,
  watchLibraryEvents,
  type Service,
  browserSuite,
} from "./harness.ts";

let service: Service;
let browser: Browser;
// A retention other than the default: the page words the configured one.
browserSuite(
  (s, b) => {
    service = s;
    browser = b;
  },
  { RECYCLE_RETENTION_DAYS: "14" },
);

interface BinEntry {
  id: number;
  fileId: number | null;
  originalPath: string;
  reason: string;
}
const binOf = async () =>
  (await service.gql<{ recycleBin: BinEntry[] }>("{ recycleBin { id fileId originalPath reason } }")).recycleBin;
const auditPaths = async (id: number) =>
  (
    await service.gql<{ audit: { files: { path: string }[] } }>(
      "query($id: Int!) { audit(seriesId: $id) { files { path } } }",
      { id },
    )
  ).audit.files.map((f) => f.path);

const auditCard = (page: Page, name: string): Locator =>
  page.getByTestId("audit-file").filter({ has: page.getByRole("heading", { level: 3, name, exact: true }) });
const binEntry = (page: Page, fileName: string): Locator =>
  page
    .getByTestId("recycle-entry")
    .filter({ has: page.getByRole("heading", { level: 2, name: fileName, exact: true }) });

async function openBin(page: Page): Promise<void> {
  await page.goto("/recycle-bin");
  await page.getByRole("heading", { level: 1, name: "Recycle bin" }).waitFor();
  await page.waitForFunction(() => !document.body.innerText.includes("Loading the recycle bin"));
}

describe("recycle bin", () => {
  it("says what it is for while empty, and follows changes made elsewhere live", async () => {
    expect(await binOf()).toEqual([]);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const events = watchLibraryEvents(page);
    await openBin(page);
    await page.getByText("Nothing in the recycle bin.").waitFor();
    await events.untilLive(service);
    expect(await page.locator("main").innerText()).toContain(
      "Retired files wait here for 14 days before they are removed for good.",
    );
    expect(await seriousViolations(page)).toEqual([]);

    // Live: a retirement and a restore made elsewhere show up without a reload.
    const id = await seriesId(service, "Skyline Greenhouse");
    const files = (
      await service.gql<{ audit: { files: { id: number; path: string }[] } }>(
        "query($id: Int!) { audit(seriesId: $id) { files { id path } } }",
        { id },
      )
    ).audit.files;
    const file = files[0];
    if (!file) throw new Error("no file");
    const preview = await service.gql<{ previewRetirement: { confirmation: string } }>(
      "mutation($id: Int!, $f: [Int!]!) { previewRetirement(seriesId: $id, fileIds: $f) { confirmation } }",
      { id, f: [file.id] },
    );
    await service.gql(
      "mutation($id: Int!, $c: String!) { retireFiles(seriesId: $id, confirmation: $c) { retired { fileId } } }",
      {
        id,
        c: preview.previewRetirement.confirmation,
      },
    );
    const live = binEntry(page, path.basename(file.path));
    await live.waitFor({ timeout: 10_000 });
    const entry = (await binOf()).find((e) => e.fileId === file.id);
    if (!entry) throw new Error("not in the bin");
    await service.gql("mutation($id: Int!) { restoreFile(id: $id) { path } }", { id: entry.id });
    await page.getByText("Nothing in the recycle bin.").waitFor({ timeout: 10_000 });
    await ctx.close();
  });

  it("receives files retired from the audit, restores one and purges the other", async () => {
    const id = await seriesId(service, "Moss & Meteor");
    const folder = "Moss & Meteor";
    const c13 = `${folder}/Moss & Meteor - c013.cbz`;
    const c14 = `${folder}/Moss & Meteor - c014.cbz`;
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);

    // Select two files in the audit, review them, confirm.
    await page.goto(`/series/${id}/audit`);
    await auditCard(page, "Chapter 13").waitFor();
    const total = await page.getByTestId("audit-file").count();
    await page.getByRole("checkbox", { name: /^Select Chapter 13 \(/ }).check();
    await page.getByRole("checkbox", { name: /^Select Chapter 14 \(/ }).check();
    const bar = page.getByRole("region", { name: "Selection" });
    expect(await bar.innerText()).toContain("2 files selected");
    await bar.getByRole("button", { name: "Retire selected…" }).click();
    const dialog = page.getByRole("dialog", { name: "Retire 2 files" });
    await dialog.getByRole("table").waitFor();
    const listed = await dialog.getByRole("table").innerText();
    expect(listed).toContain(c13);
    expect(listed).toContain(c14);
    await dialog.getByRole("button", { name: "Retire 2 files" }).click();
    const done = page.getByRole("dialog", { name: "Moved to the recycle bin" });
    await done.getByText("2 files were moved to the recycle bin.").waitFor();
    await done.getByRole("link", { name: "Open the recycle bin" }).waitFor();
    await done.getByRole("button", { name: "Close", exact: true }).last().click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="audit-file"]').length === n, total - 2);
    expect(await auditCard(page, "Chapter 13").count()).toBe(0);
    expect(await auditCard(page, "Chapter 14").count()).toBe(0);

    // Both wait in the recycle bin.
    await openBin(page);
    const e13 = binEntry(page, "Moss & Meteor - c013.cbz");
    const e14 = binEntry(page, "Moss & Meteor - c014.cbz");
    await e13.waitFor();
    await e14.waitFor();
    const text = await e13.innerText();
    expect(text).toContain(c13);
    expect(text).toMatch(/Series\s*Moss & Meteor/);
    expect(text).toMatch(/Restorable\s*until .*, in 14 days/);
    expect(text).toMatch(/Recycled\s*(just now|\d+ minutes? ago)/);
    expect(await seriousViolations(page)).toEqual([]);

    // Restore one: it leaves the bin and the audit lists it again.
    await e13.getByRole("button", { name: "Restore Moss & Meteor - c013.cbz" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `Restored ${c13}.` })
      .waitFor();
    await e13.waitFor({ state: "detached" });
    expect(await auditPaths(id)).toContain(c13);
    const audit = await ctx.newPage();
    await audit.goto(`/series/${id}/audit`);
    await auditCard(audit, "Chapter 13").waitFor();
    await audit.close();

    // Purge the other, after a confirm that says it is permanent.
    await e14.getByRole("button", { name: "Purge… Moss & Meteor - c014.cbz" }).click();
    const confirm = page.getByRole("dialog", { name: "Purge permanently?" });
    expect(await confirm.innerText()).toContain("It cannot be restored afterwards.");
    await confirm.getByRole("button", { name: "Purge permanently" }).click();
    await e14.waitFor({ state: "detached" });
    await page.getByText("Nothing in the recycle bin.").waitFor();
    expect((await binOf()).some((e) => e.originalPath === c14)).toBe(false);
    expect(await auditPaths(id)).not.toContain(c14);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("explains a restore whose original path is taken, with the path", async () => {
    const id = await seriesId(service, "Lanterns of the Salt Road");
    const v1 = "Lanterns of the Salt Road/Lanterns of the Salt Road v01.cbz";
    const files = (
      await service.gql<{ audit: { files: { id: number; path: string }[] } }>(
        "query($id: Int!) { audit(seriesId: $id) { files { id path } } }",
        { id },
      )
    ).audit.files;
    const file = files.find((f) => f.path === v1);
    if (!file) throw new Error("no v01");
    // Keep a copy, retire the file through the API, then put the copy back at the original path.
    const onDisk = path.join(service.libraryRoot, v1);
    const spare = path.join(service.dir, "v01-copy.cbz");
    copyFileSync(onDisk, spare);
    const preview = await service.gql<{ previewRetirement: { confirmation: string } }>(
      "mutation($id: Int!, $f: [Int!]!) { previewRetirement(seriesId: $id, fileIds: $f) { confirmation } }",
      { id, f: [file.id] },
    );
    await service.gql(
      "mutation($id: Int!, $c: String!) { retireFiles(seriesId: $id, confirmation: $c) { retired { fileId } } }",
      {
        id,
        c: preview.previewRetirement.confirmation,
      },
    );
    copyFileSync(spare, onDisk);

    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      await openBin(page);
      const entry = binEntry(page, "Lanterns of the Salt Road v01.cbz");
      await entry.getByRole("button", { name: "Restore Lanterns of the Salt Road v01.cbz" }).click();
      const alert = entry.getByRole("alert");
      await alert.waitFor();
      expect(await alert.getAttribute("data-code")).toBe("restore_target_taken");
      expect(await alert.innerText()).toContain(`It would go back to ${v1}, where another file is now.`);
      expect(await seriousViolations(page)).toEqual([]);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await ctx.close();
    }
    // Still in the bin, nothing lost.
    expect((await binOf()).some((e) => e.originalPath === v1)).toBe(true);
  });
});
