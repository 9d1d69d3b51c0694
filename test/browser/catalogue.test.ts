/**
 * Catalogues in the browser against the real service, with MangaDex and MangaUpdates fakes on
 * 127.0.0.1 set up through the settings API: a person types a title, picks the MangaDex entry and
 * gets a series with its description, cover and a map suggestion; links MangaUpdates from the
 * series page; accepts the book count both catalogues agree on; and adopts one suggested book in
 * the map editor after seeing what it changes. Nothing is covered because a catalogue said so.
 */
import { describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { PHONE, browserSuite, loggedInContext, seriousViolations, watchErrors, type Service } from "./harness.ts";
import {
  fakeCover,
  mangadexId,
  startFakeMangaDex,
  startFakeMangaUpdates,
} from "../../server/test/fakes/catalogue-servers.ts";

let service: Service;
let browser: Browser;

browserSuite((s, b) => {
  service = s;
  browser = b;
});

/** Content wider than the screen (a phone must not scroll sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("catalogues", () => {
  it("search → add linked → link a second catalogue → accept the agreed count → adopt one suggested book", async () => {
    const md = await startFakeMangaDex([
      {
        id: mangadexId(41),
        title: "Lantern Orchard",
        description: "Two sisters keep an orchard of paper lanterns.",
        status: "completed",
        year: 2018,
        volumes: 3,
        chapters: 15,
        authors: ["Rin Hoshino"],
        genres: ["Slice of Life"],
        cover: await fakeCover(41),
        aggregate: {
          en: {
            "1": ["1", "2", "3", "4", "5"],
            "2": ["6", "7", "8", "9", "10"],
            "3": ["10", "11", "12"],
            none: ["13"],
          },
        },
      },
    ]);
    const mu = await startFakeMangaUpdates([
      { id: "4141", title: "Lantern Orchard", status: "completed", year: 2018, volumes: 3, chapters: 15 },
    ]);
    try {
      await service.gql(
        `mutation($md: String!, $mu: String!) { updateCatalogueSettings(input: {
          mangadex: { baseUrl: $md, coverBaseUrl: $md }, mangaupdates: { baseUrl: $mu }, anilist: { enabled: false }
        }) { mangadex { enabled } } }`,
        { md: md.url, mu: `${mu.url}/v1` },
      );
      const ctx = await loggedInContext(browser, service);
      const page = await ctx.newPage();
      const errors = watchErrors(page);

      // Type a title, search, pick the MangaDex entry.
      await page.goto("/");
      await page.getByRole("link", { name: "Add a series" }).click();
      await page.waitForURL("**/add-series");
      await page.getByRole("searchbox", { name: "Title" }).fill("Lantern Orchard");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      const mdResults = page.getByRole("region", { name: "MangaDex results" });
      await mdResults.waitFor();
      expect(await mdResults.innerText()).toContain("2018 · Completed · 3 books · 15 chapters");
      await mdResults.getByRole("button", { name: /Add this series: Lantern Orchard/ }).click();
      await page.waitForURL(/\/series\/\d+$/);
      const id = Number(/\/series\/(\d+)$/.exec(page.url())?.[1]);

      // The series page shows the metadata, the cover and the suggestion; nothing is decided yet.
      const panel = page.getByTestId("catalogue-panel");
      await panel.getByText("Two sisters keep an orchard of paper lanterns.").waitFor();
      const cover = panel.getByRole("img", { name: /Cover of Lantern Orchard from MangaDex/ });
      await cover.waitFor();
      await page.waitForFunction(
        () =>
          (document.querySelector("[data-testid=catalogue-panel] img.cover") as HTMLImageElement | null)?.naturalWidth,
      );
      expect(await panel.innerText()).toContain("Chapter 10 is listed under books 2 and 3: it is in none of them.");
      expect(await panel.innerText()).toContain("chapters 13");
      expect(await panel.getByRole("button", { name: "Use 3 books (only MangaDex states it)" }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);

      // Link MangaUpdates from the series page: now both agree.
      await panel.getByRole("button", { name: "Find in catalogues…" }).click();
      const dialog = page.getByRole("dialog", { name: "Find Lantern Orchard in the catalogues" });
      await dialog.getByRole("button", { name: "Search", exact: true }).click();
      await dialog
        .getByRole("region", { name: "MangaUpdates results" })
        .getByRole("button", { name: /Link: Lantern Orchard \(MangaUpdates\)/ })
        .click();
      await panel.getByText("Linked to MangaUpdates: Lantern Orchard.").waitFor();
      const accept = panel.getByRole("button", { name: "Use 3 books (MangaDex and MangaUpdates agree)" });
      await accept.waitFor();
      const before = await service.gql<{ series: { knownBookCount: number | null } }>(
        "query($id: Int!) { series(id: $id) { knownBookCount } }",
        { id },
      );
      expect(before.series.knownBookCount).toBeNull();
      await accept.click();
      await panel.getByText("Applied: use 3 books.").waitFor();
      await expect
        .poll(
          async () =>
            (
              await service.gql<{ series: { knownBookCount: number | null } }>(
                "query($id: Int!) { series(id: $id) { knownBookCount } }",
                { id },
              )
            ).series.knownBookCount,
        )
        .toBe(3);

      // The map editor: adopt book 2 only, after its preview.
      await page.getByRole("link", { name: "Edit map" }).click();
      await page.waitForURL(`**/series/${id}/map`);
      const suggested = page.getByTestId("suggested-books");
      await suggested.waitFor();
      expect(await suggested.innerText()).toContain("Book 2 (chapters 6–9)");
      expect(await suggested.innerText()).toContain("Chapter 10 is listed under books 2 and 3");
      await suggested.getByRole("button", { name: "Adopt book 2" }).click();
      const adopt = page.getByRole("dialog", { name: "Adopt book 2" });
      await adopt.getByText("Book 2 from catalogue:mangadex becomes part of your map.").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await adopt.getByRole("button", { name: "Adopt book 2" }).click();
      await page.getByText(/Adopted book 2 from catalogue:mangadex/).waitFor();
      await suggested.getByText("In your map").waitFor();
      const map = await service.gql<{
        chapterMap: { revision: number; entries: { volume: string; chapters: string[] }[] };
      }>("query($id: Int!) { chapterMap(seriesId: $id) { revision entries { volume chapters } } }", { id });
      expect(map.chapterMap).toEqual({ revision: 1, entries: [{ volume: "2", chapters: ["6", "7", "8", "9"] }] });
      expect(errors).toEqual([]);
      await ctx.close();
    } finally {
      await Promise.all([md.close(), mu.close()]);
    }
  });
  it("at phone size, axe-clean and fitting the screen: settings, add a series, the panel, its search, the suggested books; the library card takes the catalogue cover", async () => {
    const md = await startFakeMangaDex([
      {
        id: mangadexId(42),
        title: "Paper Lantern Ferry, the Long Crossing of the Northern Archipelago",
        description: "A ferry crosses an archipelago of lantern-lit islands, one book at a time.",
        status: "ongoing",
        year: 2021,
        volumes: 4,
        chapters: 28,
        authors: ["Aki Mizuno"],
        genres: ["Adventure", "Slice of Life"],
        cover: await fakeCover(42),
        aggregate: { en: { "1": ["1", "2", "3"], "2": ["4", "5", "6"], "3": ["6", "7"], none: ["8"] } },
      },
    ]);
    const mu = await startFakeMangaUpdates([
      {
        id: "4242",
        title: "Paper Lantern Ferry, the Long Crossing of the Northern Archipelago",
        status: "ongoing",
        year: 2021,
        volumes: 5,
        chapters: 30,
      },
    ]);
    try {
      const ctx = await loggedInContext(browser, service, PHONE);
      const page = await ctx.newPage();
      const errors = watchErrors(page);

      // The catalogues' addresses in Settings (the fakes stand in for the public APIs).
      await page.goto("/settings");
      const settings = page.getByRole("form", { name: "Catalogues" });
      const mdBox = settings.getByRole("group", { name: "MangaDex" });
      await mdBox.getByLabel("API address").fill(md.url);
      await mdBox.getByLabel("Cover address").fill(md.url);
      await settings.getByRole("group", { name: "MangaUpdates" }).getByLabel("API address").fill(`${mu.url}/v1`);
      await settings.getByRole("group", { name: "AniList" }).getByLabel("Use AniList").uncheck();
      await settings.getByRole("button", { name: "Save" }).click();
      await settings.getByText("Saved.").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      const saved = await service.gql<{
        catalogueSettings: {
          mangadex: { enabled: boolean; baseUrl: string; coverBaseUrl: string };
          mangaupdates: { enabled: boolean; baseUrl: string };
          anilist: { enabled: boolean };
        };
      }>(
        "{ catalogueSettings { mangadex { enabled baseUrl coverBaseUrl } mangaupdates { enabled baseUrl } anilist { enabled } } }",
      );
      expect(saved.catalogueSettings).toEqual({
        mangadex: { enabled: true, baseUrl: md.url, coverBaseUrl: md.url },
        mangaupdates: { enabled: true, baseUrl: `${mu.url}/v1` },
        anilist: { enabled: false },
      });

      // Add a series: the search results at phone size.
      await page.goto("/add-series");
      await page.getByRole("searchbox", { name: "Title" }).fill("Paper Lantern Ferry");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.getByRole("region", { name: "MangaUpdates results" }).waitFor();
      await page.getByRole("region", { name: "MangaDex results" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page
        .getByRole("region", { name: "MangaDex results" })
        .getByRole("button", { name: /Add this series: Paper Lantern Ferry/ })
        .click();
      await page.waitForURL(/\/series\/\d+$/);
      const id = Number(/\/series\/(\d+)$/.exec(page.url())?.[1]);

      // The panel with a long title, the cover, a conflict in the suggestion and a lone count.
      const panel = page.getByTestId("catalogue-panel");
      await panel.getByText("A ferry crosses an archipelago of lantern-lit islands, one book at a time.").waitFor();
      await panel.getByText("Chapter 6 is listed under books 2 and 3: it is in none of them.").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);

      // Its search dialog, then linking MangaUpdates: the counts now conflict (4 and 5 books).
      await panel.getByRole("button", { name: "Find in catalogues…" }).click();
      const dialog = page.getByRole("dialog", { name: /^Find Paper Lantern Ferry/ });
      await dialog.getByRole("button", { name: "Search", exact: true }).click();
      const muHits = dialog.getByRole("region", { name: "MangaUpdates results" });
      await muHits.waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await muHits.getByRole("button", { name: /Link: Paper Lantern Ferry/ }).click();
      await panel.getByText(/Linked to MangaUpdates/).waitFor();
      const offers = panel.getByRole("button", { name: /^Use [45] books/ });
      await expect.poll(() => offers.count()).toBe(2);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);

      // The suggested books in the map editor and an adoption's preview.
      await page.goto(`/series/${id}/map`);
      const suggested = page.getByTestId("suggested-books");
      await suggested.waitFor();
      await suggested.getByRole("button", { name: "Adopt book 1" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await suggested.getByRole("button", { name: "Adopt book 1" }).click();
      const adopt = page.getByRole("dialog", { name: "Adopt book 1" });
      await adopt.getByText("Book 1 from catalogue:mangadex becomes part of your map.").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await adopt.getByRole("button", { name: "Cancel" }).click();

      // No file has a cover yet: the library card shows the catalogue's.
      await page.goto("/");
      const card = page.locator(`a[href="/series/${id}"] img`);
      await card.waitFor();
      expect(await card.getAttribute("src")).toBe(`/api/manga/${id}/cover`);
      await expect.poll(() => card.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      await ctx.close();
    } finally {
      await Promise.all([md.close(), mu.close()]);
    }
  });
});
