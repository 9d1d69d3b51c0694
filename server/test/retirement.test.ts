/**
 * Reviewed retirement and source rejection over real HTTP and GraphQL (docs/rules.md, "The audit";
 * services/confirmation.ts): a preview signs what it saw, the confirm re-reads it; a changed
 * file, an active download or a changed source answers 409; a forged token 400; the bytes go to
 * the recycle bin. Duplicate retirement of one book: duplicates.test.ts.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import {
  addDownload,
  addMapping,
  addOffers,
  auditPage,
  fileIds,
  GQL_AUDIT_FILE,
  idOf,
  releaseThrough,
  restFromGql,
  rewriteAsScanWould,
  type RestPreview,
  type RestRetired,
} from "./audit-fixtures.ts";
import { cbz, chapterFileName, createSeriesWithFiles, expectJson, expectProblem, scanLibrary } from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seq = 0;

shareTestApp((a) => (app = a));

/** A running series with chapter files 1..n (8 pages), scanned; ids by file name. */
async function series(
  n = 4,
): Promise<{ id: number; title: string; ids: Map<string, number>; file: (k: number) => number }> {
  const title = `Retire ${++seq}`;
  const s = await createSeriesWithFiles(app, title, {
    books: [],
    chapters: Array.from({ length: n }, (_, i) => i + 1),
    chapterPages: 8,
  });
  await scanLibrary(app);
  const ids = await fileIds(app, s.id);
  return { id: s.id, title, ids, file: (k) => idOf(ids, chapterFileName(title, k)) };
}

const abs = (rel: string) => path.join(app.config.libraryRoot, ...rel.split("/"));
const post = (url: string, json: unknown) => app.api(url, { method: "POST", json });
const preview = async (id: number, fileIdsList: number[]) =>
  expectJson<RestPreview>(await post(`/api/manga/${id}/audit/retire/preview`, { file_ids: fileIdsList }), 200);
const confirm = (id: number, confirmation: unknown) => post(`/api/manga/${id}/audit/retire`, { confirmation });
const fileRow = (id: number) => app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id } });

describe("reviewed retirement", () => {
  it("preview lists the files and changes nothing; confirm moves the bytes into the recycle bin and the rows to recycled", async () => {
    const s = await series();
    const ids = [s.file(2), s.file(1)];
    const before = await Promise.all(ids.map(async (id) => readFile(abs((await fileRow(id)).path))));
    const p = await preview(s.id, ids);
    const listed = (await auditPage(app, s.id)).files;
    expect(p.files).toEqual(listed.filter((f) => ids.includes(f.id)));
    expect(p.confirmation).toMatch(/^c1\./);
    expect(new Date(p.expires_at).getTime()).toBeGreaterThan(Date.now());
    expect((await fileRow(s.file(1))).state).toBe("active");

    const r = await expectJson<RestRetired>(await confirm(s.id, p.confirmation), 200);
    expect(r.retired.map((x) => x.file_id)).toEqual([s.file(1), s.file(2)]);
    for (const x of r.retired) {
      const row = await fileRow(x.file_id);
      expect(row.state).toBe("recycled");
      expect(x.from).toBe(row.path);
      await expect(stat(abs(row.path))).rejects.toThrow(/ENOENT/);
      expect(await readFile(path.join(stateDirs(app.config).recycleBin, ...x.bin_path.split("/")))).toEqual(
        before[ids.indexOf(x.file_id)],
      );
      const entry = await app.ctx.db.recycleEntry.findUniqueOrThrow({ where: { id: x.recycle_entry_id } });
      expect(entry).toMatchObject({ fileId: x.file_id, seriesId: s.id, state: "recycled", sha256: row.sha256 });
    }
    expect((await auditPage(app, s.id)).files.map((f) => f.id)).toEqual([s.file(3), s.file(4)]);
    // The same token again: what it reviewed is gone.
    await expectProblem(await confirm(s.id, p.confirmation), 409, "snapshot_stale");
  });

  it("GraphQL previews and retires the same way", async () => {
    const s = await series(2);
    const rest = await preview(s.id, [s.file(1)]);
    const g = await app.gql<{
      previewRetirement: { files: Record<string, unknown>[]; confirmation: string; expiresAt: string };
    }>(
      `mutation($s: Int!, $f: [Int!]!) { previewRetirement(seriesId: $s, fileIds: $f) { files { ${GQL_AUDIT_FILE} } confirmation expiresAt } }`,
      { s: s.id, f: [s.file(1)] },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data!.previewRetirement.files.map(restFromGql)).toEqual(rest.files);
    const done = await app.gql<{
      retireFiles: { retired: { fileId: number; recycleEntryId: number; from: string; binPath: string }[] };
    }>(
      `mutation($s: Int!, $c: String!) { retireFiles(seriesId: $s, confirmation: $c) { retired { fileId recycleEntryId from binPath } } }`,
      { s: s.id, c: g.data!.previewRetirement.confirmation },
    );
    expect(done.errors).toBeUndefined();
    expect(done.data!.retireFiles.retired).toMatchObject([
      { fileId: s.file(1), from: `${s.title}/${chapterFileName(s.title, 1)}` },
    ]);
    // The REST token now reviews a recycled file.
    await expectProblem(await confirm(s.id, rest.confirmation), 409, "snapshot_stale");
  });

  it("a file changed after the preview (new bytes, recorded as a scan would) invalidates it: 409 snapshot_stale", async () => {
    const s = await series(2);
    const p = await preview(s.id, [s.file(1)]);
    await rewriteAsScanWould(app, s.file(1), await cbz(9));
    await expectProblem(await confirm(s.id, p.confirmation), 409, "snapshot_stale");
    expect((await fileRow(s.file(1))).state).toBe("active");
  });

  it("a file changed on disk but not yet scanned invalidates it too", async () => {
    const s = await series(2);
    const p = await preview(s.id, [s.file(2)]);
    await writeFile(abs((await fileRow(s.file(2))).path), await cbz(12));
    await expectProblem(await confirm(s.id, p.confirmation), 409, "snapshot_stale");
    expect((await fileRow(s.file(2))).state).toBe("active");
  });

  it("an active download of the series: 409 download_active for preview and confirm; once it ended the preview is stale", async () => {
    const s = await series(2);
    const p = await preview(s.id, [s.file(1)]);
    const d = await addDownload(app, s.id, { state: "fetching" });
    await expectProblem(await confirm(s.id, p.confirmation), 409, "download_active");
    await expectProblem(
      await post(`/api/manga/${s.id}/audit/retire/preview`, { file_ids: [s.file(2)] }),
      409,
      "download_active",
    );
    const g = await app.gql(
      `mutation { retireFiles(seriesId: ${s.id}, confirmation: "${p.confirmation}") { retired { fileId } } }`,
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("download_active");
    for (const state of ["queued", "judging", "publishing"]) {
      await app.ctx.db.download.update({ where: { id: d.id }, data: { state } });
      await expectProblem(await confirm(s.id, p.confirmation), 409, "download_active");
    }
    await app.ctx.db.download.update({ where: { id: d.id }, data: { state: "published" } });
    // It started after the preview: ended or not, a fresh preview is needed.
    await expectProblem(await confirm(s.id, p.confirmation), 409, "snapshot_stale");
    const fresh = await preview(s.id, [s.file(1)]);
    expect((await expectJson<RestRetired>(await confirm(s.id, fresh.confirmation), 200)).retired).toHaveLength(1);
  });

  it("an import into the series under way (a torrent's books, a translation's result): 409 download_active, then a fresh preview works", async () => {
    const s = await series(2);
    const p = await preview(s.id, [s.file(1)]);
    const torrent = await app.ctx.db.torrentJob.create({
      data: { seriesId: s.id, infoHash: "c".repeat(40), title: "t", books: "[]", state: "importing" },
    });
    const refused = await expectProblem(await confirm(s.id, p.confirmation), 409, "download_active");
    expect(refused).toMatchObject({ active_imports: 1 });
    await expectProblem(
      await post(`/api/manga/${s.id}/audit/retire/preview`, { file_ids: [s.file(2)] }),
      409,
      "download_active",
    );
    await app.ctx.db.torrentJob.update({ where: { id: torrent.id }, data: { state: "done" } });
    const translation = await app.ctx.db.translationJob.create({
      data: {
        jobKey: "d".repeat(32),
        seriesId: s.id,
        kind: "chapter",
        number: "9",
        sourceLanguage: "ja",
        targetLanguage: "en",
        engine: "external",
        origin: "upload",
        state: "importing",
      },
    });
    const g = await app.gql(
      `mutation { retireFiles(seriesId: ${s.id}, confirmation: "${p.confirmation}") { retired { fileId } } }`,
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("download_active");
    expect((await fileRow(s.file(1))).state).toBe("active");
    await app.ctx.db.translationJob.update({ where: { id: translation.id }, data: { state: "completed" } });
    const fresh = await preview(s.id, [s.file(1)]);
    expect((await expectJson<RestRetired>(await confirm(s.id, fresh.confirmation), 200)).retired).toHaveLength(1);
  });

  it("a forged, malformed or misdirected token: 400 confirmation_invalid, in REST and GraphQL", async () => {
    const s = await series(2);
    const other = await series(1);
    const p = await preview(s.id, [s.file(1)]);
    const [v, body, mac] = p.confirmation.split(".") as [string, string, string];
    const tampered = JSON.parse(Buffer.from(body, "base64url").toString()) as {
      snapshot: { files: { sha256: string }[] };
    };
    tampered.snapshot.files[0]!.sha256 = "0".repeat(64);
    const forged = `${v}.${Buffer.from(JSON.stringify(tampered)).toString("base64url")}.${mac}`;
    for (const token of [forged, `${v}.${body}.${"A".repeat(mac.length)}`, "not a token", "", 7, null]) {
      await expectProblem(await confirm(s.id, token), 400, "confirmation_invalid");
    }
    await expectProblem(await confirm(other.id, p.confirmation), 400, "confirmation_invalid");
    await expectProblem(
      await post(`/api/manga/${s.id}/audit/reject-source`, { confirmation: p.confirmation }),
      400,
      "confirmation_invalid",
    );
    const g = await app.gql(
      `mutation { retireFiles(seriesId: ${s.id}, confirmation: "${forged}") { retired { fileId } } }`,
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("confirmation_invalid");
    expect((await fileRow(s.file(1))).state).toBe("active");
  });

  it("preview refuses unknown, foreign, missing and malformed selections", async () => {
    const s = await series(2);
    const other = await series(1);
    const url = `/api/manga/${s.id}/audit/retire/preview`;
    await expectProblem(await post(url, { file_ids: [999999] }), 404, "file_not_found");
    await expectProblem(await post(url, { file_ids: [s.file(1), other.file(1)] }), 404, "file_not_found");
    for (const body of [
      {},
      { file_ids: [] },
      { file_ids: ["1"] },
      { file_ids: [0] },
      { file_ids: Array.from({ length: 1001 }, (_, i) => i + 1) },
    ]) {
      await expectProblem(await post(url, body), 400, "invalid_field");
    }
    await app.ctx.db.libraryFile.update({ where: { id: s.file(2) }, data: { state: "missing" } });
    await expectProblem(await post(url, { file_ids: [s.file(2)] }), 409, "nothing_to_retire");
    await expectProblem(
      await post(`/api/manga/999999/audit/retire/preview`, { file_ids: [1] }),
      404,
      "series_not_found",
    );
  });
});

describe("source rejection", () => {
  /** Chapters 1–2 from mapping a-1 (3 offers), chapter 3 from b-2 of the same provider (2 offers), chapter 4 scanned. */
  async function withSources() {
    const s = await series(4);
    const a = await addMapping(app, s.id, "suwayomi", `a-${s.id}`);
    const b = await addMapping(app, s.id, "suwayomi", `b-${s.id}`);
    await releaseThrough(app, s.id, a, [s.file(1), s.file(2)]);
    await releaseThrough(app, s.id, b, [s.file(3)]);
    await addOffers(app, s.id, a.mappingId, ["1", "2", "5"]);
    await addOffers(app, s.id, b.mappingId, ["3", "6"]);
    return { ...s, a, b };
  }
  const rejectPreview = (id: number, body: unknown) => post(`/api/manga/${id}/audit/reject-source/preview`, body);
  const reject = (id: number, confirmation: unknown) => post(`/api/manga/${id}/audit/reject-source`, { confirmation });

  it("retires the mapping's files, removes the mapping and its offers, records the rejection; the provider's other mapping stays", async () => {
    const s = await withSources();
    const p = await expectJson<RestPreview & { provider: string; source_id: string; offers: number }>(
      await rejectPreview(s.id, {
        provider: "suwayomi",
        source_id: `a-${s.id}`,
        reason: "another work with the same title",
      }),
      200,
    );
    expect(p).toMatchObject({ provider: "suwayomi", source_id: `a-${s.id}`, offers: 3 });
    expect(p.files.map((f) => f.id)).toEqual([s.file(1), s.file(2)]);
    expect(await app.ctx.db.sourceMapping.count({ where: { id: s.a.mappingId } })).toBe(1);

    const r = await expectJson<{
      provider: string;
      source_id: string;
      offers_removed: number;
      retired: { file_id: number }[];
    }>(await reject(s.id, p.confirmation), 200);
    expect(r).toMatchObject({ provider: "suwayomi", source_id: `a-${s.id}`, offers_removed: 3 });
    expect(r.retired.map((x) => x.file_id)).toEqual([s.file(1), s.file(2)]);
    expect((await fileRow(s.file(1))).state).toBe("recycled");
    expect((await fileRow(s.file(3))).state).toBe("active");
    expect(await app.ctx.db.sourceMapping.findUnique({ where: { id: s.a.mappingId } })).toBeNull();
    expect(await app.ctx.db.offer.count({ where: { sourceMappingId: s.a.mappingId } })).toBe(0);
    expect(await app.ctx.db.sourceMapping.findUnique({ where: { id: s.b.mappingId } })).toMatchObject({
      state: "active",
    });
    expect(await app.ctx.db.offer.count({ where: { sourceMappingId: s.b.mappingId } })).toBe(2);
    expect(await app.ctx.db.sourceRejection.findMany({ where: { seriesId: s.id } })).toMatchObject([
      { providerId: s.a.providerId, sourceId: `a-${s.id}`, reason: "another work with the same title" },
    ]);
    // Rejected is gone: a second preview finds no such mapping.
    await expectProblem(
      await rejectPreview(s.id, { provider: "suwayomi", source_id: `a-${s.id}` }),
      404,
      "mapping_not_found",
    );
  });

  it("GraphQL previews and rejects the same way", async () => {
    const s = await withSources();
    const rest = await expectJson<RestPreview>(
      await rejectPreview(s.id, { provider: "suwayomi", source_id: `b-${s.id}` }),
      200,
    );
    const g = await app.gql<{
      previewSourceRejection: {
        provider: string;
        sourceId: string;
        offers: number;
        files: Record<string, unknown>[];
        confirmation: string;
      };
    }>(
      `mutation($s: Int!, $id: String!) { previewSourceRejection(seriesId: $s, provider: "suwayomi", sourceId: $id) { provider sourceId offers files { ${GQL_AUDIT_FILE} } confirmation } }`,
      { s: s.id, id: `b-${s.id}` },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data!.previewSourceRejection).toMatchObject({ provider: "suwayomi", sourceId: `b-${s.id}`, offers: 2 });
    expect(g.data!.previewSourceRejection.files.map(restFromGql)).toEqual(rest.files);
    const done = await app.gql<{ rejectSource: { offersRemoved: number; retired: { fileId: number }[] } }>(
      `mutation($s: Int!, $c: String!) { rejectSource(seriesId: $s, confirmation: $c) { provider sourceId offersRemoved retired { fileId } } }`,
      { s: s.id, c: g.data!.previewSourceRejection.confirmation },
    );
    expect(done.errors).toBeUndefined();
    expect(done.data!.rejectSource).toMatchObject({ offersRemoved: 2, retired: [{ fileId: s.file(3) }] });
    await expectProblem(await reject(s.id, rest.confirmation), 409, "snapshot_stale");
    expect(await app.ctx.db.sourceMapping.findUnique({ where: { id: s.a.mappingId } })).not.toBeNull();
  });

  it("a changed source (new offer, new release, changed mapping) or a changed file invalidates the preview", async () => {
    const s = await withSources();
    const changes: (() => Promise<unknown>)[] = [
      () => addOffers(app, s.id, s.a.mappingId, ["7"]),
      () => app.ctx.db.sourceMapping.update({ where: { id: s.a.mappingId }, data: { priority: 5 } }),
      () => releaseThrough(app, s.id, s.a, [s.file(4)]),
      () => rewriteAsScanWould(app, s.file(2), Buffer.from("not the reviewed bytes")),
    ];
    for (const change of changes) {
      const p = await expectJson<RestPreview>(
        await rejectPreview(s.id, { provider: "suwayomi", source_id: `a-${s.id}` }),
        200,
      );
      await change();
      await expectProblem(await reject(s.id, p.confirmation), 409, "snapshot_stale");
      expect(await app.ctx.db.sourceMapping.findUnique({ where: { id: s.a.mappingId } })).not.toBeNull();
    }
    const p = await expectJson<RestPreview>(
      await rejectPreview(s.id, { provider: "suwayomi", source_id: `a-${s.id}` }),
      200,
    );
    await addDownload(app, s.id, { state: "queued" });
    await expectProblem(await reject(s.id, p.confirmation), 409, "download_active");
    expect((await fileRow(s.file(1))).state).toBe("active");
  });

  it("an unknown or foreign mapping is 404 mapping_not_found; provider and source_id are required", async () => {
    const s = await withSources();
    const other = await withSources();
    await expectProblem(
      await rejectPreview(s.id, { provider: "suwayomi", source_id: "nope" }),
      404,
      "mapping_not_found",
    );
    await expectProblem(
      await rejectPreview(s.id, { provider: "other", source_id: `a-${s.id}` }),
      404,
      "mapping_not_found",
    );
    await expectProblem(
      await rejectPreview(s.id, { provider: "suwayomi", source_id: `a-${other.id}` }),
      404,
      "mapping_not_found",
    );
    await expectProblem(await rejectPreview(s.id, { source_id: `a-${s.id}` }), 400, "invalid_field");
    await expectProblem(await rejectPreview(s.id, { provider: "suwayomi" }), 400, "invalid_field");
  });
});
