/**
 * Verified books against the real service. The demo library has no suspect book, so the test
 * makes one: a 40-page "book 4" dropped into the mapped series (its three books have 10–12
 * pages) is an oversized pack after a rescan. The proof form (prefilled digest and chapters, a
 * refused proof explained, a recorded one), the verified state, and the withdrawal.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { jpeg, zip } from "../corpus/zip-bytes.ts";
import {
  PHONE,
  loggedInContext,
  seriesId,
  seriousViolations,
  watchErrors,
  type Service,
  browserSuite,
} from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

interface Book {
  volume: string;
  digest: string;
  chapters: string[];
  suspectReason: string | null;
  verified: boolean;
  proof: { note: string; status: string; sourceUrl: string | null } | null;
}
const booksOf = async (id: number) =>
  (
    await service.gql<{ verifiedBooks: Book[] }>(
      "query($id: Int!) { verifiedBooks(seriesId: $id) { volume digest chapters suspectReason verified proof { note status sourceUrl } } }",
      { id },
    )
  ).verifiedBooks;

const bookCard = (page: Page, volume: string): Locator =>
  page
    .getByTestId("verified-book")
    .filter({ has: page.getByRole("heading", { level: 3, name: `Book ${volume}`, exact: true }) });

async function openVerified(page: Page, id: number): Promise<void> {
  await page.goto(`/series/${id}/verified`);
  await page.getByRole("heading", { level: 1, name: "Verified books" }).waitFor();
  await page.getByRole("heading", { level: 2, name: /^Suspect books/ }).waitFor();
}

/** A book file far larger than the series' other books: an oversized pack once scanned. */
async function dropOversizedBook(folder: string, name: string, pages: number): Promise<void> {
  const entries = [];
  for (let i = 1; i <= pages; i++) entries.push({ name: `p${String(i).padStart(3, "0")}.jpg`, data: await jpeg(i) });
  writeFileSync(path.join(service.libraryRoot, folder, name), await zip(entries));
  const scan = await service.api("POST", "/api/library/scan");
  expect(scan.status).toBe(200);
}

describe("verified books", () => {
  it("says no book needs a proof when none is suspect, and lists the trusted ones", async () => {
    // Every book the demo's scan found is a hand import: a series of chapters has none in doubt.
    const clock = await seriesId(service, "The Clockmaker's Apprentice");
    expect(await booksOf(clock)).toEqual([]);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    await openVerified(page, clock);
    await page.getByText("No book needs a proof.").waitFor();
    expect(await page.locator("main").innerText()).toContain(
      "A book is suspect when the service did not make it and nothing shows what it holds",
    );
    await page.getByText("This series has no book on disk.").waitFor();

    // A book the service assembles is trusted: Harbor's book 5 (its chapters are all on disk).
    const harbor = await seriesId(service, "Harbor of Paper Cranes");
    const preview = await service.api("POST", `/api/manga/${harbor}/volumes/5/assemble?dry_run=true`, {});
    expect(preview.status).toBe(200);
    const { confirmation } = (await preview.json()) as { confirmation: string };
    const built = await service.api("POST", `/api/manga/${harbor}/volumes/5/assemble?dry_run=false`, { confirmation });
    expect(built.status).toBe(200);
    const trustedBooks = (await booksOf(harbor)).filter((b) => b.suspectReason === null && b.proof === null);
    expect(trustedBooks.map((b) => b.volume)).toEqual(["5"]);
    await openVerified(page, harbor);
    const trusted = page.getByRole("table");
    await trusted.waitFor();
    expect(await trusted.getByRole("row").count()).toBe(trustedBooks.length + 1);
    expect(await trusted.getByRole("rowheader").innerText()).toBe("5");
    expect(await seriousViolations(page)).toEqual([]);
    await ctx.close();
  });

  it("records a proof for a suspect book, shows it verified, and withdraws it", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    await dropOversizedBook("Harbor of Paper Cranes", "Harbor of Paper Cranes v04.cbz", 40);
    const suspect = (await booksOf(id)).find((b) => b.volume === "4");
    expect(suspect?.suspectReason).toBe("oversized pack");
    expect(suspect?.chapters).toEqual(["25", "26", "27", "28", "29", "30", "31", "32"]);
    if (!suspect) throw new Error("no book 4");

    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openVerified(page, id);
    const card = bookCard(page, "4");
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain("Suspect: oversized pack");
    expect(text).toContain(suspect.digest.slice(0, 19));
    expect(text).toMatch(/Map chapters\s*25–32 \(8\)/);
    // The books the demo's generator proved are listed with their proof; the assembled one is not.
    await bookCard(page, "1").getByText("Verified", { exact: true }).waitFor();
    expect(await bookCard(page, "5").count()).toBe(0);

    await card.getByRole("button", { name: "Record a proof…" }).click();
    const form = page.getByRole("dialog", { name: "Proof for book 4" });
    const digest = form.getByRole("textbox", { name: "Digest of the copy you checked" });
    const chapters = form.getByRole("textbox", { name: "Chapters it holds" });
    expect(await digest.inputValue()).toBe(suspect.digest);
    expect(await chapters.inputValue()).toBe("25, 26, 27, 28, 29, 30, 31, 32");

    // The note is required; the form says so before asking the service.
    await form.getByRole("button", { name: "Record the proof" }).click();
    await form.getByText("Say how you checked the book").waitFor();
    const note = form.getByRole("textbox", { name: "How you checked it" });
    expect(await note.getAttribute("aria-invalid")).toBe("true");

    // Chapters other than the map's are refused by the service, with the way out.
    await chapters.fill("25, 26, 27");
    await note.fill("Compared every chapter's first page with the publisher's preview.");
    await form.getByRole("button", { name: "Record the proof" }).click();
    const alert = form.getByRole("alert");
    await alert.waitFor();
    expect(await alert.getAttribute("data-code")).toBe("proof_chapters_mismatch");
    expect(await alert.innerText()).toContain("List exactly the chapters the map gives this book.");
    expect(await alert.getByRole("link", { name: "Open the map editor" }).getAttribute("href")).toBe(
      `/series/${id}/map`,
    );

    await chapters.fill("25, 26, 27, 28, 29, 30, 31, 32");
    await form.getByRole("textbox", { name: "Source (optional)" }).fill("https://example.org/harbor/volume-4");
    await form.getByRole("button", { name: "Record the proof" }).click();
    await form.waitFor({ state: "hidden" });
    await page.getByRole("status").filter({ hasText: "Book 4 is verified." }).waitFor();
    await card.getByText("Verified", { exact: true }).waitFor();
    const proven = await card.innerText();
    expect(proven).toContain("The proof applies");
    expect(proven).toContain("Compared every chapter's first page with the publisher's preview.");
    expect(proven).toContain("https://example.org/harbor/volume-4");
    const after = (await booksOf(id)).find((b) => b.volume === "4");
    expect(after?.verified).toBe(true);
    expect(after?.proof?.status).toBe("APPLIES");
    expect(await seriousViolations(page)).toEqual([]);

    await card.getByRole("button", { name: "Withdraw the proof…" }).click();
    const confirm = page.getByRole("dialog", { name: "Withdraw the proof of book 4?" });
    expect(await confirm.innerText()).toContain("The book is suspect again (oversized pack)");
    await confirm.getByRole("button", { name: "Withdraw the proof" }).click();
    await page.getByRole("status").filter({ hasText: "The proof of book 4 was withdrawn." }).waitFor();
    await card.getByText("Suspect: oversized pack").waitFor();
    expect(await card.getByRole("button", { name: "Withdraw the proof…" }).count()).toBe(0);
    const withdrawn = (await booksOf(id)).find((b) => b.volume === "4");
    expect(withdrawn?.verified).toBe(false);
    expect(withdrawn?.proof).toBeNull();
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("has no serious accessibility violations on a phone, with the proof form open", async () => {
    const id = await seriesId(service, "Harbor of Paper Cranes");
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    await openVerified(page, id);
    await bookCard(page, "4").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await bookCard(page, "4").getByRole("button", { name: "Record a proof…" }).click();
    await page.getByRole("dialog", { name: "Proof for book 4" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await ctx.close();
  });
  it("adopts a scanned book's page-proven map entry and proof in one click", async () => {
    // Moss & Meteor: no map, chapters 7–20 on disk, book 2 scanned from the pages of chapters 7–12.
    const id = await seriesId(service, "Moss & Meteor");
    expect((await booksOf(id)).find((b) => b.volume === "2")).toMatchObject({
      suspectReason: "hand import",
      verified: false,
    });
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openVerified(page, id);
    const panel = page.getByTestId("page-evidence");
    // The signatures are computed in the background; the panel asks again until they are there.
    const row = panel.locator('[data-testid="page-evidence-book"][data-volume="2"]');
    await row.waitFor({ timeout: 120_000 });
    expect(await row.innerText()).toMatch(/Book 2 · chapters 7–12 found in order at pages \d+–\d+/);
    expect(await panel.locator('[data-volume="1"]').innerText()).toContain("no chapter on disk was found");
    expect(await panel.getByRole("button", { name: /Adopt/ }).count()).toBe(1);

    await row.getByRole("button", { name: "Adopt as map entry and proof of book 2" }).click();
    await panel
      .getByRole("status")
      .filter({ hasText: "Book 2: the map entry (chapters 7, 8, 9, 10, 11, 12) and its proof were recorded." })
      .waitFor();
    await bookCard(page, "2").getByText("Verified", { exact: true }).waitFor();
    const book = (await booksOf(id)).find((b) => b.volume === "2");
    expect(book).toMatchObject({ verified: true, chapters: ["7", "8", "9", "10", "11", "12"] });
    expect(book?.proof?.note).toMatch(/page evidence/i);
    // A proof never retires a file: every chapter file is still active.
    const audit = await (await service.api("GET", `/api/manga/${id}/audit?kind=chapter`)).json();
    expect((audit as { total: number }).total).toBe(14);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
