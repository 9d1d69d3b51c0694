/**
 * Translation jobs through REST and GraphQL on a real app: the upload rules (411, 422 unknown
 * number, packs, hostile archives, 201 with a stable id), the list payload, retry only from a
 * failed attempt, cancel, the destination change, and the fallback wired into the Wanted pass
 * against the fake Suwayomi server on 127.0.0.1 (at most ten jobs per pass; none while off).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transition } from "../src/domain/translation-jobs.ts";
import { SUWAYOMI_SOURCES_KEY } from "../src/providers/registry.ts";
import { putSetting, SOURCES_SETTING_KEY } from "../src/services/acquisition/source-settings.ts";
import { factsOf } from "../src/services/translation/translation-service.ts";
import { png } from "../../test/corpus/zip-bytes.ts";
import { cbz as randomCbz, expectJson, expectProblem, zipBuffer } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

interface RestJob {
  id: string;
  status: string;
  state: string;
  target: { kind: string; number: string };
  source_language: string;
  target_language: string;
  source_sha256: string | null;
  progress: { pages_done: number; pages_total: number | null } | null;
  error: { code: string; message: string } | null;
  cancel_pending: boolean;
  origin: string;
}

const JOB_FIELDS = `id status state seriesId target { kind number } sourceLanguage targetLanguage sourceSha256 progress { pagesDone pagesTotal } error { code message } attempt cancelPending origin`;

/** A CBZ of `pages` real (tiny) PNG pages: the hardened reader checks every page's image header. */
async function cbz(pages: number, options: { other?: string[] } = {}): Promise<Buffer> {
  if (options.other) return randomCbz(pages, options);
  const entries = [];
  for (let i = 1; i <= pages; i++) entries.push({ name: `${String(i).padStart(3, "0")}.png`, data: await png(i) });
  return zipBuffer(entries);
}

async function seriesWith(app: TestApp, title: string, volumes: string[], chapters: string[] = []): Promise<number> {
  const s = await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title } }), 201);
  await app.ctx.db.volumeSlot.createMany({ data: volumes.map((number) => ({ seriesId: s.id, number })) });
  await app.ctx.db.chapterSlot.createMany({ data: chapters.map((number) => ({ seriesId: s.id, number })) });
  return s.id;
}

const upload = (app: TestApp, seriesId: number, query: string, body: Buffer, headers: Record<string, string> = {}) =>
  app.api(`/api/manga/${seriesId}/translations/upload?${query}`, {
    method: "POST",
    body: new Uint8Array(body),
    headers: { "content-type": "application/zip", ...headers },
  });

/** A POST with a chunked body (no Content-Length), which fetch cannot send on purpose. */
function chunkedPost(app: TestApp, pathname: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(app.baseUrl + pathname);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: "POST",
        headers: { "x-api-key": TEST_API_KEY, "transfer-encoding": "chunked" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.write(body.subarray(0, 10));
    req.end(body.subarray(10));
  });
}

describe("upload rules", () => {
  let app: TestApp;
  let seriesId: number;
  beforeAll(async () => {
    app = await createTestApp();
    // These tests are about the jobs API and the planner: local jobs stay where the API put them.
    await app.services.translationWorker.stop();
    seriesId = await seriesWith(app, "Harbor", ["1", "2", "3"], ["1", "2"]);
  });
  afterAll(() => app.dispose());

  it("refuses a body without Content-Length with 411 length_required", async () => {
    const r = await chunkedPost(
      app,
      `/api/manga/${seriesId}/translations/upload?source_language=ja&volume=1`,
      await cbz(3),
    );
    expect(r.status).toBe(411);
    expect(JSON.parse(r.body)).toMatchObject({ code: "length_required" });
  });

  it("refuses a body in another content type than an archive with 415 unsupported_media_type", async () => {
    const body = await cbz(3);
    for (const type of ["text/plain", "application/json", "multipart/form-data; boundary=x", "image/png"])
      await expectProblem(
        await upload(app, seriesId, "source_language=ja&volume=1", body, { "content-type": type }),
        415,
        "unsupported_media_type",
      );
    // The archive types (and a plain byte stream) pass on to the archive checks.
    for (const type of [
      "application/zip",
      "Application/ZIP; charset=binary",
      "application/x-cbz",
      "application/vnd.comicbook+zip",
      "application/x-zip-compressed",
      "application/octet-stream",
    ])
      await expectProblem(
        await upload(app, seriesId, "source_language=ja&volume=1", Buffer.from("not a zip at all"), {
          "content-type": type,
        }),
        422,
        "archive_unreadable",
      );
    expect(await app.ctx.db.translationJob.count()).toBe(0);
  });

  it("a refused upload leaves its keep-alive connection usable: the next requests go over the same socket", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // Larger than a stream's buffer: a body the server started to read but never finished stalls its drain.
    const body = Buffer.concat([await cbz(3), Buffer.alloc(400_000, 7)]);
    const send = (method: string, pathname: string, headers: Record<string, string> = {}, data?: Buffer) =>
      new Promise<{ status: number; port: number | undefined }>((resolve, reject) => {
        const url = new URL(app.baseUrl + pathname);
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname + url.search,
            method,
            agent,
            headers: { "x-api-key": TEST_API_KEY, ...headers },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, port: req.socket?.localPort }));
          },
        );
        req.on("error", reject);
        req.end(data);
      });
    try {
      const refusals = [
        ["source_language=ja&volume=1", "text/plain"],
        ["source_language=ja&volume=9", "application/zip"],
        ["source_language=ja&volume=1&chapter=1", "application/zip"],
      ];
      const ports = new Set<number | undefined>();
      for (const [query, type] of refusals) {
        const refused = await send(
          "POST",
          `/api/manga/${seriesId}/translations/upload?${query}`,
          { "content-type": type!, "content-length": String(body.length) },
          body,
        );
        expect(refused.status).toBeGreaterThanOrEqual(400);
        ports.add(refused.port);
        ports.add((await send("GET", `/api/translations?manga_id=${seriesId}`)).port);
        // Longer than the server's drain of an unread body (half a second), after which it would close.
        await new Promise((r) => setTimeout(r, 800));
        const later = await send("GET", `/api/translations?manga_id=${seriesId}`);
        expect(later.status).toBe(200);
        ports.add(later.port);
      }
      expect(ports.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it("refuses a number the managed edition does not have (422) and a range (422 pack refused)", async () => {
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&volume=9", await cbz(3)),
      422,
      "translation_target_unknown",
    );
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&chapter=7", await cbz(3)),
      422,
      "translation_target_unknown",
    );
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&volume=1-3", await cbz(3)),
      422,
      "translation_pack_refused",
    );
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&volume=1", await cbz(3), {
        "content-disposition": 'attachment; filename="Harbor v01-03.cbz"',
      }),
      422,
      "translation_pack_refused",
    );
    await app.ctx.db.series.update({ where: { id: seriesId }, data: { editionBookCount: 2 } });
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&volume=3", await cbz(3)),
      422,
      "translation_target_unknown",
    );
    await app.ctx.db.series.update({ where: { id: seriesId }, data: { editionBookCount: null } });
    expect(await app.ctx.db.translationJob.count()).toBe(0);
  });

  it("refuses a hostile or empty archive with the reader's code and keeps nothing", async () => {
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&volume=2", Buffer.from("not a zip at all, just text")),
      422,
      "archive_unreadable",
    );
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&volume=2", await cbz(0, { other: ["readme.txt"] })),
      422,
      "translation_source_empty",
    );
    expect(await app.ctx.db.translationJob.count()).toBe(0);
  });

  it("answers 201 with the job: a stable <32 hex>-0 id, the source hash, the source kept in its own staging directory", async () => {
    const body = await cbz(4);
    const job = await expectJson<RestJob>(await upload(app, seriesId, "source_language=ja&volume=1", body), 201);
    expect(job.id).toMatch(/^[0-9a-f]{32}-0$/);
    expect(job).toMatchObject({
      status: "queued",
      state: "queued",
      target: { kind: "volume", number: "1" },
      source_language: "ja",
      target_language: "en",
      progress: null,
      error: null,
      origin: "upload",
    });
    expect(job.source_sha256).toBe(createHash("sha256").update(body).digest("hex"));
    const row = await app.ctx.db.translationJob.findFirstOrThrow({ where: { jobKey: job.id.slice(0, 32) } });
    expect(row.sourcePath).toContain(job.id);
    expect(existsSync(row.sourcePath!)).toBe(true);
    // A second upload for the same target while the first is under way is refused.
    await expectProblem(
      await upload(app, seriesId, "source_language=ja&volume=1", body),
      409,
      "translation_job_active",
    );
  });

  it("lists the documented payload, the same through REST and GraphQL", async () => {
    const rest = await expectJson<RestJob[]>(await app.api(`/api/translations?manga_id=${seriesId}`), 200);
    expect(rest).toHaveLength(1);
    const gql = await app.gql<{
      translationJobs: { id: string; status: string; target: { number: string }; sourceSha256: string }[];
    }>(`query($s: Int) { translationJobs(seriesId: $s) { ${JOB_FIELDS} } }`, { s: seriesId });
    expect(
      gql.data?.translationJobs.map((j) => [j.id, j.status.toLowerCase(), j.target.number, j.sourceSha256]),
    ).toEqual(rest.map((j) => [j.id, j.status, j.target.number, j.source_sha256]));
    await expectProblem(await app.api(`/api/translations?manga_id=99999`), 404, "series_not_found");
  });
});

describe("retry and cancel", () => {
  let app: TestApp;
  let seriesId: number;
  beforeAll(async () => {
    app = await createTestApp();
    // These tests are about the jobs API and the planner: local jobs stay where the API put them.
    await app.services.translationWorker.stop();
    seriesId = await seriesWith(app, "Lantern", ["1", "2", "3"]);
  });
  afterAll(() => app.dispose());

  const setState = (id: string, state: string, extra: Record<string, unknown> = {}) =>
    app.ctx.db.translationJob.updateMany({
      where: { jobKey: id.slice(0, 32), attempt: Number(id.split("-")[1]) },
      data: { state, ...extra },
    });

  it("retries only a failed attempt: a new id with the same key and retry number + 1, its own source copy", async () => {
    const job = await expectJson<RestJob>(
      await upload(app, seriesId, "source_language=ja&volume=1", await cbz(3)),
      201,
    );
    await expectProblem(
      await app.api(`/api/translations/${job.id}/retry`, { method: "POST" }),
      409,
      "translation_not_retryable",
    );
    const g = await app.gql(`mutation($id: String!) { retryTranslation(id: $id) { id } }`, { id: job.id });
    expect(g.errors?.[0]?.extensions?.code).toBe("translation_not_retryable");
    await setState(job.id, "failed", { errorCode: "processor_failed", errorMessage: "boom" });
    const listed = await expectJson<RestJob[]>(await app.api(`/api/translations?manga_id=${seriesId}`), 200);
    expect(listed[0]).toMatchObject({ status: "failed", error: { code: "processor_failed", message: "boom" } });
    const next = await expectJson<RestJob>(await app.api(`/api/translations/${job.id}/retry`, { method: "POST" }), 201);
    expect(next.id).toBe(`${job.id.slice(0, 32)}-1`);
    expect(next).toMatchObject({ state: "queued", source_sha256: job.source_sha256, error: null });
    const rows = await app.ctx.db.translationJob.findMany({
      where: { jobKey: job.id.slice(0, 32) },
      orderBy: { attempt: "asc" },
    });
    expect(rows.map((r) => r.attempt)).toEqual([0, 1]);
    expect(rows[0]!.sourcePath).not.toBe(rows[1]!.sourcePath);
    expect(existsSync(rows[1]!.sourcePath!)).toBe(true);
    // The old attempt cannot be retried twice.
    await expectProblem(
      await app.api(`/api/translations/${job.id}/retry`, { method: "POST" }),
      409,
      "translation_not_retryable",
    );
    await expectProblem(
      await app.api(`/api/translations/${job.id.slice(0, 32)}-7/retry`, { method: "POST" }),
      404,
      "translation_job_not_found",
    );
    await expectProblem(
      await app.api(`/api/translations/not-an-id/retry`, { method: "POST" }),
      400,
      "translation_job_id_invalid",
    );
  });

  it("cancels a submitted job: cancelling with a durable cancel pending; a cancelled id is never submitted again", async () => {
    const job = await expectJson<RestJob>(
      await upload(app, seriesId, "source_language=ja&volume=2", await cbz(3)),
      201,
    );
    await setState(job.id, "submitted");
    const c = await expectJson<RestJob>(await app.api(`/api/translations/${job.id}/cancel`, { method: "POST" }), 200);
    expect(c).toMatchObject({ id: job.id, status: "cancelling", state: "cancelling", cancel_pending: true });
    // Cancel again is idempotent through GraphQL too.
    const g = await app.gql<{ cancelTranslation: { state: string; cancelPending: boolean } }>(
      `mutation($id: String!) { cancelTranslation(id: $id) { state cancelPending } }`,
      { id: job.id },
    );
    expect(g.data?.cancelTranslation).toEqual({ state: "cancelling", cancelPending: true });
    await setState(job.id, "cancelled", { cancelPending: false });
    const row = await app.ctx.db.translationJob.findFirstOrThrow({
      where: { jobKey: job.id.slice(0, 32), attempt: 0 },
    });
    expect(transition(factsOf(row), { type: "submit_again" })).toEqual({ refused: "translation_cancelled" });
    await expectProblem(
      await app.api(`/api/translations/${job.id}/cancel`, { method: "POST" }),
      409,
      "translation_not_cancellable",
    );
    // A new source for the same book takes the next retry number, never the cancelled id.
    const again = await expectJson<RestJob>(
      await upload(app, seriesId, "source_language=ja&volume=2", await cbz(3)),
      201,
    );
    expect(again.id).toBe(`${job.id.slice(0, 32)}-1`);
  });

  it("a queued job that was never sent is cancelled at once", async () => {
    const job = await expectJson<RestJob>(
      await upload(app, seriesId, "source_language=fr&volume=3", await cbz(3)),
      201,
    );
    const c = await expectJson<RestJob>(await app.api(`/api/translations/${job.id}/cancel`, { method: "POST" }), 200);
    expect(c).toMatchObject({ status: "cancelled", cancel_pending: false });
  });

  it("changing the destination language cancels the old language's active jobs at the next pass", async () => {
    const s = await seriesWith(app, "Compass", ["1", "2"]);
    const a = await expectJson<RestJob>(await upload(app, s, "source_language=ja&volume=1", await cbz(3)), 201);
    const b = await expectJson<RestJob>(await upload(app, s, "source_language=ja&volume=2", await cbz(3)), 201);
    await setState(a.id, "running");
    await setState(b.id, "imported");
    await expectJson(await app.api(`/api/manga/${s}`, { method: "PATCH", json: { language: "de" } }), 200);
    await expectJson(await app.api(`/api/manga/${s}/translations/search`, { method: "POST" }), 200);
    const jobs = await expectJson<RestJob[]>(await app.api(`/api/translations?manga_id=${s}`), 200);
    expect(jobs.find((j) => j.id === a.id)).toMatchObject({ state: "cancelling", cancel_pending: true });
    expect(jobs.find((j) => j.id === b.id)).toMatchObject({ state: "imported", status: "completed" });
  });
});

describe("fallback in the Wanted pass", () => {
  const JA: FakeSource = { id: "8101", name: "JA Source", lang: "ja" };
  let fake: FakeSuwayomi;
  let app: TestApp;
  beforeAll(async () => {
    const chapters = [];
    for (let n = 1; n <= 12; n++) chapters.push(fakeChapter({ chapterNumber: n, pages: await drawnChapter(2, n) }));
    fake = await startFakeSuwayomi({
      works: [fakeWork({ id: 501, title: "Beacon", source: JA, chapters })],
      sources: [JA],
    });
    app = await createTestApp();
    // These tests are about the jobs API and the planner: local jobs stay where the API put them.
    await app.services.translationWorker.stop();
    await putSetting(app.ctx, SOURCES_SETTING_KEY, {
      suwayomi: { enabled: true, url: fake.url, auth: "none", username: null },
    });
    await putSetting(app.ctx, SUWAYOMI_SOURCES_KEY, { [JA.id]: { name: JA.name, lang: JA.lang } });
  });
  afterAll(async () => {
    await app.dispose();
    await fake.close();
  });

  async function foreignSeries(title: string): Promise<number> {
    const id = await seriesWith(
      app,
      title,
      [],
      Array.from({ length: 12 }, (_, i) => String(i + 1)),
    );
    const provider = await app.ctx.db.provider.upsert({
      where: { name: `suwayomi:${JA.id}` },
      create: { name: `suwayomi:${JA.id}`, kind: "suwayomi" },
      update: {},
    });
    const mapping = await app.ctx.db.sourceMapping.create({
      data: { seriesId: id, providerId: provider.id, sourceId: "501", language: "ja" },
    });
    for (const c of fake.works[0]!.chapters) {
      await app.ctx.db.offer.create({
        data: {
          seriesId: id,
          sourceMappingId: mapping.id,
          kind: "chapter",
          chapter: String(c.chapterNumber),
          language: "ja",
          externalId: String(c.id),
          pageCount: c.pages.length,
        },
      });
    }
    return id;
  }

  it("creates no job while a toggle is off, and at most ten per series per pass when both are on", async () => {
    const id = await foreignSeries("Beacon");
    await app.services.wanted.runPass(id, { force: true });
    expect(await app.ctx.db.translationJob.count({ where: { seriesId: id } })).toBe(0);
    // Global on, series off: still none.
    await putSetting(app.ctx, "translation", { enabled: true, source_languages: ["ja"] });
    await app.services.wanted.runPass(id, { force: true });
    expect(await app.ctx.db.translationJob.count({ where: { seriesId: id } })).toBe(0);
    // Both on: ten jobs from the foreign source, none of them an ordinary download.
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }),
      200,
    );
    const r = await expectJson<{ created: RestJob[]; skipped: { reason: string }[] }>(
      await app.api(`/api/manga/${id}/translations/search`, { method: "POST" }),
      200,
    );
    expect(r.created).toHaveLength(10);
    expect(r.skipped.filter((s) => s.reason === "limit")).toHaveLength(2);
    expect(
      r.created.every(
        (j) =>
          j.origin === "source" &&
          j.source_language === "ja" &&
          j.target_language === "en" &&
          /^[0-9a-f]{64}$/.test(j.source_sha256 ?? ""),
      ),
    ).toBe(true);
    expect(await app.ctx.db.download.count({ where: { seriesId: id } })).toBe(0);
    // The next pass queues the remaining two and leaves the ten alone.
    await app.services.wanted.runPass(id, { force: true });
    expect(await app.ctx.db.translationJob.count({ where: { seriesId: id } })).toBe(12);
  });

  it("switching the series toggle off pauses its active jobs", async () => {
    const id = (await app.ctx.db.series.findFirstOrThrow({ where: { title: "Beacon" } })).id;
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: false } }),
      200,
    );
    await app.services.wanted.runPass(id, { force: true });
    const states = new Set(
      (await app.ctx.db.translationJob.findMany({ where: { seriesId: id } })).map(
        (r) => `${r.state}/${r.pausedReason}`,
      ),
    );
    expect([...states]).toEqual(["paused/toggle_off"]);
  });
});
