/**
 * Audit files against the real service and the demo library: the file cards with their lazily
 * made first/last thumbnails, the flag badges, the filters and the pager (all in the address),
 * the empty states, a reviewed retirement whose preview went stale and is previewed afresh, and
 * the rejection of a wrongly linked work, linked and downloaded through the API from a
 * Suwayomi-compatible server started here.
 */
import { utimesSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import {
  PHONE,
  loggedInContext,
  seriesId,
  seriousViolations,
  watchErrors,
  type Service,
  browserSuite,
} from "./harness.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
} from "../../server/test/fakes/suwayomi-server.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

interface AuditAnswer {
  audit: {
    total: number;
    files: {
      id: number;
      path: string;
      flags: string[];
      number: string | null;
      kind: string;
      size: number;
      pageCount: number;
    }[];
  };
}
const auditOf = (id: number, filter: Record<string, unknown> = {}, page = 1) =>
  service.gql<AuditAnswer>(
    "query($id: Int!, $filter: AuditFilter, $page: Int) { audit(seriesId: $id, filter: $filter, page: $page) { total files { id path flags number kind size pageCount } } }",
    { id, filter, page },
  );

const cards = (page: Page): Locator => page.getByTestId("audit-file");
const card = (page: Page, name: string): Locator =>
  cards(page).filter({ has: page.getByRole("heading", { level: 3, name, exact: true }) });

async function openAudit(page: Page, id: number, search = ""): Promise<void> {
  await page.goto(`/series/${id}/audit${search}`);
  await page.getByRole("heading", { level: 1, name: "Audit files" }).waitFor();
  await page.getByRole("heading", { level: 2, name: /^Files/ }).waitFor();
}

/** Waits until the list shows exactly `n` cards (filters and pages load asynchronously). */
async function expectCards(page: Page, n: number): Promise<void> {
  await page.waitForFunction((count) => document.querySelectorAll('[data-testid="audit-file"]').length === count, n, {
    timeout: 15_000,
  });
}

describe("audit files", () => {
  it("lists each file with its first and last page thumbnails, path, size, pages and source", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    const expected = await auditOf(id);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openAudit(page, id);
    await expectCards(page, expected.audit.total);
    expect(await page.getByRole("heading", { level: 2, name: /^Files/ }).innerText()).toContain(
      `(${expected.audit.total})`,
    );

    const book = card(page, "Book 1");
    const v01 = expected.audit.files.find((f) => f.kind === "BOOK" && f.number === "1");
    if (!v01) throw new Error("no book 1");
    expect(await book.innerText()).toContain(v01.path);
    // Demo books are some hundred kilobytes: shown in whole KB.
    expect(await book.innerText()).toMatch(new RegExp(`Size\\s*${Math.round(v01.size / 1000)} KB`));
    expect(await book.innerText()).toMatch(new RegExp(`Pages\\s*${v01.pageCount}`));
    expect(await book.innerText()).toMatch(/Source\s*Local \(scanned\)/);
    const first = book.getByRole("img", { name: "First page of Book 1" });
    const last = book.getByRole("img", { name: "Last page of Book 1" });
    // Loaded lazily from the thumbnail endpoint, with a reserved box (width and height set).
    expect(await first.getAttribute("loading")).toBe("lazy");
    expect(await first.getAttribute("src")).toMatch(/\/api\/files\/\d+\/thumbnail\?page=first$/);
    expect(await last.getAttribute("src")).toMatch(/\/api\/files\/\d+\/thumbnail\?page=last$/);
    expect(await first.getAttribute("width")).toBeTruthy();
    for (const img of [first, last]) {
      await img.evaluate((el: HTMLImageElement) => el.decode());
      expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
    }
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("retries a thumbnail the busy worker refused once, and shows a placeholder for a damaged archive", async () => {
    const id = await seriesId(service, "Lanterns of the Salt Road");
    const files = (await auditOf(id)).audit.files;
    const [busy, damaged] = files;
    if (!busy || !damaged) throw new Error("files missing");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    // The worker is busy for the first two asks (the <img> and the status check), as with 8 renders queued.
    let refused = 0;
    await page.route(`**/api/files/${busy.id}/thumbnail?page=first*`, async (route) => {
      if (refused < 2) {
        refused += 1;
        await route.fulfill({
          status: 503,
          headers: { "retry-after": "1" },
          contentType: "application/problem+json",
          body: '{"code":"thumbnails_busy"}',
        });
      } else {
        await route.continue();
      }
    });
    await page.route(`**/api/files/${damaged.id}/thumbnail?page=last*`, (route) =>
      route.fulfill({
        status: 422,
        contentType: "application/problem+json",
        body: '{"code":"archive_crc_mismatch","entry":"p007.jpg"}',
      }),
    );
    await openAudit(page, id);
    const first = card(page, `Book ${busy.number}`).getByRole("img", { name: `First page of Book ${busy.number}` });
    await page.waitForFunction(
      (fileId) => {
        const img = document.querySelector<HTMLImageElement>(`[data-file-id="${fileId}"] img[alt^="First page"]`);
        return img !== null && img.complete && img.naturalWidth > 0;
      },
      busy.id,
      { timeout: 15_000 },
    );
    expect(await first.getAttribute("src")).toContain("retry=1");
    expect(refused).toBe(2);
    const placeholder = card(page, `Book ${damaged.number}`).getByRole("img", {
      name: `Last page of Book ${damaged.number}: no preview`,
    });
    await placeholder.waitFor();
    expect(await placeholder.evaluate((el) => el.tagName)).toBe("SPAN");
    await ctx.close();
  });

  it("shows the flags of a file as badges in words", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    // The demo's chapter 28 is missing: chapter 29 carries the gap, and it has fewer than 8 pages.
    const flagged = (await auditOf(id)).audit.files.find((f) => f.kind === "CHAPTER" && f.number === "29");
    expect(flagged?.flags).toEqual(["NUMBERING_GAP", "FEW_PAGES"]);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openAudit(page, id);
    const chapter = card(page, "Chapter 29");
    const badges = chapter.getByRole("list", { name: "Flags" }).getByRole("listitem");
    expect(await badges.allInnerTexts()).toEqual(["Gap before it", "Few pages"]);
    expect(await card(page, "Book 1").getByRole("list", { name: "Flags" }).count()).toBe(0);
    // The legend says what each word means.
    await page.getByText("What the flags mean").click();
    await page
      .getByRole("definition")
      .filter({ hasText: "A number is missing before this file in its source and language." })
      .waitFor();
    await ctx.close();
  });

  it("narrows the list with the filters, keeps them in the address, and clears them", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    const all = (await auditOf(id)).audit.total;
    const problems = (await auditOf(id, { problemsOnly: true })).audit.total;
    expect(problems).toBeLessThan(all);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openAudit(page, id);
    await expectCards(page, all);

    await page.getByRole("checkbox", { name: "Problems only" }).check();
    await expectCards(page, problems);
    expect(new URL(page.url()).searchParams.get("problems")).toBe("1");
    expect(await card(page, "Book 1").count()).toBe(0);

    await page.getByText(/^Flags/).click();
    await page.getByRole("checkbox", { name: /^Gap before it/ }).check();
    await expectCards(page, 1);
    await card(page, "Chapter 29").waitFor();
    expect(new URL(page.url()).searchParams.get("flags")).toBe("numbering_gap");

    // A reload shows the same filtered list.
    await page.reload();
    await expectCards(page, 1);
    expect(await page.getByRole("checkbox", { name: "Problems only" }).isChecked()).toBe(true);

    await page.getByRole("button", { name: "Clear the filters" }).first().click();
    await expectCards(page, all);
    await page.getByRole("combobox", { name: "Kind" }).selectOption("BOOK");
    await expectCards(page, 3);
    expect(await cards(page).getByRole("heading", { level: 3 }).allInnerTexts()).toEqual([
      "Book 1",
      "Book 2",
      "Book 3",
    ]);
    await page.getByRole("combobox", { name: "Sort" }).selectOption("-number");
    await page.waitForFunction(() => document.querySelector('[data-testid="audit-file"] h3')?.textContent === "Book 3");
    expect(new URL(page.url()).search).toBe("?kind=book&sort=-number");
    await ctx.close();
  });

  it("says when no file matches and offers to clear the filters", async () => {
    const id = await seriesId(service, "Lanterns of the Salt Road");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openAudit(page, id, "?flags=few_pages");
    await page.getByText("No file matches these filters.").waitFor();
    await page.getByRole("button", { name: "Clear the filters" }).last().click();
    await expectCards(page, 4);
    await ctx.close();
  });

  it("pages through a series with more than 24 files", async () => {
    const id = await seriesId(service, "The Clockmaker's Apprentice");
    const total = (await auditOf(id)).audit.total;
    expect(total).toBeGreaterThan(24);
    const second = (await auditOf(id, {}, 2)).audit.files;
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openAudit(page, id);
    await expectCards(page, 24);
    const pager = page.getByRole("navigation", { name: "Pages" });
    expect(await pager.innerText()).toContain("Page 1 of 2");
    await pager.getByRole("link", { name: "Next →" }).click();
    await expectCards(page, total - 24);
    expect(new URL(page.url()).searchParams.get("page")).toBe("2");
    expect(await pager.innerText()).toContain("Page 2 of 2");
    const names = await cards(page).getByRole("heading", { level: 3 }).allInnerTexts();
    expect(names).toEqual(second.map((f) => `Chapter ${f.number}`));
    await pager.getByRole("link", { name: "← Previous" }).click();
    await expectCards(page, 24);
    await page.goBack();
    await expectCards(page, total - 24);
    await ctx.close();
  });

  it("previews a retirement, explains a stale preview, and retires after a fresh one", async () => {
    const id = await seriesId(service, "Skyline Greenhouse");
    const before = (await auditOf(id)).audit;
    const target = before.files[0];
    if (!target) throw new Error("no file");
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openAudit(page, id);
    await expectCards(page, before.total);
    const name = `Chapter ${target.number}`;
    await page.getByRole("checkbox", { name: new RegExp(`^Select ${name} \\(`) }).check();
    const bar = page.getByRole("region", { name: "Selection" });
    expect(await bar.innerText()).toContain("1 file selected");
    await bar.getByRole("button", { name: "Retire selected…" }).click();

    const dialog = page.getByRole("dialog", { name: "Retire 1 file" });
    await dialog.getByRole("cell", { name: new RegExp(target.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) }).waitFor();
    expect(await dialog.innerText()).toContain("This review is valid until");

    // The file changes on disk after the preview: the confirm is refused and a fresh preview offered.
    const onDisk = path.join(service.libraryRoot, target.path);
    const later = new Date(Date.now() + 60_000);
    utimesSync(onDisk, later, later);
    await dialog.getByRole("button", { name: "Retire 1 file" }).click();
    const alert = dialog.getByRole("alert");
    await alert.waitFor();
    expect(await alert.getAttribute("data-code")).toBe("snapshot_stale");
    expect(await alert.innerText()).toContain("Open a fresh preview and confirm again.");

    // After a rescan records the change, the fresh preview can be confirmed.
    expect((await service.api("POST", "/api/library/scan")).status).toBe(200);
    await alert.getByRole("button", { name: "Fresh preview" }).click();
    await dialog.getByRole("button", { name: "Retire 1 file" }).click();
    // The same dialog now tells the outcome.
    const done = page.getByRole("dialog", { name: "Moved to the recycle bin" });
    await done.getByText("1 file was moved to the recycle bin.").waitFor();
    expect(await done.innerText()).toContain(path.basename(target.path));
    await done.getByRole("button", { name: "Close", exact: true }).last().click();
    await expectCards(page, before.total - 1);
    expect(await card(page, name).count()).toBe(0);
    expect(await page.getByRole("region", { name: "Selection" }).count()).toBe(0);
    await ctx.close();
  });

  it("rejects one exact source after a preview of its offers and files; the provider's other mapping stays", async () => {
    const id = await seriesId(service, "The Clockmaker's Apprentice");
    // One Suwayomi source lists two works under the series' title: a wrong edition with chapters
    // 40–41 and the right one with chapter 42. Both are linked through the API and downloaded.
    const pages = await drawnChapter(4, 40);
    const source: FakeSource = { id: "8901", name: "Example Source", lang: "en" };
    const work = (workId: number, title: string, chapters: number[]) =>
      fakeWork({
        id: workId,
        title,
        source,
        chapters: chapters.map((n) => fakeChapter({ chapterNumber: n, pages })),
      });
    const fake = await startFakeSuwayomi({
      sources: [source],
      works: [
        work(601, "The Clockmaker's Apprentice (Fan Edit)", [40, 41]),
        work(602, "The Clockmaker's Apprentice", [42]),
      ],
    });
    try {
      await service.gql(
        `mutation($url: String!) { updateSourceSettings(input: { suwayomi: { enabled: true, url: $url, auth: NONE } }) { suwayomi { configured } } }`,
        { url: fake.url },
      );
      for (const sourceId of ["601", "602"])
        await service.gql(
          `mutation($s: Int!, $p: String!, $src: String!) { linkSource(seriesId: $s, provider: $p, sourceId: $src, language: "en") { mapping { id } } }`,
          { s: id, p: source.id, src: sourceId },
        );
      const provider = (
        await service.gql<{ sourceMappings: { provider: string; sourceId: string }[] }>(
          "query($id: Int!) { sourceMappings(seriesId: $id) { provider sourceId } }",
          { id },
        )
      ).sourceMappings.find((m) => m.sourceId === "601")!.provider;
      // The link's Wanted pass fetches the three chapters; nothing else is asked of the service.
      await expect
        .poll(async () => (await auditOf(id, { provider })).audit.total, { timeout: 60_000, interval: 250 })
        .toBe(3);

      const ctx = await loggedInContext(browser, service);
      const page = await ctx.newPage();
      const errors = watchErrors(page);
      await openAudit(page, id, `?provider=${encodeURIComponent(provider)}`);
      await expectCards(page, 3);
      expect(await card(page, "Chapter 40").innerText()).toMatch(new RegExp(`Source\\s*${provider} · 601`));
      await card(page, "Chapter 40").getByRole("button", { name: "Reject this source…" }).click();

      const dialog = page.getByRole("dialog", { name: `Reject ${provider} · 601` });
      await dialog.getByRole("textbox", { name: /^Why/ }).fill("another edition");
      await dialog.getByRole("button", { name: "Preview the rejection" }).click();
      const table = dialog.getByRole("table");
      await table.waitFor();
      const review = await dialog.innerText();
      expect(review).toContain(
        `2 offers of ${provider} · 601 (en) will be removed, and these files go to the recycle bin:`,
      );
      expect(await table.innerText()).toContain("Chapter 40");
      expect(await table.innerText()).toContain("Chapter 41");
      expect(await table.innerText()).not.toContain("Chapter 42");
      expect(review).toContain("Reason: another edition");
      await dialog.getByRole("button", { name: "Reject the source" }).click();

      const done = page.getByRole("dialog", { name: "Source rejected" });
      await done.getByText("The mapping is gone: 2 offers removed, 2 files moved to the recycle bin.").waitFor();
      await done.getByRole("button", { name: "Close", exact: true }).last().click();
      // The other work of the same source stays, with its file.
      await expectCards(page, 1);
      await card(page, "Chapter 42").waitFor();
      const bin = (
        await service.gql<{ recycleBin: { originalPath: string; reason: string }[] }>(
          "{ recycleBin { originalPath reason } }",
        )
      ).recycleBin.filter((e) => e.reason.includes("601"));
      expect(bin).toHaveLength(2);
      expect(errors).toEqual([]);
      await ctx.close();
    } finally {
      await fake.close();
    }
  });

  it("has no serious accessibility violations, on a desktop and a phone", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      await openAudit(page, id);
      await page.getByRole("checkbox", { name: /^Select Chapter 29/ }).check();
      await page.getByRole("region", { name: "Selection" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      // Nothing overflows the phone's width.
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await ctx.close();
    }
  });
});
