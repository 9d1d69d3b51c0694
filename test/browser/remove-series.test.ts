/**
 * A newcomer deletes a demo series' folder on disk and rescans: the series page says its folder is
 * gone and offers "Remove series…"; the dialog says nothing on disk is touched; removing it returns
 * to the library, where it is no longer listed. A series whose folder is gone but not yet rescanned
 * is explained instead (scan first), and a series whose folder is still there shows no notice.
 */
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { browserSuite, loggedInContext, seriesId, seriousViolations, watchErrors, type Service } from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

const GONE = "Moss & Meteor";
const KEPT = "Skyline Greenhouse";

async function folderOf(id: number): Promise<string> {
  return ((await (await service.api("GET", `/api/manga/${id}`)).json()) as { folder: string }).folder;
}

describe("removing a series whose folder is gone", () => {
  it("is offered on the series page once a scan saw its files gone, and removes only the records", async () => {
    const goneId = await seriesId(service, GONE);
    const keptId = await seriesId(service, KEPT);
    const folder = await folderOf(goneId);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);

    await page.goto(`/series/${keptId}`);
    await page.getByRole("heading", { level: 1, name: KEPT }).waitFor();
    expect(await page.getByTestId("folder-gone").count()).toBe(0);

    await rm(path.join(service.libraryRoot, folder), { recursive: true });
    await page.goto(`/series/${goneId}`);
    const notice = page.getByTestId("folder-gone");
    await notice.waitFor();
    expect(await notice.innerText()).toContain("This series' folder is gone from the library.");
    expect(await notice.innerText()).toContain("Scan the library");
    expect(await notice.getByRole("button", { name: "Remove series…" }).count()).toBe(0);

    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    await page.reload();
    await notice.getByRole("button", { name: "Remove series…" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("Nothing on disk is touched.");
    expect(await seriousViolations(page)).toEqual([]);
    const before = (await readdir(service.libraryRoot)).sort();
    await dialog.getByRole("button", { name: "Remove series" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await page.getByRole("link", { name: KEPT }).first().waitFor();
    expect(await page.getByRole("link", { name: GONE }).count()).toBe(0);
    expect((await service.api("GET", `/api/manga/${goneId}`)).status).toBe(404);
    expect((await readdir(service.libraryRoot)).sort()).toEqual(before);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
