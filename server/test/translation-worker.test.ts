/**
 * The external-processor worker against the fake processor and the fake chat server (real HTTP on
 * 127.0.0.1): the happy path into the library, dropped connections (same id), the limit of two
 * outstanding jobs, slow completion, and every bad-receipt variant refused.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withArchive } from "../src/library/archive-reader.ts";
import { importTranslation } from "../src/services/translation/translation-import.ts";
import { COMICINFO_XSD_21, assertValidXml } from "./xmllint.ts";
import type { FakeChat } from "./fakes/openai-chat-server.ts";
import { BAD_RECEIPTS, RECEIPT_SHAPES, type FakeProcessor } from "./fakes/processor-server.ts";
import {
  AI_KEY,
  TOKEN,
  jobRow,
  queueJob,
  stateIs,
  translatedSeries,
  until,
  workerSuite,
} from "./translation-worker-harness.ts";
import type { TestApp } from "./utils.ts";

let app: TestApp;
let fake: FakeProcessor;
let chat: FakeChat;
const logs: string[] = [];

workerSuite(5, (s) => {
  ({ app, fake, chat } = s);
  app.ctx.log = (m) => void logs.push(m);
});

const requestsOf = (id: string) => fake.requests.filter((r) => r.url.startsWith(`/jobs/${id}`));

describe("translation worker, external processor", () => {
  it("uploads, submits, follows progress and imports a valid result with provenance (suspect, nothing retired)", async () => {
    const seriesId = await translatedSeries(app, "Happy Path");
    const job = await queueJob(app, seriesId, "3", { pages: 4 });
    const done = await stateIs(app, job.row.id, "imported", "failed");
    expect(done.errorCode).toBeNull();
    expect(done.state).toBe("imported");
    expect(done.pagesDone).toBe(4);
    expect(done.pagesTotal).toBe(4);
    const sent = requestsOf(job.id).map((r) => `${r.method} ${r.url}`);
    expect(sent.slice(0, 3)).toEqual([`GET /jobs/${job.id}`, `PUT /jobs/${job.id}/source`, `POST /jobs/${job.id}`]);
    expect(sent).toContain(`GET /jobs/${job.id}/result`);
    const post = fake.requests.find((r) => r.method === "POST" && r.url === `/jobs/${job.id}`)!;
    expect(post.json).toMatchObject({
      source_sha256: done.sourceSha256,
      source_language: "ja",
      target_language: "en",
      ai: { base_url: chat.baseUrl, model: "fake-model-1" },
    });

    const file = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: done.fileId! } });
    expect(file).toMatchObject({ kind: "book", volume: "3", origin: "translation", language: "en", state: "active" });
    const xml = await withArchive(path.join(app.config.libraryRoot, file.path), undefined, async (a) => {
      expect(a.pages).toHaveLength(4);
      return a.comicInfoXml!;
    });
    expect(xml).toContain("<Translator>Machine translation (fake-model-1)</Translator>");
    expect(xml).toContain("machine translation");
    expect(xml).toContain(done.sourceSha256!);
    await assertValidXml(COMICINFO_XSD_21, [{ name: "ComicInfo.xml", xml }]);
    // Sources and checkpoints leave staging after the import.
    await expect(readFile(job.sourcePath)).rejects.toThrow();
    expect(await app.ctx.db.libraryFile.count({ where: { state: "recycled" } })).toBe(0);
    const units = (await (await app.api(`/api/manga/${seriesId}/units`)).json()) as {
      units: { kind: string; number: string; file_ids: number[] }[];
    };
    expect(units.units.find((u) => u.kind === "book" && u.number === "3")?.file_ids).toContain(file.id);

    // A crash between the publication and the "imported" write re-runs the import: it finds this
    // attempt's book already published and publishes nothing again.
    const again = await importTranslation(app.ctx, app.services.publication, done, {
      result: "/nonexistent",
      output: "/nonexistent",
      isCurrent: async () => true,
    });
    expect(again).toBe(file.id);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId, origin: "translation" } })).toBe(1);
  });

  it("retries a dropped upload, submit and poll with the same id", async () => {
    const seriesId = await translatedSeries(app, "Dropped");
    fake.faults.dropUpload = 2;
    fake.faults.dropSubmit = 1;
    const job = await queueJob(app, seriesId, "1");
    const done = await stateIs(app, job.row.id, "imported", "failed");
    expect(done.state).toBe("imported");
    const puts = requestsOf(job.id).filter((r) => r.method === "PUT");
    const posts = requestsOf(job.id).filter((r) => r.method === "POST");
    // The dropped submit leaves the row uploading: the next cycle sends the source again, same id.
    expect(puts.map((r) => r.status).slice(0, 3)).toEqual(["dropped", "dropped", 200]);
    expect(posts[0]?.status).toBe("dropped");
    expect(posts.at(-1)?.status).toBe(202);
    // Only this id was ever used for the job: no new attempt, no other id.
    expect(await app.ctx.db.translationJob.count({ where: { jobKey: job.key } })).toBe(1);
    expect(done.transientFailures).toBe(0);
  });

  it("keeps at most two jobs outstanding with four queued, and waits out a slow completion", async () => {
    const seriesId = await translatedSeries(app, "Many");
    fake.faults.pageMs = 60;
    const jobs = [];
    for (const v of ["1", "2", "3", "4"]) jobs.push(await queueJob(app, seriesId, v));
    let most = 0;
    await until(
      "all imported",
      async () => {
        const rows = await app.ctx.db.translationJob.findMany({ where: { seriesId } });
        most = Math.max(
          most,
          rows.filter((r) => ["uploading", "submitted", "running", "completed", "importing"].includes(r.state)).length,
        );
        return rows;
      },
      (rows) => rows.every((r) => r.state === "imported"),
      30_000,
    );
    fake.faults.pageMs = 5;
    expect(most).toBeLessThanOrEqual(2);
    expect(fake.maxOutstanding).toBeLessThanOrEqual(2);
    expect(most).toBe(2);
  });

  for (const variant of BAD_RECEIPTS) {
    it(`refuses a result with ${variant}: the job fails with the receipt's code, nothing enters the library`, async () => {
      const seriesId = await translatedSeries(app, `Bad ${variant}`);
      fake.faults.badReceipt = variant;
      try {
        const job = await queueJob(app, seriesId, "5");
        const done = await stateIs(app, job.row.id, "imported", "failed");
        expect(done.state).toBe("failed");
        const expected: Record<string, string> = {
          wrong_sha: "receipt_source_mismatch",
          wrong_languages: "receipt_language_mismatch",
          page_count: "receipt_page_count",
          translated_zero: "receipt_nothing_translated",
          untranslated: "receipt_untranslated_regions",
          unconfirmed: "receipt_unconfirmed_regions",
          detected_language: "receipt_language_not_confirmed",
          missing_model: "receipt_invalid",
          extra_entry: "result_extra_entry",
          geometry: "result_geometry_changed",
          missing_page_count: "receipt_invalid",
        };
        expect(done.errorCode).toBe(expected[variant]);
        expect(await app.ctx.db.libraryFile.count({ where: { seriesId } })).toBe(0);
        // The output stays in staging, outside the library, for inspection; the source too.
        await expect(readFile(job.sourcePath)).resolves.toBeInstanceOf(Buffer);
      } finally {
        fake.faults.badReceipt = null;
      }
    });
  }

  for (const shape of RECEIPT_SHAPES) {
    it(`imports a result whose receipt is valid as protocol v1 reads it: ${shape.replace(/_/g, " ")}`, async () => {
      const seriesId = await translatedSeries(app, `Receipt ${shape}`);
      fake.faults.receiptShape = shape;
      try {
        const job = await queueJob(app, seriesId, "6");
        const done = await stateIs(app, job.row.id, "imported", "failed");
        expect(done.errorCode, done.errorMessage ?? "").toBeNull();
        expect(done.state).toBe("imported");
        const file = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: done.fileId! } });
        const xml = await withArchive(
          path.join(app.config.libraryRoot, file.path),
          undefined,
          async (a) => a.comicInfoXml!,
        );
        // Extra fields are ignored: nothing of them reaches the book's provenance.
        expect(xml).not.toContain("processor_version");
        expect(xml).not.toContain("test font");
      } finally {
        fake.faults.receiptShape = null;
      }
    });
  }

  it("never puts the AI key or the token in a URL, another header, a log line or a row", async () => {
    expect(fake.aiKeysSeen.length).toBeGreaterThan(0);
    expect(fake.aiKeysSeen.every((k) => k === AI_KEY)).toBe(true);
    for (const r of fake.requests) {
      expect(r.url).not.toContain(AI_KEY);
      expect(r.url).not.toContain(TOKEN);
      const { authorization, ...others } = r.headers;
      expect(authorization).toBe(`Bearer ${TOKEN}`);
      expect(JSON.stringify(others)).not.toContain(AI_KEY);
      expect(JSON.stringify(others)).not.toContain(TOKEN);
      expect(JSON.stringify(r.json ?? {})).not.toContain(AI_KEY);
    }
    const text = logs.join("\n");
    expect(text).not.toContain(AI_KEY);
    expect(text).not.toContain(TOKEN);
    const rows = JSON.stringify(await app.ctx.db.translationJob.findMany(), (_k, v: unknown) =>
      typeof v === "bigint" ? String(v) : v,
    );
    expect(rows).not.toContain(AI_KEY);
    expect(rows).not.toContain(TOKEN);
    const settings = JSON.stringify(await app.ctx.db.setting.findMany());
    expect(settings).not.toContain(AI_KEY);
    expect(settings).not.toContain(TOKEN);
    void jobRow;
  });
});
