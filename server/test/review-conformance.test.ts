/**
 * The file audit and its reviewed operations probed the way a checker outside the project would
 * (docs/rules.md, "The audit", "Series page grouping"; docs/api.md, "File audit"): an empty service,
 * the drop folder as the source the operator fills, series made, linked and fetched through REST,
 * and only the public REST and GraphQL API afterwards. The cases: every downloaded file listed with
 * its facts and no archive opened; thumbnails made lazily and renewed with the file; retirement and
 * source rejection each bound to a fresh preview that a changed file, a download started since or
 * a changed source invalidates, changing nothing; a foreign or tampered token refused; retired bytes
 * restorable from the recycle bin; a rejected mapping gone for good while the provider's other
 * mapping stays.
 * Duplicates of one book: review-conformance-duplicates.test.ts; active downloads from a held
 * source: review-conformance-downloads.test.ts.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, expectProblem, scanLibrary } from "./fixtures.ts";
import { chapterName, drawnCbz, reviewClient, type Mapping, type Preview, type Retired } from "./review-harness.ts";
import { createTestApp, shareTestApp, type TestApp } from "./utils.ts";
import { FAST_ENV } from "./downloads-fixtures.ts";

let app: TestApp;
let seq = 0;
shareTestApp((a) => (app = a), { env: FAST_ENV });
const c = () => reviewClient(app);

const chapter = chapterName;
const fedSeries = (numbers: number[], fields: Record<string, unknown> = {}) =>
  c().fedSeries(`Reef ${++seq}`, numbers, fields, seq * 100);

const retirePreview = async (id: number, fileIds: number[]) =>
  expectJson<Preview>(await c().post(`/api/manga/${id}/audit/retire/preview`, { file_ids: fileIds }), 200);
const retire = (id: number, confirmation: unknown) => c().post(`/api/manga/${id}/audit/retire`, { confirmation });
const rejectPreview = (id: number, body: unknown) => c().post(`/api/manga/${id}/audit/reject-source/preview`, body);
const reject = (id: number, confirmation: unknown) =>
  c().post(`/api/manga/${id}/audit/reject-source`, { confirmation });

describe("the audit list", () => {
  it("lists every downloaded file across sources and languages with pages, numbering, source and flags; it opens no archive", async () => {
    const s = await fedSeries([1, 2, 3]);
    // A second work of the same provider brings a short chapter 4.
    const alt = `${s.title} Alt`;
    await c().drop(alt, chapter(alt, 4), 3, 7002);
    await c().link(s.id, alt, -1);
    // Files the operator put in the folder: chapter 2 again, and chapter 9 in French.
    const dir = path.join(app.config.libraryRoot, s.folder);
    await writeFile(path.join(dir, `${s.title} - c002 (scan).cbz`), await cbz(8));
    await writeFile(
      path.join(dir, `${s.title} - c009.cbz`),
      await cbz(8, { comicInfo: { Series: s.title, Number: "9", LanguageISO: "fr" } }),
    );
    expect((await scanLibrary(app)).errors).toEqual([]);

    const list = await c().audit(s.id);
    expect(list).toMatchObject({ page: 1, page_size: 24, total: 6 });
    const row = (f: (typeof list.files)[number]) =>
      `${f.kind} ${f.number} ${f.page_count}p ${f.language} ${f.origin} ${f.source ? `${f.source.provider}/${f.source.source_id}` : "local"} [${f.flags.join(",")}]`;
    expect(list.files.map(row)).toEqual([
      `chapter 1 8p en download drop-folder/${s.title} []`,
      `chapter 2 8p en download drop-folder/${s.title} [several_sources]`,
      `chapter 2 8p en scan local [several_sources]`,
      `chapter 3 8p en download drop-folder/${s.title} []`,
      // Three pages where the others have eight: few, and unusual for the series.
      `chapter 4 3p en download drop-folder/${alt} [few_pages,unusual_size]`,
      `chapter 9 8p fr scan local []`,
    ]);
    for (const f of list.files) {
      expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(f.thumbnails).toEqual({
        first: `/api/files/${f.id}/thumbnail?page=first`,
        last: `/api/files/${f.id}/thumbnail?page=last`,
      });
    }

    // The list reads the records only: bytes on disk that are no archive at all change nothing in it.
    const ch1 = await s.file(1);
    await writeFile(c().abs(ch1.path), "not an archive");
    const again = await c().audit(s.id);
    expect(again.files.find((f) => f.id === ch1.id)).toEqual(ch1);
    const g = await app.gql<{ audit: { total: number; files: { id: number; pageCount: number }[] } }>(
      `{ audit(seriesId: ${s.id}) { total files { id pageCount } } }`,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data!.audit.files.find((f) => f.id === ch1.id)?.pageCount).toBe(8);
    // The thumbnail route is the one that opens it, and says why it cannot.
    const t = await app.api(ch1.thumbnails!.first);
    expect(t.status).toBeGreaterThanOrEqual(400);
    expect(t.headers.get("content-type")).toMatch(/problem\+json/);
  });

  it("pages hold 24 files; a page past the end is empty and the total still counts them", async () => {
    const s = await c().createSeries(`Shelf ${++seq}`);
    for (let n = 1; n <= 26; n++)
      await writeFile(path.join(app.config.libraryRoot, s.folder, chapter(`Shelf ${seq}`, n)), await cbz(8));
    await scanLibrary(app);
    const pages = await Promise.all([1, 2, 3].map((p) => c().audit(s.id, `?page=${p}`)));
    expect(pages.map((p) => [p.page, p.page_size, p.total, p.files.length])).toEqual([
      [1, 24, 26, 24],
      [2, 24, 26, 2],
      [3, 24, 26, 0],
    ]);
    expect(new Set(pages.flatMap((p) => p.files.map((f) => f.id))).size).toBe(26);
  });
});

describe("thumbnails", () => {
  it("first and last page, made on request, cached by the file's fingerprint; a changed file gets new ones", async () => {
    const s = await fedSeries([1]);
    const f = await s.file(1);
    const first = await app.api(f.thumbnails!.first);
    const last = await app.api(f.thumbnails!.last);
    expect([first.status, last.status]).toEqual([200, 200]);
    expect(first.headers.get("content-type")).toBe("image/webp");
    const [a, b] = [Buffer.from(await first.arrayBuffer()), Buffer.from(await last.arrayBuffer())];
    expect(a.equals(b)).toBe(false);
    const etag = first.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect(last.headers.get("etag")).not.toBe(etag);
    const cached = await app.api(f.thumbnails!.first, { headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect(Buffer.from(await (await app.api(f.thumbnails!.first)).arrayBuffer()).equals(a)).toBe(true);

    // New pages in the same file: shown at once, never the cached pictures of the old bytes, and
    // not cached until a scan records them; then a new fingerprint, new thumbnails.
    await writeFile(c().abs(f.path), await drawnCbz(8, 4242));
    for (const headers of [{}, { "if-none-match": etag }] as Record<string, string>[]) {
      const unscanned = await app.api(f.thumbnails!.first, { headers });
      expect(unscanned.status).toBe(200);
      expect(unscanned.headers.get("etag")).toBeNull();
      expect(Buffer.from(await unscanned.arrayBuffer()).equals(a)).toBe(false);
    }
    await scanLibrary(app);
    const renewed = await app.api(f.thumbnails!.first, { headers: { "if-none-match": etag } });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get("etag")).not.toBe(etag);
    expect(Buffer.from(await renewed.arrayBuffer()).equals(a)).toBe(false);
  });
});

describe("reviewed retirement of selected files", () => {
  it("a file changed on disk after the preview invalidates it and nothing moves; a fresh preview retires into the bin, and the bin restores", async () => {
    const s = await fedSeries([1, 2, 3]);
    const [f1, f2] = [await s.file(1), await s.file(2)];
    const p = await retirePreview(s.id, [f2.id, f1.id]);
    const byId = [f1, f2].sort((x, y) => x.id - y.id);
    expect(p.files.map((f) => [f.id, f.path])).toEqual(byId.map((f) => [f.id, f.path]));
    const original = await readFile(c().abs(f1.path));
    await writeFile(c().abs(f1.path), Buffer.concat([original, Buffer.from("tail")]));
    await expectProblem(await retire(s.id, p.confirmation), 409, "snapshot_stale");
    expect((await c().audit(s.id)).total).toBe(3);
    await readFile(c().abs(f2.path));
    expect((await c().bin()).filter((e) => e.series_id === s.id)).toEqual([]);

    await writeFile(c().abs(f1.path), original);
    await scanLibrary(app);
    const fresh = await retirePreview(s.id, [f1.id, f2.id]);
    // Two confirms of one preview at once: one moves the files, the other finds them gone.
    const both = await Promise.all([retire(s.id, fresh.confirmation), retire(s.id, fresh.confirmation)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const done = (await both.find((r) => r.status === 200)!.json()) as Retired;
    expect(done.retired.map((r) => [r.file_id, r.from])).toEqual(byId.map((f) => [f.id, f.path]));
    await expect(readFile(c().abs(f1.path))).rejects.toThrow(/ENOENT/);
    expect((await c().audit(s.id)).files.map((f) => f.id)).toEqual([(await s.file(3)).id]);
    const bin = (await c().bin()).filter((e) => e.series_id === s.id);
    expect(bin.map((e) => [e.file_id, e.original_path, e.sha256]).sort()).toEqual(
      [
        [f1.id, f1.path, f1.sha256],
        [f2.id, f2.path, f2.sha256],
      ].sort(),
    );
    // Nothing was deleted: the entry restores the same bytes to the same place.
    const entry = bin.find((e) => e.file_id === f1.id)!;
    await expectJson(await c().post(`/api/recycle-bin/${entry.id}/restore`), 200);
    expect((await readFile(c().abs(f1.path))).equals(original)).toBe(true);
    expect((await c().audit(s.id)).files.map((f) => f.id).sort()).toEqual([f1.id, (await s.file(3)).id].sort());
    // The token was used: a second confirm finds the state changed.
    await expectProblem(await retire(s.id, fresh.confirmation), 409, "snapshot_stale");
  });

  it("a download started and ended since the preview invalidates it: a fresh preview is needed", async () => {
    const s = await fedSeries([1, 2]);
    const f1 = await s.file(1);
    const p = await retirePreview(s.id, [f1.id]);
    // Another work brings chapter 3; it is fetched and published between the preview and the confirm.
    const other = `${s.title} Other`;
    await c().drop(other, chapter(other, 3), 8, 9003);
    await c().link(s.id, other);
    expect((await c().downloads(s.id)).map((d) => `${d.chapter} ${d.state}`).sort()).toEqual([
      "1 published",
      "2 published",
      "3 published",
    ]);
    await expectProblem(await retire(s.id, p.confirmation), 409, "snapshot_stale");
    expect((await s.file(1)).state).toBe("active");
    const fresh = await retirePreview(s.id, [f1.id]);
    expect((await expectJson<Retired>(await retire(s.id, fresh.confirmation), 200)).retired).toHaveLength(1);
  });

  it("a changed source mapping of a reviewed file invalidates it (priority, or a release the source now lists differently)", async () => {
    const s = await fedSeries([1, 2]);
    const f1 = await s.file(1);
    const [m] = await c().mappings(s.id);
    const p = await retirePreview(s.id, [f1.id]);
    await expectJson<Mapping>(
      await app.api(`/api/manga/${s.id}/sources/${m!.id}`, { method: "PATCH", json: { priority: 7 } }),
      200,
    );
    await expectProblem(await retire(s.id, p.confirmation), 409, "snapshot_stale");

    // The source now lists chapter 2 with other pages (same release, refreshed in place).
    const p2 = await retirePreview(s.id, [f1.id]);
    await c().drop(s.title, chapter(s.title, 2), 12, 555);
    await expectJson(await c().post(`/api/manga/${s.id}/sources/refresh`), 200);
    await expectProblem(await retire(s.id, p2.confirmation), 409, "snapshot_stale");
    expect((await s.file(1)).state).toBe("active");
  });

  it("a tampered token, a token of another service and a token of another operation are refused and change nothing", async () => {
    const s = await fedSeries([1]);
    const f1 = await s.file(1);
    const p = await retirePreview(s.id, [f1.id]);
    const [v, body, mac] = p.confirmation.split(".") as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, "base64url").toString()) as { expiresAt: number };
    payload.expiresAt += 3_600_000;
    const tampered = `${v}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${mac}`;
    for (const token of [tampered, `${p.confirmation}x`, p.confirmation.slice(0, -2), "c1..", 1, null])
      await expectProblem(await retire(s.id, token), 400, "confirmation_invalid");

    // The same preview by another installation of the service: its key signed it, not ours.
    const foreign = await createTestApp({ env: FAST_ENV });
    try {
      const fc = reviewClient(foreign);
      let other = await fc.createSeries(s.title);
      while (other.id < s.id) other = await fc.createSeries(`${s.title} ${other.id}`);
      expect(other.id).toBe(s.id);
      await writeFile(path.join(foreign.config.libraryRoot, other.folder, chapter(s.title, 1)), await cbz(8));
      await scanLibrary(foreign);
      const theirs = (await fc.audit(other.id)).files[0]!;
      const tp = await expectJson<Preview>(
        await fc.post(`/api/manga/${other.id}/audit/retire/preview`, { file_ids: [theirs.id] }),
        200,
      );
      await expectProblem(await retire(s.id, tp.confirmation), 400, "confirmation_invalid");
    } finally {
      await foreign.dispose();
    }
    // A retirement token is no source rejection's, nor a duplicate retirement's.
    await expectProblem(await reject(s.id, p.confirmation), 400, "confirmation_invalid");
    await expectProblem(
      await c().post(`/api/manga/${s.id}/volumes/1/duplicates/retire`, { confirmation: p.confirmation }),
      400,
      "confirmation_invalid",
    );
    const g = await app.gql(
      `mutation($s: Int!, $c: String!) { retireFiles(seriesId: $s, confirmation: $c) { retired { fileId } } }`,
      { s: s.id, c: tampered },
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("confirmation_invalid");
    expect((await s.file(1)).state).toBe("active");
    expect((await expectJson<Retired>(await retire(s.id, p.confirmation), 200)).retired).toHaveLength(1);
  });
});

describe("source rejection", () => {
  /** Chapters 1–2 from work A, chapters 3–4 from work B, both of the drop-folder provider. */
  async function twoWorks() {
    const s = await fedSeries([1, 2]);
    const b = `${s.title} B`;
    await c().drop(b, chapter(b, 3), 8, 8003);
    await c().drop(b, chapter(b, 4), 8, 8004);
    await c().link(s.id, b);
    return { ...s, a: s.title, b };
  }

  it("removes that mapping and its offers, retires its files, records the rejection; the provider's other mapping stays and nothing brings it back", async () => {
    const s = await twoWorks();
    const fromA = [(await s.file(1)).id, (await s.file(2)).id].sort((x, y) => x - y);
    const p = await expectJson<Preview & { provider: string; source_id: string; offers: number }>(
      await rejectPreview(s.id, { provider: "drop-folder", source_id: s.a, reason: "another edition" }),
      200,
    );
    expect(p).toMatchObject({ provider: "drop-folder", source_id: s.a, offers: 2 });
    expect(p.files.map((f) => f.id)).toEqual(fromA);
    // The preview changed nothing.
    expect((await c().mappings(s.id)).map((m) => m.source_id).sort()).toEqual([s.a, s.b].sort());

    const done = await expectJson<{ offers_removed: number; retired: { file_id: number }[] }>(
      await reject(s.id, p.confirmation),
      200,
    );
    expect(done.offers_removed).toBe(2);
    expect(done.retired.map((r) => r.file_id)).toEqual(fromA);
    expect((await c().mappings(s.id)).map((m) => [m.source_id, m.offers])).toEqual([[s.b, 2]]);
    expect(
      (await c().bin())
        .filter((e) => e.series_id === s.id)
        .map((e) => e.file_id)
        .sort(),
    ).toEqual(fromA.sort());

    // Search marks it rejected; linking it again is refused (REST and GraphQL); a refresh and the
    // Wanted pass fetch nothing from it.
    const search = await expectJson<{ works: { source_id: string; rejected: boolean; linked: boolean }[] }>(
      await c().post(`/api/manga/${s.id}/sources/search`, { provider: "drop-folder", query: s.a }),
      200,
    );
    expect(search.works.find((w) => w.source_id === s.a)).toMatchObject({ rejected: true, linked: false });
    expect(search.works.find((w) => w.source_id === s.b)).toMatchObject({ rejected: false, linked: true });
    await expectProblem(
      await c().post(`/api/manga/${s.id}/sources`, { provider: "drop-folder", source_id: s.a, language: "en" }),
      409,
      "source_rejected",
    );
    const g = await app.gql(
      `mutation($s: Int!, $w: String!) { linkSource(seriesId: $s, provider: "drop-folder", sourceId: $w, language: "en") { mapping { id } } }`,
      { s: s.id, w: s.a },
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("source_rejected");
    await c().drop(s.a, chapter(s.a, 5), 8, 8005);
    await c().refresh(s.id);
    expect((await c().mappings(s.id)).map((m) => m.source_id)).toEqual([s.b]);
    expect((await c().downloads(s.id)).filter((d) => d.chapter === "5")).toEqual([]);
    await expectProblem(
      await rejectPreview(s.id, { provider: "drop-folder", source_id: s.a }),
      404,
      "mapping_not_found",
    );
  });

  it("a mapping changed or refreshed with new releases, a file changed or a download since the preview invalidates it", async () => {
    const s = await twoWorks();
    const preview = async () =>
      expectJson<Preview>(await rejectPreview(s.id, { provider: "drop-folder", source_id: s.a }), 200);
    const mappingA = (await c().mappings(s.id)).find((m) => m.source_id === s.a)!;
    const changes: [string, () => Promise<unknown>][] = [
      [
        "priority",
        () => app.api(`/api/manga/${s.id}/sources/${mappingA.id}`, { method: "PATCH", json: { priority: 3 } }),
      ],
      [
        "a release the source lists anew",
        () =>
          c()
            .drop(s.a, chapter(s.a, 2), 10, 9102)
            .then(() => c().refresh(s.id)),
      ],
      [
        "a file changed on disk",
        async () => {
          const f = await s.file(1);
          await writeFile(c().abs(f.path), Buffer.concat([await readFile(c().abs(f.path)), Buffer.from("x")]));
        },
      ],
      [
        "a download of the series",
        async () => {
          await c().drop(s.b, chapter(s.b, 6), 8, 9106);
          await c().refresh(s.id);
        },
      ],
    ];
    for (const [what, change] of changes) {
      const p = await preview();
      await change();
      const res = await reject(s.id, p.confirmation);
      expect(res.status, what).toBe(409);
      expect(((await res.json()) as { code: string }).code, what).toBe("snapshot_stale");
      expect((await c().mappings(s.id)).map((m) => m.source_id).sort(), what).toEqual([s.a, s.b].sort());
      await scanLibrary(app);
    }
  });
});
