/**
 * Verified books over real HTTP and GraphQL (docs/rules.md, "Suspect and verified books",
 * "Ownership moves"; docs/api.md, "Verified books"): a suspect book covers nothing; a proof
 * (current digest, the map's exact chapters) lifts the doubt so its chapters are satisfied, never retiring a chapter
 * file; DELETE, a content change and a map change each make it suspect again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileIds, idOf, rewriteAsScanWould } from "./audit-fixtures.ts";
import {
  bookFileName,
  cbz,
  chapterFileName,
  createSeriesWithFiles,
  expectJson,
  expectProblem,
  scanLibrary,
  unitOf,
  type RestUnits,
} from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

interface RestVerifiedBook {
  volume: string;
  file_id: number;
  digest: string;
  chapters: string[];
  suspect_reason: string | null;
  verified: boolean;
  proof: {
    file_id: number;
    digest: string;
    chapters: string[];
    source_url: string | null;
    note: string;
    created_at: string;
    status: string;
  } | null;
}

let app: TestApp;
let seq = 0;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.dispose();
});

const book1 = [{ volume: "1", chapters: ["1", "2", "3"] }];

/** Book 1 (of the given origin) and chapter file 2, scanned; the operator map given (null = none). */
async function series(
  origin: "import" | "translation" | "download",
  entries: { volume: string; chapters: string[] }[] | null = book1,
) {
  const title = `Verified ${++seq}`;
  const s = await createSeriesWithFiles(app, title, { books: [1], chapters: [2] });
  await scanLibrary(app);
  const ids = await fileIds(app, s.id);
  const book = idOf(ids, bookFileName(title, 1));
  // The scan makes it a hand import; the other origins are prepared state.
  if (origin !== "import") await app.ctx.db.libraryFile.update({ where: { id: book }, data: { origin } });
  if (entries)
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
      200,
    );
  return { id: s.id, title, book, chapter2: idOf(ids, chapterFileName(title, 2)) };
}

const listUrl = (id: number) => `/api/manga/${id}/verified-books`;
const proofUrl = (id: number, volume = "1") => `/api/manga/${id}/volumes/${volume}/verification`;
const list = async (id: number) => expectJson<RestVerifiedBook[]>(await app.api(listUrl(id)), 200);
const row = async (id: number, volume = "1") => (await list(id)).find((b) => b.volume === volume)!;
const put = (id: number, json: unknown, volume = "1") => app.api(proofUrl(id, volume), { method: "PUT", json });
const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
const digestOf = async (fileId: number) =>
  `sha256:${(await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: fileId } })).sha256}`;
const proof = async (s: { book: number }, over: Record<string, unknown> = {}) => ({
  digest: await digestOf(s.book),
  chapters: ["1", "2", "3"],
  source_url: "https://example.org/volume-1",
  note: "compared every page with the printed edition",
  ...over,
});

describe("verified books", () => {
  it("lists a hand import as suspect; it covers no chapter on its own", async () => {
    const s = await series("import");
    expect(await list(s.id)).toEqual([
      {
        volume: "1",
        file_id: s.book,
        digest: await digestOf(s.book),
        chapters: ["1", "2", "3"],
        suspect_reason: "hand import",
        verified: false,
        proof: null,
      },
    ]);
    const u = await units(s.id);
    expect(unitOf(u, "chapter", "1").coverage).toBeNull();
    expect(unitOf(u, "book", "1")).toMatchObject({ owned: true, duplicate_file_ids: [] });
    expect(unitOf(u, "book", "1").problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^suspect: hand import/)]),
    );
  });

  it("suspect → PUT → verified: the doubt is lifted, its chapters are satisfied, no chapter file is retired", async () => {
    const s = await series("import");
    const body = await proof(s);
    const r = await expectJson<RestVerifiedBook>(await put(s.id, body), 200);
    expect(r).toMatchObject({ volume: "1", file_id: s.book, suspect_reason: "hand import", verified: true });
    expect(r.proof).toMatchObject({
      file_id: s.book,
      digest: body.digest,
      chapters: ["1", "2", "3"],
      source_url: body.source_url,
      note: body.note,
      status: "applies",
    });
    expect(await row(s.id)).toEqual(r);

    const u = await units(s.id);
    expect(unitOf(u, "chapter", "1").coverage).toBe("covered_by_volume");
    expect(unitOf(u, "chapter", "3").coverage).toBe("covered_by_volume");
    expect(unitOf(u, "chapter", "2").duplicate_file_ids).toEqual([]);
    expect(unitOf(u, "book", "1")).toMatchObject({ duplicate_file_ids: [], problems: [] });
    // Never retires: duplicate retirement refuses the book, and every file stays active.
    await expectProblem(
      await app.api(`/api/manga/${s.id}/volumes/1/duplicates/preview`, { method: "POST", json: {} }),
      409,
      "book_suspect",
    );
    const audit = await expectJson<{ files: { id: number; flags: string[] }[] }>(
      await app.api(`/api/manga/${s.id}/audit`),
      200,
    );
    expect(audit.files.find((f) => f.id === s.chapter2)?.flags).not.toContain("duplicate");
    const rows = await app.ctx.db.libraryFile.findMany({ where: { seriesId: s.id } });
    expect(rows.every((f) => f.state === "active")).toBe(true);
  });

  it("a verified machine translation satisfies missing chapters in the units view", async () => {
    const s = await series("translation");
    expect(unitOf(await units(s.id), "chapter", "1").coverage).toBeNull();
    expect((await row(s.id)).suspect_reason).toBe("machine translation");
    await expectJson(await put(s.id, await proof(s)), 200);
    const u = await units(s.id);
    expect(unitOf(u, "chapter", "1")).toMatchObject({ coverage: "covered_by_volume", book: "1" });
    expect(unitOf(u, "chapter", "2").duplicate_file_ids).toEqual([]);
  });

  it("a sound (downloaded) book is listed without a suspect reason", async () => {
    const s = await series("download");
    expect(await row(s.id)).toMatchObject({ suspect_reason: null, verified: false, proof: null });
  });

  it("a book the library scan found is a hand import: suspect, it covers nothing, no duplicate", async () => {
    const s = await series("import");
    expect(await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: s.book } })).toMatchObject({
      origin: "import",
    });
    expect(await row(s.id)).toMatchObject({ suspect_reason: "hand import", verified: false });
    const u = await units(s.id);
    expect(unitOf(u, "chapter", "1").coverage).toBeNull();
    expect(unitOf(u, "chapter", "2")).toMatchObject({ coverage: null, duplicate_file_ids: [] });
    expect(unitOf(u, "book", "1").duplicate_file_ids).toEqual([]);
  });

  it("refuses a stale digest (409), chapters other than the map's (422), a book without a registered entry (422), a book not owned (404)", async () => {
    const s = await series("import");
    await expectProblem(await put(s.id, await proof(s, { digest: `sha256:${"0".repeat(64)}` })), 409, "digest_stale");
    await expectProblem(await put(s.id, await proof(s, { chapters: ["1", "2"] })), 422, "proof_chapters_mismatch");
    await expectProblem(
      await put(s.id, await proof(s, { chapters: ["1", "2", "3", "4"] })),
      422,
      "proof_chapters_mismatch",
    );
    await expectProblem(await put(s.id, await proof(s), "7"), 404, "book_not_owned");
    const unmapped = await series("import", null);
    await expectProblem(await put(unmapped.id, await proof(unmapped)), 422, "map_entry_not_registered");
    await expectProblem(await put(s.id, { digest: "md5:1", chapters: ["1"], note: "x" }), 400, "invalid_field");
    await expectProblem(await put(s.id, await proof(s, { note: "" })), 400, "invalid_field");
    expect(await row(s.id)).toMatchObject({ verified: false, proof: null });
    expect(await app.ctx.db.verification.count({ where: { seriesId: { in: [s.id, unmapped.id] } } })).toBe(0);
  });

  it("verified → DELETE → suspect: the proof is gone", async () => {
    const s = await series("import");
    await expectJson(await put(s.id, await proof(s)), 200);
    const del = await app.api(proofUrl(s.id), { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(await row(s.id)).toMatchObject({ verified: false, proof: null, suspect_reason: "hand import" });
    expect(unitOf(await units(s.id), "chapter", "1").coverage).toBeNull();
    await expectProblem(await app.api(proofUrl(s.id), { method: "DELETE" }), 404, "verification_not_found");
  });

  it("verified → content changes (file rewritten, rescanned) → suspect by itself", async () => {
    const s = await series("import");
    await expectJson(await put(s.id, await proof(s)), 200);
    const before = await digestOf(s.book);
    await rewriteAsScanWould(app, s.book, await cbz(13));
    await scanLibrary(app);
    const r = await row(s.id);
    expect(r.digest).not.toBe(before);
    expect(r).toMatchObject({ verified: false, suspect_reason: "hand import" });
    expect(r.proof).toMatchObject({ digest: before, status: "digest_changed" });
    expect(unitOf(await units(s.id), "chapter", "1").coverage).toBeNull();
  });

  it("verified → map changes → suspect by itself", async () => {
    const s = await series("import");
    await expectJson(await put(s.id, await proof(s)), 200);
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map`, {
        method: "PUT",
        json: { revision: 1, entries: [{ volume: "1", chapters: ["1", "2"] }] },
      }),
      200,
    );
    const r = await row(s.id);
    expect(r).toMatchObject({ verified: false, chapters: ["1", "2"] });
    expect(r.proof?.status).toBe("map_changed");
    expect(unitOf(await units(s.id), "chapter", "1").coverage).toBeNull();
  });

  it("GraphQL lists, verifies and withdraws with the same answers and error codes as REST", async () => {
    const s = await series("import");
    const fields = `volume fileId digest chapters suspectReason verified proof { fileId digest chapters sourceUrl note createdAt status }`;
    const toRest = (g: Record<string, unknown>): RestVerifiedBook => {
      const p = g.proof as Record<string, unknown> | null;
      return {
        volume: g.volume as string,
        file_id: g.fileId as number,
        digest: g.digest as string,
        chapters: g.chapters as string[],
        suspect_reason: g.suspectReason as string | null,
        verified: g.verified as boolean,
        proof: p && {
          file_id: p.fileId as number,
          digest: p.digest as string,
          chapters: p.chapters as string[],
          source_url: p.sourceUrl as string | null,
          note: p.note as string,
          created_at: p.createdAt as string,
          status: String(p.status).toLowerCase(),
        },
      };
    };
    const listed = async () =>
      (
        await app.gql<{ verifiedBooks: Record<string, unknown>[] }>(
          `query($s: Int!) { verifiedBooks(seriesId: $s) { ${fields} } }`,
          { s: s.id },
        )
      ).data!.verifiedBooks.map(toRest);
    expect(await listed()).toEqual(await list(s.id));

    const stale = await app.gql(
      `mutation($s: Int!, $i: VerificationInput!) { verifyBook(seriesId: $s, volume: "1", input: $i) { verified } }`,
      {
        s: s.id,
        i: { digest: `sha256:${"0".repeat(64)}`, chapters: ["1", "2", "3"], note: "checked" },
      },
    );
    expect(stale.errors?.[0]?.extensions?.code).toBe("digest_stale");

    const ok = await app.gql<{ verifyBook: Record<string, unknown> }>(
      `mutation($s: Int!, $i: VerificationInput!) { verifyBook(seriesId: $s, volume: "1", input: $i) { ${fields} } }`,
      {
        s: s.id,
        i: { digest: await digestOf(s.book), chapters: ["3", "2", "1"], note: "checked" },
      },
    );
    expect(ok.errors).toBeUndefined();
    expect(toRest(ok.data!.verifyBook)).toMatchObject({
      verified: true,
      proof: { source_url: null, chapters: ["1", "2", "3"] },
    });
    expect(await listed()).toEqual(await list(s.id));
    expect(await row(s.id)).toEqual(toRest(ok.data!.verifyBook));

    const gone = await app.gql<{ withdrawVerification: boolean }>(
      `mutation($s: Int!) { withdrawVerification(seriesId: $s, volume: "1") }`,
      { s: s.id },
    );
    expect(gone.data?.withdrawVerification).toBe(true);
    expect(await row(s.id)).toMatchObject({ verified: false, proof: null });
    const again = await app.gql(`mutation($s: Int!) { withdrawVerification(seriesId: $s, volume: "1") }`, { s: s.id });
    expect(again.errors?.[0]?.extensions?.code).toBe("verification_not_found");
  });

  it("answers 404 series_not_found for an unknown series", async () => {
    await expectProblem(await app.api(listUrl(999999)), 404, "series_not_found");
  });
});
