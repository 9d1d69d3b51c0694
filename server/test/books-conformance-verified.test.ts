/**
 * Verified books probed from outside (docs/rules.md, "Suspect and verified books"; docs/api.md,
 * "Verified books"): an empty service, a library folder written here, only the public REST and
 * GraphQL API. A proof's refusals change nothing; a proof lifts a doubt and nothing more; it stops
 * applying by itself; an external volume replaces an assembly.
 */
import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, expectProblem, scanLibrary, stageCbz, unitOf } from "./fixtures.ts";
import {
  app,
  assembleBook,
  binOf,
  chapterFiles,
  digestOfFile,
  observe,
  post,
  saveMap,
  seriesWith,
  units,
  useBooksApp,
  verifiedBooks,
  type VerifiedRow,
} from "./books-harness.ts";

useBooksApp();

const finished = (books: number) => ({ status: "finished", known_book_count: books });
const verificationUrl = (id: number, volume: string) => `/api/manga/${id}/volumes/${volume}/verification`;
const put = (id: number, volume: string, json: unknown) =>
  app.api(verificationUrl(id, volume), { method: "PUT", json });
const NOTE = "compared every page with the chapters";

/** A hand-imported book 1 (scanned) beside chapter files 1–3, the operator map saying book 1 is 1–3. */
async function handImport() {
  const s = await seriesWith(finished(2), { "v01.cbz": 12, ...chapterFiles(4, 1, 2, 3) });
  await saveMap(s.id, [
    { volume: "1", chapters: ["1", "2", "3"] },
    { volume: "2", chapters: ["4", "5"] },
  ]);
  return { ...s, digest: await digestOfFile(s.file("v01.cbz")) };
}

describe("the listing", () => {
  it("each owned book with its current digest, the map's chapters and why it is suspect; REST and GraphQL agree", async () => {
    const s = await handImport();
    const rows = await verifiedBooks(s.id);
    expect(rows).toEqual([
      {
        volume: "1",
        file_id: expect.any(Number),
        digest: s.digest,
        chapters: ["1", "2", "3"],
        suspect_reason: "hand import",
        verified: false,
        proof: null,
      },
    ]);
    const g = await app.gql<{
      verifiedBooks: { volume: string; digest: string; chapters: string[]; suspectReason: string; verified: boolean }[];
    }>(`{ verifiedBooks(seriesId: ${s.id}) { volume digest chapters suspectReason verified } }`);
    expect(g.data?.verifiedBooks.map((b) => [b.volume, b.digest, b.chapters, b.verified])).toEqual([
      ["1", s.digest, ["1", "2", "3"], false],
    ]);
    expect(g.data?.verifiedBooks[0]?.suspectReason.toLowerCase().replace(/_/g, " ")).toBe("hand import");
    // Suspect: it covers nothing on its own, and nothing is a duplicate of it.
    const u = await units(s.id);
    for (const n of ["1", "2", "3"]) expect(unitOf(u, "chapter", n).coverage, `chapter ${n}`).toBeNull();
    expect(unitOf(u, "book", "1").duplicate_file_ids).toEqual([]);
  });

  it("a map that is only a suggestion lists no chapters and registers nothing: the proof is refused", async () => {
    const s = await seriesWith(finished(1), { "v01.cbz": 12 });
    await expectJson(
      await post(`/api/manga/${s.id}/chapter-map/suggestions`, {
        source: "catalogue:probe",
        entries: [{ volume: "1", chapters: ["1", "2"] }],
      }),
      201,
    );
    expect((await verifiedBooks(s.id)).map((b) => b.chapters)).toEqual([[]]);
    const digest = await digestOfFile(s.file("v01.cbz"));
    const before = await observe(s);
    await expectProblem(
      await put(s.id, "1", { digest, chapters: ["1", "2"], note: NOTE }),
      422,
      "map_entry_not_registered",
    );
    expect(await observe(s)).toEqual(before);

    // An entry of unknown membership registers nothing either.
    await saveMap(s.id, [{ volume: "1", chapters: [] }]);
    await expectProblem(
      await put(s.id, "1", { digest, chapters: ["1", "2"], note: NOTE }),
      422,
      "map_entry_not_registered",
    );

    // A reading registers the entry: the proof is taken.
    const s2 = await seriesWith(finished(1), { "v01.cbz": 12 });
    await expectJson(
      await post(`/api/manga/${s2.id}/chapter-map/readings`, { volume: "1", chapters: ["1", "2"] }),
      201,
    );
    const row = await expectJson<VerifiedRow>(
      await put(s2.id, "1", { digest: await digestOfFile(s2.file("v01.cbz")), chapters: ["2", "1"], note: NOTE }),
      200,
    );
    expect(row).toMatchObject({ verified: true, chapters: ["1", "2"] });
  });
});

describe("recording a proof", () => {
  it("refuses a stale digest (409), other chapters (422) and malformed fields (400), each changing nothing", async () => {
    const s = await handImport();
    const before = await observe(s);
    const other = await digestOfFile(s.file("c001.cbz"));
    await expectProblem(
      await put(s.id, "1", { digest: other, chapters: ["1", "2", "3"], note: NOTE }),
      409,
      "digest_stale",
    );
    for (const chapters of [
      ["1", "2"],
      ["1", "2", "3", "4"],
      ["1", "2", "3", "3"],
      ["0", "1", "2"],
    ])
      await expectProblem(
        await put(s.id, "1", { digest: s.digest, chapters, note: NOTE }),
        422,
        "proof_chapters_mismatch",
      );
    for (const body of [
      { digest: s.digest.slice(7), chapters: ["1", "2", "3"], note: NOTE },
      { digest: s.digest, chapters: [], note: NOTE },
      { digest: s.digest, chapters: ["one"], note: NOTE },
      { digest: s.digest, chapters: [1, 2, 3], note: NOTE },
      { digest: s.digest, chapters: ["1", "2", "3"] },
      { digest: s.digest, chapters: ["1", "2", "3"], note: "   " },
      { digest: s.digest, chapters: ["1", "2", "3"], note: NOTE, source_url: "not a url" },
      { digest: s.digest, chapters: ["1", "2", "3"], note: NOTE, source_url: "javascript:alert(1)" },
    ])
      expect((await put(s.id, "1", body)).status, JSON.stringify(body)).toBe(400);
    await expectProblem(
      await put(s.id, "2", { digest: s.digest, chapters: ["4", "5"], note: NOTE }),
      404,
      "book_not_owned",
    );
    await expectProblem(
      await put(999999, "1", { digest: s.digest, chapters: ["1"], note: NOTE }),
      404,
      "series_not_found",
    );
    expect(await observe(s)).toEqual(before);

    // GraphQL refuses with the same codes.
    const g = async (digest: string, chapters: string[]) =>
      (
        await app.gql(
          `mutation($s:Int!,$i:VerificationInput!){ verifyBook(seriesId:$s, volume:"1", input:$i){ verified } }`,
          { s: s.id, i: { digest, chapters, note: NOTE } },
        )
      ).errors?.[0]?.extensions?.code;
    expect(await g(other, ["1", "2", "3"])).toBe("digest_stale");
    expect(await g(s.digest, ["1", "2"])).toBe("proof_chapters_mismatch");
    expect(await observe(s)).toEqual(before);
  });

  it("lifts the doubt and nothing more: the book covers its chapters, no chapter file is retired or a duplicate", async () => {
    const s = await handImport();
    const row = await expectJson<VerifiedRow>(
      await put(s.id, "1", {
        digest: s.digest.toUpperCase().replace("SHA256", "sha256"),
        chapters: ["3", "1.0", "02"],
        source_url: "https://example.org/volume-1",
        note: NOTE,
      }),
      200,
    );
    expect(row).toMatchObject({
      volume: "1",
      digest: s.digest,
      verified: true,
      proof: {
        digest: s.digest,
        chapters: ["1", "2", "3"],
        source_url: "https://example.org/volume-1",
        note: NOTE,
        status: "applies",
      },
    });
    const u = await units(s.id);
    for (const n of ["1", "2", "3"]) {
      expect(unitOf(u, "chapter", n).coverage, `chapter ${n}`).toBe("covered_by_volume");
      expect(unitOf(u, "chapter", n).file_ids, `chapter ${n}`).toHaveLength(1);
    }
    expect(unitOf(u, "book", "1").duplicate_file_ids).toEqual([]);
    expect(await binOf(s.id)).toEqual([]);
    // Duplicate detection still refuses it, and the audit flags no chapter file as a duplicate.
    const audit = await expectJson<{ files: { kind: string; flags: string[] }[] }>(
      await app.api(`/api/manga/${s.id}/audit?page=1`),
      200,
    );
    expect(audit.files.filter((f) => f.kind === "chapter" && f.flags.includes("duplicate"))).toEqual([]);
    await expectProblem(await post(`/api/manga/${s.id}/volumes/1/duplicates/preview`), 409, "book_suspect");
    // The chapter files stay, also after a scan.
    await scanLibrary(app);
    expect(await binOf(s.id)).toEqual([]);
    expect((await verifiedBooks(s.id))[0]?.verified).toBe(true);
  });

  it("an oversized pack asks for a replacement until verified; then its boundaries satisfy its chapters and nothing is wanted", async () => {
    const s = await seriesWith({ ...finished(3), monitored: true }, { "v01.cbz": 10, "v02.cbz": 700, "v03.cbz": 10 });
    await saveMap(s.id, [
      { volume: "1", chapters: ["1"] },
      { volume: "2", chapters: ["2", "3"] },
      { volume: "3", chapters: ["4"] },
    ]);
    const wanted = async () =>
      (
        await expectJson<{ ledger: { entries: { kind: string; number: string }[] } }>(
          await post(`/api/manga/${s.id}/wanted/run`),
          200,
        )
      ).ledger.entries.map((e) => `${e.kind} ${e.number}`);
    expect((await verifiedBooks(s.id)).map((b) => [b.volume, b.suspect_reason])).toEqual([
      ["1", "hand import"],
      ["2", "oversized pack"],
      ["3", "hand import"],
    ]);
    // A hand import of the edition's size is not replaced; the oversized pack is.
    expect(await wanted()).toContain("book 2");
    expect(await wanted()).not.toContain("book 1");
    await expectJson(
      await put(s.id, "2", { digest: await digestOfFile(s.file("v02.cbz")), chapters: ["2", "3"], note: NOTE }),
      200,
    );
    expect(await wanted()).toEqual([]);
    const u = await units(s.id);
    for (const n of ["2", "3"]) expect(unitOf(u, "chapter", n).coverage).toBe("covered_by_volume");
    expect(unitOf(u, "book", "2").problems).toEqual([]);
  });

  it("adds nothing to a book that had no doubt (an assembly)", async () => {
    const s = await seriesWith(finished(1), chapterFiles(3, 1, 2));
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const r = await assembleBook(s.id, "1");
    const before = await units(s.id);
    const row = await expectJson<VerifiedRow>(
      await put(s.id, "1", { digest: `sha256:${r.sha256}`, chapters: ["1", "2"], note: NOTE }),
      200,
    );
    expect(row.suspect_reason).toBeNull();
    expect(await units(s.id)).toEqual(before);
  });
});

describe("a proof stops applying by itself", () => {
  it("when the content changes, when the map changes; DELETE withdraws it, a second DELETE is 404", async () => {
    const s = await handImport();
    await expectJson(await put(s.id, "1", { digest: s.digest, chapters: ["1", "2", "3"], note: NOTE }), 200);

    // The map changes: the proof no longer applies and the chapters are no longer covered.
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4", "5"] },
    ]);
    let row = (await verifiedBooks(s.id))[0]!;
    expect([row.verified, row.proof?.status]).toEqual([false, "map_changed"]);
    for (const n of ["1", "2"]) expect(unitOf(await units(s.id), "chapter", n).coverage).toBeNull();

    // Back to the proven entry: it applies again; then the content changes.
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2", "3"] },
      { volume: "2", chapters: ["4", "5"] },
    ]);
    expect((await verifiedBooks(s.id))[0]?.verified).toBe(true);
    await writeFile(s.file("v01.cbz"), await cbz(13));
    await scanLibrary(app);
    row = (await verifiedBooks(s.id))[0]!;
    expect([row.verified, row.proof?.status, row.suspect_reason]).toEqual([false, "digest_changed", "hand import"]);
    expect(row.digest).toBe(await digestOfFile(s.file("v01.cbz")));
    for (const n of ["1", "2", "3"]) expect(unitOf(await units(s.id), "chapter", n).coverage).toBeNull();

    expect((await app.api(verificationUrl(s.id, "1"), { method: "DELETE" })).status).toBe(204);
    expect((await verifiedBooks(s.id))[0]?.proof).toBeNull();
    await expectProblem(await app.api(verificationUrl(s.id, "1"), { method: "DELETE" }), 404, "verification_not_found");
    await expectProblem(await app.api(verificationUrl(999999, "1"), { method: "DELETE" }), 404, "series_not_found");
    expect((await app.api(verificationUrl(s.id, "one"), { method: "DELETE" })).status).toBe(400);
    const g = await app.gql(`mutation { withdrawVerification(seriesId: ${s.id}, volume: "1") }`);
    expect(g.errors?.[0]?.extensions?.code).toBe("verification_not_found");
  });
});

describe("an external volume and an assembly", () => {
  it("a hand-imported copy waits for its proof, then it is the book and the assembly goes to the recycle bin", async () => {
    const s = await seriesWith(finished(1), chapterFiles(3, 1, 2));
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const r = await assembleBook(s.id, "1");
    await writeFile(s.file("v01.cbz"), await cbz(6));
    await scanLibrary(app);
    expect(unitOf(await units(s.id), "book", "1").file_ids).toContain(r.file_id);
    const digest = await digestOfFile(s.file("v01.cbz"));
    await expectJson(await put(s.id, "1", { digest, chapters: ["1", "2"], note: NOTE }), 200);
    const u = await units(s.id);
    expect(unitOf(u, "book", "1").owned).toBe(true);
    expect(unitOf(u, "book", "1").file_ids).not.toContain(r.file_id);
    const bin = await binOf(s.id);
    expect(bin.find((e) => e.file_id === r.file_id)?.reason).toBe("replaced by an external volume");
    // One book per volume.
    expect(u.units.filter((x) => x.kind === "book" && x.number === "1")).toHaveLength(1);
  });

  it("a downloaded copy (prepared through the publication, as a download publishes) is the book at once", async () => {
    const s = await seriesWith(finished(1), chapterFiles(3, 1, 2));
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const r = await assembleBook(s.id, "1");
    const staged = await stageCbz(app.config, "external-v01.cbz", 6);
    const published = await app.services.publication.publish({
      seriesId: s.id,
      stagedPath: staged.path,
      targetRelPath: `${s.folder}/${s.title} v01.cbz`,
      file: {
        kind: "book",
        volume: "1",
        chapter: null,
        chapterEnd: null,
        part: null,
        pageCount: 6,
        language: "en",
        origin: "download",
        tagSource: "filename",
      },
      release: { kind: "volume", volume: "1", chapter: null, part: null, language: "en", assembledFrom: null },
    });
    const u = await units(s.id);
    expect(unitOf(u, "book", "1")).toMatchObject({ owned: true, file_ids: [published.fileId] });
    for (const n of ["1", "2"]) expect(unitOf(u, "chapter", n).coverage).toBe("covered_by_volume");
    expect((await binOf(s.id)).find((e) => e.file_id === r.file_id)?.reason).toBe("replaced by an external volume");
    expect((await verifiedBooks(s.id)).map((b) => [b.volume, b.file_id, b.suspect_reason])).toEqual([
      ["1", published.fileId, null],
    ]);
  });
});
