/**
 * Duplicate retirement for one book over real HTTP and GraphQL (docs/rules.md, "Series page grouping",
 * "Suspect and verified books"): the preview lists the chapter files the exact map shows inside an owned book,
 * the confirm re-checks that set and moves it to the recycle bin. Never under a partial map or
 * none, never for a suspect book.
 */
import { describe, expect, it } from "vitest";
import {
  addDownload,
  fileIds,
  GQL_AUDIT_FILE,
  idOf,
  restFromGql,
  type RestPreview,
  type RestRetired,
} from "./audit-fixtures.ts";
import {
  bookFileIds,
  bookFileName,
  markDownloaded,
  chapterFileName,
  createSeriesWithFiles,
  expectJson,
  expectProblem,
  scanLibrary,
  unitOf,
  type RestUnits,
} from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seq = 0;

shareTestApp((a) => (app = a));

/**
 * A running series with book 1 and chapter files, scanned, and the operator map given. Book 1 is
 * made a downloaded book (prepared state): the scan alone makes it a hand import, which never
 * retires a chapter file (see the suspect tests below).
 */
async function series(
  chapters: number[],
  entries: { volume: string; chapters: string[] }[] | null,
  options: { scannedOnly?: boolean } = {},
) {
  const title = `Dup ${++seq}`;
  const s = await createSeriesWithFiles(app, title, { books: [1], chapters });
  await scanLibrary(app);
  if (!options.scannedOnly) await markDownloaded(app, await bookFileIds(app, s.id));
  if (entries) {
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
      200,
    );
  }
  const ids = await fileIds(app, s.id);
  return {
    id: s.id,
    title,
    chapter: (n: number) => idOf(ids, chapterFileName(title, n)),
    book: idOf(ids, bookFileName(title, 1)),
  };
}

const book1 = [{ volume: "1", chapters: ["1", "2", "3", "4"] }];
const post = (url: string, json?: unknown) => app.api(url, { method: "POST", json: json ?? {} });
const previewUrl = (id: number, volume = "1") => `/api/manga/${id}/volumes/${volume}/duplicates/preview`;
const retireUrl = (id: number, volume = "1") => `/api/manga/${id}/volumes/${volume}/duplicates/retire`;
const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);

describe("duplicate retirement", () => {
  it("exact map: the preview lists the chapter files inside the owned book; the confirm moves exactly those", async () => {
    const s = await series([1, 2, 3, 4, 5, 6], book1);
    const dupes = [1, 2, 3, 4].map(s.chapter);
    expect(unitOf(await units(s.id), "book", "1").duplicate_file_ids).toEqual(dupes);
    const p = await expectJson<RestPreview & { volume: string }>(await post(previewUrl(s.id)), 200);
    expect(p.volume).toBe("1");
    expect(p.files.map((f) => [f.id, f.path])).toEqual(
      [1, 2, 3, 4].map((n) => [s.chapter(n), `${s.title}/${chapterFileName(s.title, n)}`]),
    );
    expect(p.files.every((f) => f.flags.includes("duplicate"))).toBe(true);

    const r = await expectJson<RestRetired>(await post(retireUrl(s.id), { confirmation: p.confirmation }), 200);
    expect(r.retired.map((x) => x.file_id)).toEqual(dupes);
    const rows = await app.ctx.db.libraryFile.findMany({ where: { seriesId: s.id }, orderBy: { id: "asc" } });
    expect(rows.filter((f) => f.state === "recycled").map((f) => f.id)).toEqual(dupes);
    expect(rows.find((f) => f.id === s.book)?.state).toBe("active");
    const after = await units(s.id);
    expect(unitOf(after, "book", "1")).toMatchObject({ owned: true, duplicate_file_ids: [] });
    expect(unitOf(after, "chapter", "5").file_ids).toEqual([s.chapter(5)]);
    // Nothing is left inside the book.
    await expectProblem(await post(previewUrl(s.id)), 409, "nothing_to_retire");
    await expectProblem(await post(retireUrl(s.id), { confirmation: p.confirmation }), 409, "snapshot_stale");
  });

  it("GraphQL previews and retires the same set", async () => {
    const s = await series([1, 2, 3, 4], book1);
    const rest = await expectJson<RestPreview>(await post(previewUrl(s.id)), 200);
    const g = await app.gql<{
      previewDuplicateRetirement: { volume: string; files: Record<string, unknown>[]; confirmation: string };
    }>(
      `mutation($s: Int!) { previewDuplicateRetirement(seriesId: $s, volume: "1") { volume files { ${GQL_AUDIT_FILE} } confirmation expiresAt } }`,
      { s: s.id },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data!.previewDuplicateRetirement.files.map(restFromGql)).toEqual(rest.files);
    const done = await app.gql<{ retireDuplicates: { retired: { fileId: number }[] } }>(
      `mutation($s: Int!, $c: String!) { retireDuplicates(seriesId: $s, volume: "1", confirmation: $c) { retired { fileId } } }`,
      { s: s.id, c: g.data!.previewDuplicateRetirement.confirmation },
    );
    expect(done.errors).toBeUndefined();
    expect(done.data!.retireDuplicates.retired.map((x) => x.fileId)).toEqual([1, 2, 3, 4].map(s.chapter));
  });

  it("a partial map or no map finds no duplicates: 409 nothing_to_retire, in REST and GraphQL", async () => {
    // Chapter 5 lies between book 1 (1–4) and book 2 (7–8): owned outside every book, so partial.
    const partial = await series([1, 2, 3, 4, 5], [...book1, { volume: "2", chapters: ["7", "8"] }]);
    expect((await units(partial.id)).map).toBe("partial");
    const p = await expectProblem(await post(previewUrl(partial.id)), 409, "nothing_to_retire");
    expect(p.map).toBe("partial");
    const none = await series([1, 2, 3, 4], null);
    expect((await expectProblem(await post(previewUrl(none.id)), 409, "nothing_to_retire")).map).toBe("none");
    const g = await app.gql(
      `mutation { previewDuplicateRetirement(seriesId: ${none.id}, volume: "1") { confirmation } }`,
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("nothing_to_retire");
    // Nothing was moved.
    expect(
      await app.ctx.db.libraryFile.count({
        where: { seriesId: { in: [partial.id, none.id] }, state: { not: "active" } },
      }),
    ).toBe(0);
  });

  it("a suspect book (hand import, machine translation, oversized pack) is refused with 409 book_suspect", async () => {
    for (const [data, reason] of [
      [{ origin: "import" }, "hand import"],
      [{ origin: "translation" }, "machine translation"],
      [{ pageCount: 700 }, "oversized pack"],
    ] as const) {
      const s = await series([1, 2, 3, 4], book1);
      await app.ctx.db.libraryFile.update({ where: { id: s.book }, data });
      const p = await expectProblem(await post(previewUrl(s.id)), 409, "book_suspect");
      expect(p.suspect_reason).toBe(reason);
      const g = await app.gql(
        `mutation { previewDuplicateRetirement(seriesId: ${s.id}, volume: "1") { confirmation } }`,
      );
      expect(g.errors?.[0]?.extensions?.code).toBe("book_suspect");
    }
  });

  it("a book the scan found is a hand import: its chapter files are never retired through it", async () => {
    const s = await series([1, 2, 3, 4], book1, { scannedOnly: true });
    expect(unitOf(await units(s.id), "book", "1").duplicate_file_ids).toEqual([]);
    const p = await expectProblem(await post(previewUrl(s.id)), 409, "book_suspect");
    expect(p.suspect_reason).toBe("hand import");
  });

  it("the book turning suspect, the map changing or a file changing after the preview invalidates it", async () => {
    const changes: ((s: Awaited<ReturnType<typeof series>>) => Promise<unknown>)[] = [
      (s) => app.ctx.db.libraryFile.update({ where: { id: s.book }, data: { origin: "import" } }),
      async (s) =>
        expectJson(
          await app.api(`/api/manga/${s.id}/chapter-map`, {
            method: "PUT",
            json: { revision: 1, entries: [{ volume: "1", chapters: ["1", "2", "3"] }] },
          }),
          200,
        ),
      (s) => app.ctx.db.libraryFile.update({ where: { id: s.chapter(2) }, data: { sha256: "f".repeat(64) } }),
    ];
    for (const change of changes) {
      const s = await series([1, 2, 3, 4], book1);
      const p = await expectJson<RestPreview>(await post(previewUrl(s.id)), 200);
      await change(s);
      await expectProblem(await post(retireUrl(s.id), { confirmation: p.confirmation }), 409, "snapshot_stale");
      expect(await app.ctx.db.libraryFile.count({ where: { seriesId: s.id, state: "recycled" } })).toBe(0);
    }
  });

  it("an active download: 409 download_active, and once it ended the preview is stale; a token for another book or operation: 400 confirmation_invalid", async () => {
    const s = await series([1, 2, 3, 4], book1);
    const p = await expectJson<RestPreview>(await post(previewUrl(s.id)), 200);
    const d = await addDownload(app, s.id, { state: "publishing" });
    await expectProblem(await post(retireUrl(s.id), { confirmation: p.confirmation }), 409, "download_active");
    await app.ctx.db.download.update({ where: { id: d.id }, data: { state: "failed" } });
    await expectProblem(
      await post(retireUrl(s.id, "2"), { confirmation: p.confirmation }),
      400,
      "confirmation_invalid",
    );
    await expectProblem(
      await post(`/api/manga/${s.id}/audit/retire`, { confirmation: p.confirmation }),
      400,
      "confirmation_invalid",
    );
    await expectProblem(await post(retireUrl(s.id), { confirmation: "c1.e30.AAAA" }), 400, "confirmation_invalid");
    // The download started after the preview: ended or not, what was reviewed is no longer the state.
    await expectProblem(await post(retireUrl(s.id), { confirmation: p.confirmation }), 409, "snapshot_stale");
    const fresh = await expectJson<RestPreview>(await post(previewUrl(s.id)), 200);
    expect(
      (await expectJson<RestRetired>(await post(retireUrl(s.id), { confirmation: fresh.confirmation }), 200)).retired,
    ).toHaveLength(4);
  });

  it("an unknown book is 404 not_found, a book not owned 409 nothing_to_retire, a bad label 400", async () => {
    const s = await series([1, 2, 3, 4], [...book1, { volume: "2", chapters: ["5", "6"] }]);
    await expectProblem(await post(previewUrl(s.id, "9")), 404, "not_found");
    await expectProblem(await post(previewUrl(s.id, "2")), 409, "nothing_to_retire");
    await expectProblem(await post(previewUrl(s.id, "one")), 400, "invalid_label");
    await expectProblem(await post(previewUrl(999999)), 404, "series_not_found");
  });
});
