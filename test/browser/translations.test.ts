/**
 * Translation fallback in the web client, against the real service and a protocol v1 processor plus
 * an OpenAI-compatible chat server started here on 127.0.0.1: the global-off notice and empty state;
 * the settings form round trip with masked secrets (and the service login refused in words); a CBZ
 * uploaded for a missing book progressing live to imported; upload refusals in words; a failed job
 * retried as a new attempt; a running job cancelled after a confirm that warns about billing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import {
  API_KEY,
  PHONE,
  browserSuite,
  loggedInContext,
  seriesId,
  seriousViolations,
  watchErrors,
  type Service,
} from "./harness.ts";
import { jpeg, zip } from "../corpus/zip-bytes.ts";
import { startFakeProcessor, type FakeProcessor } from "../../server/test/fakes/processor-server.ts";
import { startFakeChat, type FakeChat } from "../../server/test/fakes/openai-chat-server.ts";

let service: Service;
let browser: Browser;
let processor: FakeProcessor;
let chat: FakeChat;
const TOKEN = "processor-token-0123456789";
const AI_KEY = "sk-test-ai-key-abcdef987654";
const HARBOR = "Harbor of Paper Cranes";

browserSuite((s, b) => {
  service = s;
  browser = b;
});

beforeAll(async () => {
  chat = await startFakeChat({ apiKey: AI_KEY });
  processor = await startFakeProcessor({ token: TOKEN, faults: { pageMs: 700 } });
});
afterAll(async () => {
  await processor?.close();
  await chat?.close();
});

async function cbz(pages: number): Promise<Buffer> {
  const entries = [];
  for (let i = 1; i <= pages; i += 1) entries.push({ name: `${String(i).padStart(3, "0")}.jpg`, data: await jpeg(i) });
  return zip(entries);
}

async function openTranslations(page: Page, id: number): Promise<void> {
  await page.goto(`/series/${id}`);
  await page.getByRole("navigation", { name: "Series actions" }).getByRole("link", { name: "Translations" }).click();
  await page.waitForURL(`**/series/${id}/translations`);
  await page.getByRole("heading", { level: 1, name: "Translations" }).waitFor();
  await page.getByRole("heading", { name: /^Jobs/ }).waitFor({ timeout: 15_000 });
}

async function upload(
  page: Page,
  file: { name: string; buffer: Buffer },
  kind: "one book" | "one chapter",
  number: string,
  language = "ja",
): Promise<void> {
  const form = page.locator("form", { has: page.getByRole("heading", { name: "Upload a source" }) });
  await form
    .getByLabel("Source CBZ file")
    .setInputFiles({ name: file.name, mimeType: "application/zip", buffer: file.buffer });
  await form.getByLabel(kind).check();
  await form.getByLabel(kind === "one book" ? "Book number" : "Chapter number").fill(number);
  await form.getByLabel("Source language").fill(language);
  await form.getByRole("button", { name: "Upload and translate" }).click();
}

const jobRow = (page: Page, subject: string, attempt: number) =>
  page.locator(`[data-testid="translation-job"][data-target="${subject}"][data-attempt="${attempt}"]`);

describe("translations", () => {
  it("says the global toggle is off and what to do while nothing exists; axe clean at desktop and phone size", async () => {
    const id = await seriesId(service, HARBOR);
    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      const errors = watchErrors(page);
      await openTranslations(page, id);
      const off = page.getByTestId("global-off");
      await off.waitFor();
      expect(await off.getByRole("link", { name: "Switch it on in the settings" }).getAttribute("href")).toContain(
        "/settings",
      );
      await page.getByText("No translation yet.").waitFor();
      expect(await page.getByTestId("inherits").innerText()).toContain("uses the global order");
      if (viewport === undefined) {
        // "Search now" says why nothing was queued, in words.
        await page.getByRole("button", { name: "Search now" }).click();
        await page.getByTestId("search-result").getByText("No translation was queued.").waitFor({ timeout: 30_000 });
        expect(await page.getByTestId("search-result").innerText()).toContain(
          "Nothing was searched: translation fallback is switched off in the settings.",
        );
      }
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await ctx.close();
    }
  });

  it("saves the settings form with masked secrets and refuses the service's own key in words", async () => {
    for (const viewport of [undefined, PHONE]) {
      const ctx = await loggedInContext(browser, service, viewport);
      const page = await ctx.newPage();
      await page.goto("/settings");
      const form = page.getByTestId("translation-settings");
      await form.waitFor({ timeout: 15_000 });
      expect(await seriousViolations(page)).toEqual([]);
      await ctx.close();
    }
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto("/settings");
    const form = page.getByTestId("translation-settings");
    await form.waitFor({ timeout: 15_000 });
    expect(await form.getByTestId("translation-engine").innerText()).toBe("Local processing");
    expect(await form.getByTestId("translation-ai-key-status").innerText()).toBe("not set");

    // The service's own API key is refused, with the advice.
    await form.getByLabel("API key").fill(API_KEY);
    await form.getByRole("button", { name: "Save translation settings" }).click();
    const refused = form.locator('[data-code="secret_is_service_login"]');
    await refused.waitFor();
    expect(await refused.innerText()).toContain("Never enter this service's own API key or login password here");

    await form.getByLabel("Use machine translation when no native release exists").check();
    await form.getByLabel("Language code to add to source languages").fill("fr");
    await form.getByRole("button", { name: "Add language" }).click();
    await form.getByLabel("Language code to add to source languages").fill("ja");
    await form.getByLabel("Language code to add to source languages").press("Enter");
    await form.getByRole("button", { name: "Move ja up" }).click();
    await form.getByLabel("API base URL").fill(chat.baseUrl);
    await form.getByLabel("Model").fill("test-model");
    await form.getByLabel("API key").fill(AI_KEY);
    await form.getByLabel("External processor URL (optional)").fill(processor.url);
    await form.getByText("External processor:", { exact: true }).waitFor();
    await form.getByLabel("Access token").fill(TOKEN);
    await form.getByRole("button", { name: "Save translation settings" }).click();
    await form.getByText("Saved. Translation fallback is on, using the external processor").waitFor();
    expect(await form.getByTestId("translation-ai-key-status").innerText()).toBe("set");
    expect(await form.getByTestId("translation-processor-token-status").innerText()).toBe("set");
    expect(await form.locator("#translation-ai-key").inputValue()).toBe("");

    // A fresh page: stored, secrets only as "set", never in the page.
    await page.reload();
    await form.waitFor({ timeout: 15_000 });
    expect(await form.getByTestId("translation-engine").innerText()).toBe("External processor");
    expect(await form.getByTestId("global-languages-list").innerText()).toMatch(/ja[\s\S]*fr/);
    expect(await form.getByLabel("API base URL").inputValue()).toBe(chat.baseUrl);
    const html = await page.content();
    expect(html).not.toContain(AI_KEY);
    expect(html).not.toContain(TOKEN);
    expect(html).not.toContain(AI_KEY.slice(-4));
    const stored = (await (await service.api("GET", "/api/settings/translation")).json()) as {
      enabled: boolean;
      source_languages: string[];
      ai: { api_key: string };
      processor: { url: string; token: string };
    };
    expect(stored).toMatchObject({ enabled: true, source_languages: ["ja", "fr"], processor: { url: processor.url } });
    expect(stored.ai.api_key).not.toContain(AI_KEY.slice(0, 8));
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("uploads a CBZ for a missing book and shows its job progressing live to imported", async () => {
    // Configured through the API as well: the form above must not be the only way this test gets set up.
    const put = await service.api("PUT", "/api/settings/translation", {
      enabled: true,
      source_languages: ["ja"],
      ai: { base_url: chat.baseUrl, model: "test-model", api_key: AI_KEY },
      processor: { url: processor.url, token: TOKEN },
    });
    expect(put.status).toBe(200);
    const id = await seriesId(service, HARBOR);
    const ctx = await loggedInContext(browser, service);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openTranslations(page, id);
    expect(await page.getByTestId("global-off").count()).toBe(0);
    await page.getByText("off for this series").waitFor();

    await page.getByLabel("Translate missing books and chapters of this series").check();
    await page.getByRole("button", { name: "Save series translation settings" }).click();
    await page.getByText("Saved. Translation fallback is on for this series.").waitFor();
    expect(
      (
        await service.gql<{ series: { translationFallbackEnabled: boolean } }>(
          "query($id: Int!) { series(id: $id) { translationFallbackEnabled } }",
          { id },
        )
      ).series.translationFallbackEnabled,
    ).toBe(true);

    // Refusals in words: a number outside the managed edition, and a pack.
    const source = await cbz(6);
    await upload(page, { name: "Harbor v09 (ja).cbz", buffer: source }, "one book", "9");
    const unknown = page.locator('[data-code="translation_target_unknown"]');
    await unknown.waitFor({ timeout: 15_000 });
    expect(await unknown.innerText()).toContain("That number is not in the managed edition");
    await upload(page, { name: "Harbor v04-05 (ja).cbz", buffer: source }, "one book", "4");
    const pack = page.locator('[data-code="translation_pack_refused"]');
    await pack.waitFor({ timeout: 15_000 });
    expect(await pack.innerText()).toContain("Split the pack into single books first");

    await upload(page, { name: "Harbor v04 (ja).cbz", buffer: source }, "one book", "4");
    await page
      .getByText(/Uploaded Harbor v04 \(ja\)\.cbz: the translation of Book 4 is queued/)
      .waitFor({ timeout: 15_000 });
    const row = jobRow(page, "Book 4", 0);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.innerText()).toContain("ja → en");
    // Live progress from the subscription: a bar with pages done of the total.
    await row.getByText(/Book 4: [0-5] of 6 pages translated/).waitFor({ timeout: 30_000 });
    await row.getByRole("progressbar").first().waitFor();
    await row.getByTestId("job-status").getByText("Completed", { exact: true }).waitFor({ timeout: 60_000 });
    expect(await row.getByTestId("job-state").innerText()).toBe("imported into the library");

    // What the processor received: the source with the token, the key in the body only.
    const jobId = await row.getAttribute("data-job-id");
    const sent = processor.requests.filter((r) => r.url.startsWith(`/jobs/${jobId}`));
    expect(
      sent.some(
        (r) => r.method === "PUT" && r.url === `/jobs/${jobId}/source` && r.headers.authorization === `Bearer ${TOKEN}`,
      ),
    ).toBe(true);
    expect(processor.requests.every((r) => !r.url.includes(AI_KEY))).toBe(true);
    expect(processor.aiKeysSeen).toContain(AI_KEY);
    expect(await seriousViolations(page)).toEqual([]);
    // The two refusals above answered 422 on purpose; nothing else may fail.
    expect(errors.filter((e) => !e.includes("status of 422"))).toEqual([]);
    expect(errors).toHaveLength(2);
    await ctx.close();
  });

  it("retries a failed job as a new attempt and cancels a running one after a confirm", async () => {
    const id = await seriesId(service, HARBOR);
    const ctx = await loggedInContext(browser, service, PHONE);
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await openTranslations(page, id);

    processor.faults.fail = { code: "provider_error", message: "The AI provider refused the request." };
    await upload(page, { name: "Harbor - c028 (ja).cbz", buffer: await cbz(3) }, "one chapter", "28");
    const failed = jobRow(page, "Chapter 28", 0);
    await failed.getByTestId("job-status").getByText("Failed", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await failed.innerText()).toContain("The AI provider refused the request.");

    processor.faults.fail = null;
    await failed.getByRole("button", { name: "Retry Chapter 28" }).click();
    await page.getByText("Retrying Chapter 28: attempt 1 is queued.").waitFor();
    const second = jobRow(page, "Chapter 28", 1);
    await second.getByTestId("job-status").getByText("Completed", { exact: true }).waitFor({ timeout: 60_000 });
    // Only the newest attempt can be retried.
    expect(await failed.getByRole("button", { name: "Retry Chapter 28" }).count()).toBe(0);

    // A slow job: cancelled while it runs.
    processor.faults.pageMs = 60_000;
    await upload(page, { name: "Harbor v05 (ja).cbz", buffer: await cbz(3) }, "one book", "5");
    const slow = jobRow(page, "Book 5", 0);
    // Sent to the processor, which takes a minute a page: the request is under way there.
    await slow
      .getByTestId("job-state")
      .getByText(/submitted to the processor|being translated/)
      .waitFor({ timeout: 30_000 });
    const slowId = await slow.getAttribute("data-job-id");
    expect(processor.requests.some((r) => r.method === "POST" && r.url === `/jobs/${slowId}`)).toBe(true);
    await slow.getByRole("button", { name: "Cancel Book 5" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this translation?" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("may still be billed");
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Cancel translation" }).click();
    await page
      .getByText(
        /^(The translation of Book 5 is cancelled\.|Cancelling the translation of Book 5; the processor is being told\.)$/,
      )
      .waitFor();
    await slow.getByTestId("job-status").getByText("Cancelled", { exact: true }).waitFor({ timeout: 30_000 });
    expect(processor.requests.some((r) => r.method === "DELETE" && r.url === `/jobs/${slowId}`)).toBe(true);
    // A cancelled job can start again as a new attempt.
    expect(await slow.getByRole("button", { name: "Retry Book 5" }).count()).toBe(1);
    processor.faults.pageMs = 20;
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
