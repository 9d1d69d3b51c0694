/**
 * The settings page against the real service: Suwayomi, Prowlarr and qBittorrent round trip through
 * the page; secrets say "set" / "not set", are never echoed into the page or its inputs, are kept
 * when left empty and cleared on request; a refused value is explained and nothing is written. The
 * scheduled tasks are listed with their intervals and times, and one runs on request. The health panel
 * says what keeps the service from its work.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { PHONE, browserSuite, loggedInContext, seriousViolations, watchErrors, type Service } from "./harness.ts";
import { startFakeSuwayomi } from "../../server/test/fakes/suwayomi-server.ts";
import { startFakeProwlarr } from "../../server/test/fakes/prowlarr-server.ts";
import { startFakeQbittorrent } from "../../server/test/fakes/qbittorrent-server.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

const SUWAYOMI_SECRET = "suwa-secret-1234";
const API_KEY = "prowlarr-key-abcdef0123456789";
const QBT_SECRET = "qbt-secret-9876";

async function openSettings(page: Page): Promise<void> {
  await page.goto("/settings");
  await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
  await page.waitForFunction(() => !document.body.innerText.includes("Loading the settings"));
}

/** The count on the navigation's Settings link, absent when nothing is listed. */
async function expectBadge(badge: Locator, count: number): Promise<void> {
  if (count === 0) {
    await badge.waitFor({ state: "detached" });
    return;
  }
  await badge.waitFor();
  await expect.poll(() => badge.innerText()).toBe(String(count));
}

async function inputValues(page: Page): Promise<string> {
  return (await page.locator("input").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).join("\n");
}

interface Stored {
  sourceSettings: {
    suwayomi: {
      enabled: boolean;
      url: string | null;
      auth: string;
      username: string | null;
      passwordSet: boolean;
      password: string | null;
    };
  };
  indexerSettings: {
    prowlarr: { enabled: boolean; url: string | null; apiKeySet: boolean };
    qbittorrent: {
      enabled: boolean;
      url: string | null;
      username: string | null;
      passwordSet: boolean;
      category: string;
      tag: string | null;
      savePath: string | null;
      mount: { clientPath: string; localPath: string } | null;
      retention: string;
    };
  };
}
const stored = () =>
  service.gql<Stored>(`{
    sourceSettings { suwayomi { enabled url auth username passwordSet password } }
    indexerSettings {
      prowlarr { enabled url apiKeySet }
      qbittorrent { enabled url username passwordSet category tag savePath mount { clientPath localPath } retention }
    }
  }`);

describe("settings", () => {
  it("round-trips Suwayomi, Prowlarr and qBittorrent with masked secrets", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.waitForURL("**/settings");
    await page.waitForFunction(() => !document.body.innerText.includes("Loading the settings"));

    // Suwayomi with basic auth.
    const suwayomi = page.getByRole("form", { name: "Suwayomi" });
    await suwayomi.getByLabel("Use Suwayomi").check();
    await suwayomi.getByLabel("URL").fill("http://127.0.0.1:4567");
    await suwayomi.getByLabel("Basic (user name and password)").check();
    await suwayomi.getByLabel("User name", { exact: true }).fill("reader");
    expect(await page.getByTestId("suwayomi-password-status").innerText()).toBe("not set");
    await suwayomi.getByLabel(/^Password/).fill(SUWAYOMI_SECRET);
    await suwayomi.getByRole("button", { name: "Save Suwayomi settings" }).click();
    // Nothing answers at that address: saved, and the page says Suwayomi did not answer.
    await suwayomi.getByText("Saved.", { exact: true }).waitFor();
    expect(await suwayomi.getByRole("alert").innerText()).toContain("Suwayomi did not answer with these settings");
    expect(await page.getByTestId("suwayomi-password-status").innerText()).toBe("set");
    expect(await suwayomi.getByLabel(/^Password/).inputValue()).toBe("");

    // Prowlarr and qBittorrent.
    const indexer = page.getByRole("form", { name: "Books through Prowlarr and qBittorrent" });
    await indexer.getByLabel("Use Prowlarr").check();
    await indexer.getByLabel("Prowlarr URL").fill("http://127.0.0.1:9696");
    await indexer.getByLabel(/^API key/).fill(API_KEY);
    await indexer.getByLabel("Use qBittorrent").check();
    await indexer.getByLabel("qBittorrent URL").fill("http://127.0.0.1:8080");
    await indexer.getByLabel("qBittorrent user name").fill("admin");
    await indexer.getByLabel(/^Password/).fill(QBT_SECRET);
    await indexer.getByLabel("Category").fill("manga-test");
    await indexer.getByLabel("Tag").fill("mls");
    await indexer.getByLabel("Save path (as qBittorrent sees it)").fill("/downloads/manga");
    await indexer.getByLabel("Download folder as qBittorrent sees it").fill("/downloads");
    await indexer.getByLabel("The same folder as this service sees it").fill("/tmp/torrents");
    await indexer.getByLabel("After import").selectOption("remove_after_import");
    await indexer.getByRole("button", { name: "Save Prowlarr and qBittorrent settings" }).click();
    await indexer.getByText(/^Saved\./).waitFor();
    expect(await page.getByTestId("prowlarr-api-key-status").innerText()).toBe("set");
    expect(await page.getByTestId("qbittorrent-password-status").innerText()).toBe("set");

    const after = await stored();
    expect(after.sourceSettings.suwayomi).toMatchObject({
      enabled: true,
      url: "http://127.0.0.1:4567",
      auth: "BASIC",
      username: "reader",
      passwordSet: true,
      password: "••••",
    });
    expect(after.indexerSettings.prowlarr).toEqual({ enabled: true, url: "http://127.0.0.1:9696", apiKeySet: true });
    expect(after.indexerSettings.qbittorrent).toEqual({
      enabled: true,
      url: "http://127.0.0.1:8080",
      username: "admin",
      passwordSet: true,
      category: "manga-test",
      tag: "mls",
      savePath: "/downloads/manga",
      mount: { clientPath: "/downloads", localPath: "/tmp/torrents" },
      retention: "remove_after_import",
    });

    // A fresh load shows the values, "set" for the secrets, and never a secret.
    await openSettings(page);
    expect(await page.getByRole("form", { name: "Suwayomi" }).getByLabel("URL").inputValue()).toBe(
      "http://127.0.0.1:4567",
    );
    expect(await page.getByTestId("suwayomi-password-status").innerText()).toBe("set");
    expect(await page.getByTestId("prowlarr-api-key-status").innerText()).toBe("set");
    const shown = `${await page.content()}\n${await inputValues(page)}`;
    for (const secret of [SUWAYOMI_SECRET, API_KEY, QBT_SECRET, "••••"]) expect(shown).not.toContain(secret);

    // Saving again with empty secret fields keeps them; "Remove" clears one.
    const indexer2 = page.getByRole("form", { name: "Books through Prowlarr and qBittorrent" });
    await indexer2.getByLabel("Remove the stored password").check();
    await indexer2.getByRole("button", { name: "Save Prowlarr and qBittorrent settings" }).click();
    await indexer2.getByText(/^Saved\./).waitFor();
    expect(await page.getByTestId("qbittorrent-password-status").innerText()).toBe("not set");
    const cleared = await stored();
    expect(cleared.indexerSettings.prowlarr.apiKeySet).toBe(true);
    expect(cleared.indexerSettings.qbittorrent.passwordSet).toBe(false);
    expect(cleared.sourceSettings.suwayomi.passwordSet).toBe(true);

    // A refused value: explained through the error notice, nothing written.
    const suwayomi2 = page.getByRole("form", { name: "Suwayomi" });
    await suwayomi2.getByLabel("URL").fill("ftp://nope.example");
    await suwayomi2.getByRole("button", { name: "Save Suwayomi settings" }).click();
    const alert = suwayomi2.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toContain("The Suwayomi settings were not saved.");
    expect((await stored()).sourceSettings.suwayomi.url).toBe("http://127.0.0.1:4567");

    expect(await seriousViolations(page)).toEqual([]);
    expect(errors.filter((e) => !e.includes("400"))).toEqual([]);
    await ctx.close();
  });

  it("says how many sources Suwayomi answered with, and when it refuses the login", async () => {
    const fake = await startFakeSuwayomi({
      works: [],
      sources: [{ id: "8801", name: "MangaDex", lang: "en" }],
      auth: { username: "reader", password: SUWAYOMI_SECRET },
    });
    try {
      const ctx = await loggedInContext(browser, service);
      const page = await ctx.newPage();
      await openSettings(page);
      const form = page.getByRole("form", { name: "Suwayomi" });
      await form.getByLabel("Use Suwayomi").check();
      await form.getByLabel("URL").fill(fake.url);
      await form.getByLabel("Basic (user name and password)").check();
      await form.getByLabel("User name", { exact: true }).fill("reader");
      await form.getByLabel(/^Password/).fill(SUWAYOMI_SECRET);
      await form.getByRole("button", { name: "Save Suwayomi settings" }).click();
      await form.getByText("Saved. Suwayomi answered with 1 source.").waitFor();
      expect(await form.getByRole("alert").count()).toBe(0);

      // A wrong password is saved as asked, and the refusal is said at once.
      await form.getByLabel(/^Password/).fill("not-the-password");
      await form.getByRole("button", { name: "Save Suwayomi settings" }).click();
      await form.getByText("Saved.", { exact: true }).waitFor();
      expect(await form.getByRole("alert").innerText()).toContain("Suwayomi did not answer with these settings");
      expect((await stored()).sourceSettings.suwayomi.passwordSet).toBe(true);
      await ctx.close();
    } finally {
      await fake.close();
    }
  });

  it("says what Prowlarr and qBittorrent answered once saved, and why one did not", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "mls-settings-check-"));
    const prowlarr = await startFakeProwlarr({ apiKey: API_KEY, releases: [] });
    const qbt = await startFakeQbittorrent({
      dialect: "5.2",
      password: QBT_SECRET,
      clientRoot: "/downloads",
      diskRoot: dir,
      catalogue: [],
    });
    try {
      const ctx = await loggedInContext(browser, service);
      const page = await ctx.newPage();
      await openSettings(page);
      const form = page.getByRole("form", { name: "Books through Prowlarr and qBittorrent" });
      await form.getByLabel("Use Prowlarr").check();
      await form.getByLabel("Prowlarr URL").fill(prowlarr.url);
      await form.getByLabel(/^API key/).fill(API_KEY);
      await form.getByLabel("Use qBittorrent").check();
      await form.getByLabel("qBittorrent URL").fill(qbt.url);
      await form.getByLabel("qBittorrent user name").fill("admin");
      await form.getByLabel(/^Password/).fill(QBT_SECRET);
      await form.getByRole("button", { name: "Save Prowlarr and qBittorrent settings" }).click();
      await form.getByText(/Prowlarr answered: 1 indexer enabled\. qBittorrent answered: version v5\.2\.0\./).waitFor();
      expect(await form.getByRole("alert").count()).toBe(0);

      await form.getByLabel(/^API key/).fill("not-the-key");
      await form.getByRole("button", { name: "Save Prowlarr and qBittorrent settings" }).click();
      const alert = form.getByRole("alert");
      await alert.waitFor();
      expect(await alert.innerText()).toContain("Prowlarr did not answer: Prowlarr refused the API key");
      expect(await alert.innerText()).not.toContain("not-the-key");
      expect(await form.getByText(/qBittorrent answered: version v5\.2\.0\./).count()).toBe(1);
      await ctx.close();
    } finally {
      await prowlarr.close();
      await qbt.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sets the download languages: shown again after a reload, a refused code explained and nothing written", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openSettings(page);
    const form = page.getByRole("form", { name: "Download languages" });
    const field = form.getByLabel(/^Other languages/);
    await field.waitFor();
    expect(await field.inputValue()).toBe("");
    await field.fill("fr,  pt-BR fr");
    await form.getByRole("button", { name: "Save download languages" }).click();
    await form.getByText("Saved.").waitFor();
    expect(await field.inputValue()).toBe("fr, pt-BR");
    const languages = async () =>
      (await service.gql<{ downloadSettings: { languages: string[] } }>("{ downloadSettings { languages } }"))
        .downloadSettings.languages;
    expect(await languages()).toEqual(["fr", "pt-BR"]);

    await openSettings(page);
    const again = page.getByRole("form", { name: "Download languages" });
    expect(await again.getByLabel(/^Other languages/).inputValue()).toBe("fr, pt-BR");
    await again.getByLabel(/^Other languages/).fill("fr, French");
    await again.getByRole("button", { name: "Save download languages" }).click();
    const alert = again.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toContain("The download languages were not saved.");
    expect(await languages()).toEqual(["fr", "pt-BR"]);

    await again.getByLabel(/^Other languages/).fill("");
    await again.getByRole("button", { name: "Save download languages" }).click();
    await again.getByText("Saved.").waitFor();
    expect(await languages()).toEqual([]);
    expect(errors.filter((e) => !e.includes("400"))).toEqual([]);
    await ctx.close();
  });

  it("says which version it is, what it runs on and where it keeps things, as the API does", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openSettings(page);
    const about = page.getByRole("region", { name: "About" }).getByTestId("about");
    await about.waitFor();
    const rows = new Map(
      await about
        .locator(":scope > div")
        .evaluateAll((els) =>
          els.map((e) => [e.querySelector("dt")!.textContent!, e.querySelector("dd")!.textContent!]),
        ),
    );
    const api = (await (await service.api("GET", "/api/system/status")).json()) as {
      database: { version: string };
      library: { series: number; files: number };
      node_version: string;
      version: string;
    };
    expect([...rows.keys()]).toEqual([
      "Version",
      "Running since",
      "Library",
      "Library folder",
      "Data folder",
      "Database",
      "Events",
      "This instance",
      "Node.js",
    ]);
    // The demo library, as the API counts it.
    expect(api.library.series).toBeGreaterThan(0);
    expect(rows.get("Library")).toMatch(new RegExp(`^${api.library.series} series, ${api.library.files} files, `));
    expect(rows.get("Library folder")).toBe(service.libraryRoot);
    expect(rows.get("Database")).toBe(`SQLite ${api.database.version}`);
    expect(rows.get("Events")).toBe("In this process (one instance)");
    expect(rows.get("Node.js")).toBe(api.node_version);
    expect(rows.get("Version")).toBe(api.version);
    expect(api.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(rows.get("Running since")).toMatch(/\((just now|\d+ (seconds?|minutes?) ago)\)$/);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("lists the scheduled tasks and runs one now", async () => {
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openSettings(page);
    const panel = page.getByRole("region", { name: "Scheduled tasks" });
    const list = panel.getByTestId("scheduled-tasks");
    await list.waitFor();
    const rows = list.locator("li");
    expect(await rows.count()).toBe(5);
    const texts = await rows.allInnerTexts();
    expect(texts.map((t) => t.split("\n")[0])).toEqual([
      "Wanted pass",
      "Automatic assembly",
      "Catalogue refresh",
      "Library scan",
      "Recycle bin purge",
    ]);
    // The service's defaults (README): hourly Wanted pass, assembly every 15 minutes, a daily refresh,
    // the purge every 6 hours (and at start: it has run already).
    expect(texts[0]).toContain("Runs every hour");
    expect(texts[1]).toContain("Runs every 15 minutes");
    expect(texts[2]).toContain("Runs every day");
    expect(texts[4]).toContain("Runs every 6 hours");
    expect(texts[4]).not.toContain("never");

    const tasks = async () =>
      (
        (await (await service.api("GET", "/api/system/tasks")).json()) as {
          tasks: { name: string; last_run: string | null }[];
        }
      ).tasks;
    const before = (await tasks()).find((t) => t.name === "catalogue_refresh")!.last_run;
    await panel.getByRole("button", { name: "Run now: Catalogue refresh" }).click();
    await panel.getByText("Catalogue refresh ran.").waitFor();
    const after = (await tasks()).find((t) => t.name === "catalogue_refresh")!.last_run;
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    await list.locator('li[data-task="CATALOGUE_REFRESH"]').getByText("just now").waitFor();
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("shows the service's health: a Suwayomi that does not answer once saved, cleared on Check again", async () => {
    const server = await import("node:http").then((h) => h.createServer());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const closed = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await new Promise<void>((r) => server.close(() => r()));
    await service.api("PUT", "/api/settings/sources", { suwayomi: { enabled: false } });

    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openSettings(page);
    const panel = page.getByRole("region", { name: "Health" });
    // The demo service: nothing to report (the free space of the test machine's disk is not this test's).
    await panel.getByTestId("health-summary").waitFor();
    const listed = () => panel.locator("li[data-code]:not([data-code=DISK_SPACE_LOW])");
    expect(await listed().count()).toBe(0);

    const form = page.getByRole("form", { name: "Suwayomi" });
    await form.getByLabel("Use Suwayomi").check();
    await form.getByLabel("URL").fill(closed);
    await form.getByLabel("None").check();
    await form.getByRole("button", { name: "Save Suwayomi settings" }).click();
    const item = panel.locator('li[data-code="SUWAYOMI_UNREACHABLE"]');
    await item.waitFor();
    expect(await item.innerText()).toContain("Error");
    expect(await item.innerText()).toContain(`Suwayomi (${closed}) is in use but could not list its sources`);
    expect(await panel.getByTestId("health-summary").innerText()).toMatch(/^1 error/);
    // The navigation's Settings link counts what the panel lists, on every page.
    const nav = page.getByRole("navigation", { name: "Main" });
    const badge = nav.getByTestId("health-badge");
    const listedAll = () => panel.locator("li[data-code]").count();
    await expectBadge(badge, await listedAll());
    expect(await badge.getAttribute("class")).toContain("bad");
    expect(await nav.getByRole("link", { name: "Settings" }).getAttribute("href")).toBe("/settings");
    expect(await nav.getByRole("link", { name: /Health: 1 error/ }).count()).toBe(1);
    // A page opened afresh asks the health itself.
    await page.goto("/wanted");
    const checks = ((await (await service.api("GET", "/api/system/health")).json()) as { checks: unknown[] }).checks;
    expect(checks.length).toBeGreaterThan(0);
    await expectBadge(badge, checks.length);
    await openSettings(page);
    await panel.getByTestId("health-summary").waitFor();

    // Switched off elsewhere; "Check again" reads the health afresh, and the badge follows.
    await service.api("PUT", "/api/settings/sources", { suwayomi: { enabled: false } });
    await panel.getByRole("button", { name: "Check again" }).click();
    await item.waitFor({ state: "detached" });
    expect(await listed().count()).toBe(0);
    await expectBadge(badge, await listedAll());
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("has no serious axe violations at phone size and fits the screen", async () => {
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    // With a health check listed: a Suwayomi that does not answer.
    await service.api("PUT", "/api/settings/sources", {
      suwayomi: { enabled: true, url: "http://127.0.0.1:9", auth: "none" },
    });
    await openSettings(page);
    await page.getByTestId("scheduled-tasks").waitFor();
    await page.getByTestId("about").waitFor();
    await page.locator('li[data-code="SUWAYOMI_UNREACHABLE"]').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await ctx.close();
  });
});
