/**
 * Picking the files of a torrent for the books waiting in it, against the real service with a
 * Prowlarr- and a qBittorrent-compatible server started here on 127.0.0.1: the Wanted pass grabs a
 * pack whose second book no file is named for; the scheduled poll imports book 1 and leaves book 2
 * waiting. The series page says so; on the Downloads page the operator opens the dialog, picks the
 * file, imports it, and the series page shows the book owned.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { PHONE, browserSuite, loggedInContext, seriousViolations, watchErrors, type Service } from "./harness.ts";
import { startFakeProwlarr, type FakeProwlarr } from "../../server/test/fakes/prowlarr-server.ts";
import { makeTorrent, startFakeQbittorrent, type FakeQbt } from "../../server/test/fakes/qbittorrent-server.ts";

let service: Service;
let browser: Browser;
let prowlarr: FakeProwlarr;
let qbt: FakeQbt;
let diskRoot: string;
const KEY = "prowlarr-key-browser-assignment";
const PASSWORD = "qbt-password-browser-assignment";
const ROOT = "Lantern Bay v01-02 (Digital)";
const pack = makeTorrent(ROOT, [
  { path: "Lantern Bay v01.cbz", pages: 2 },
  { path: "Lantern Bay - Book Two.cbz", pages: 3 },
  { path: "Lantern Bay v02.pdf" },
  { path: "notes.nfo" },
]);

// The scheduled pass (every second) polls the torrent client by itself.
browserSuite(
  (s, b) => {
    service = s;
    browser = b;
  },
  { WANTED_INTERVAL_SECONDS: "1" },
);

beforeAll(async () => {
  diskRoot = mkdtempSync(path.join(os.tmpdir(), "mls-torrents-"));
  prowlarr = await startFakeProwlarr({
    apiKey: KEY,
    releases: [{ title: ROOT, size: 50 * 1024 * 1024, torrent: pack.bytes, infoHash: pack.infoHash }],
  });
  qbt = await startFakeQbittorrent({
    dialect: "5.2",
    password: PASSWORD,
    clientRoot: "/downloads",
    diskRoot,
    catalogue: [pack],
    completeAfterMs: 20,
  });
});
afterAll(async () => {
  await prowlarr.close();
  await qbt.close();
  rmSync(diskRoot, { recursive: true, force: true });
});

interface Job {
  id: number;
  state: string;
  pending: { book: string; reason: string }[];
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("explicit assignment of a torrent's files", () => {
  it("shows the waiting book on the series page, and imports the file picked in the dialog", async () => {
    const settings = await service.api("PUT", "/api/settings/indexer", {
      prowlarr: { enabled: true, url: prowlarr.url, api_key: KEY },
      qbittorrent: {
        enabled: true,
        url: qbt.url,
        username: "admin",
        password: PASSWORD,
        save_path: "/downloads/manga",
        mount: { client_path: "/downloads", local_path: diskRoot },
        retention: "keep_seeding",
      },
    });
    expect(settings.status).toBe(200);
    const created = await service.api("POST", "/api/manga", {
      title: "Lantern Bay",
      status: "finished",
      known_book_count: 2,
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: number }).id;
    expect((await service.api("POST", `/api/manga/${id}/wanted/run`)).status).toBe(200);
    await qbt.completed(pack.infoHash);
    const job = await until("the torrent to wait for an assignment", async () => {
      const [j] = (await (await service.api("GET", `/api/torrents?series_id=${id}`)).json()) as Job[];
      return j?.state === "awaiting_assignment" ? j : undefined;
    });
    expect(job.pending).toEqual([expect.objectContaining({ book: "2", reason: "not_found_by_name" })]);

    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);

    // The series page says a torrent needs the operator.
    await page.goto(`/series/${id}`);
    const needs = page.getByRole("region", { name: "Torrents that need you" });
    await needs.waitFor({ timeout: 15_000 });
    expect(await needs.innerText()).toContain("Book 2: no file of the torrent is named for it.");
    expect(await page.locator('[data-row="book:1"]').getByTestId("owned").innerText()).toBe("Owned");

    // On the Downloads page: the torrent with its waiting book, and the dialog.
    await page.goto("/downloads");
    const card = page.locator(`[data-torrent-job="${job.id}"]`);
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain("Waiting for you to pick files");
    expect(await card.innerText()).toContain("Lantern Bay");
    await card.getByRole("button", { name: "Pick files…" }).click();
    const dialog = page.getByRole("dialog", { name: "Pick the files for the waiting books" });
    await dialog.waitFor();
    const choice = dialog.getByLabel("Book 2");
    await choice.waitFor({ timeout: 15_000 });
    // Only the image archives are offered; the PDF is listed as not importable, with why.
    const offered = await choice.locator("option").allInnerTexts();
    expect(offered[0]).toBe("Not now");
    expect(offered.slice(1).map((o) => o.replace(/ \(.*$/, ""))).toEqual([
      "Lantern Bay - Book Two.cbz",
      "Lantern Bay v01.cbz",
    ]);
    expect(offered[2]).toContain("named for book 1");
    await dialog.getByText("Files that cannot be imported (1)").click();
    expect(await dialog.innerText()).toContain("Lantern Bay v02.pdf: not an image ZIP/CBZ");
    expect(await dialog.getByRole("button", { name: "Import" }).isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await choice.selectOption({ value: `${ROOT}/Lantern Bay - Book Two.cbz` });
    await dialog.getByRole("button", { name: "Import" }).click();
    await page
      .getByText('Imported the files you picked: every book of "Lantern Bay v01-02 (Digital)" is in the library.')
      .waitFor({
        timeout: 30_000,
      });
    await card.getByText("Imported", { exact: true }).waitFor({ timeout: 15_000 });

    // The series page: book 2 is owned (the three pages of the file picked), nothing needs the operator.
    await page.goto(`/series/${id}`);
    const book2 = page.locator('[data-row="book:2"]');
    await book2.waitFor({ timeout: 15_000 });
    expect(await book2.getByTestId("owned").innerText()).toBe("Owned");
    expect(await page.getByRole("region", { name: "Torrents that need you" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("keeps the torrents list usable at phone size (axe clean)", async () => {
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    await page.goto("/downloads");
    await page.getByRole("heading", { name: "Torrents" }).waitFor({ timeout: 15_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await ctx.close();
  });
});
