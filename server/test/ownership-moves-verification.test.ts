/**
 * The ownership moves (docs/rules.md, "Ownership moves") about verified books, each through REST and
 * through GraphQL (see ownership-moves-harness.ts): a suspect book is verified by a proof (current
 * digest, the map's chapters) without retiring any chapter file; DELETE, a content change and a map
 * change each make it suspect again.
 */
import { describe, expect, it } from "vitest";
import { rewriteAsScanWould } from "./audit-fixtures.ts";
import { cbz } from "./fixtures.ts";
import { app, suspectSeries, transports, unit, useApp, type Transport } from "./ownership-moves-harness.ts";

useApp();

const SUSPECT = /^suspect: hand import/;

/** A proof of book 1 as the verified-books list offers it: its current digest and the map's chapters. */
async function proofOf(t: Transport, seriesId: number) {
  const b = await t.verifiedBook(seriesId, "1");
  return { digest: b.digest, chapters: b.chapters, note: "compared every page with the printed edition" };
}

/** Book 1 of suspectSeries, verified through `t`. */
async function verified(t: Transport) {
  const s = await suspectSeries();
  expect(await t.verify(s.id, "1", await proofOf(t, s.id))).toEqual({ verified: true });
  expect(await t.verifiedBook(s.id, "1")).toMatchObject({ verified: true, proofStatus: "applies" });
  expect(unit(await t.units(s.id), "chapter", "1").coverage).toBe("covered_by_volume");
  return s;
}

/** The state of a suspect book: not verified, its doubt shown, its chapters not covered by it. */
async function expectSuspect(t: Transport, seriesId: number) {
  expect(await t.verifiedBook(seriesId, "1")).toMatchObject({ suspectReason: "hand import", verified: false });
  const u = await t.units(seriesId);
  expect(unit(u, "book", "1").problems).toEqual(expect.arrayContaining([expect.stringMatching(SUSPECT)]));
  for (const n of ["1", "3"]) expect(unit(u, "chapter", n).coverage, `chapter ${n}`).toBeNull();
}

describe.each(transports)("verification moves through %s", (_name, t) => {
  it("book suspect → verification PUT (digest current, the map's chapters) → verified; doubt lifted; no chapter file retired", async () => {
    const s = await suspectSeries();
    await expectSuspect(t, s.id);
    const proof = await proofOf(t, s.id);
    expect(proof.chapters).toEqual(["1", "2", "3"]);
    const recycled = await app.ctx.db.recycleEntry.count();

    expect(await t.verify(s.id, "1", proof)).toEqual({ verified: true });
    expect(await t.verifiedBook(s.id, "1")).toEqual({
      fileId: s.book,
      digest: proof.digest,
      chapters: ["1", "2", "3"],
      suspectReason: "hand import",
      verified: true,
      proofStatus: "applies",
    });
    const u = await t.units(s.id);
    expect(unit(u, "book", "1")).toMatchObject({ owned: true, fileIds: [s.book], duplicateFileIds: [], problems: [] });
    // The missing chapters are satisfied by the book.
    for (const n of ["1", "3"]) expect(unit(u, "chapter", n).coverage, `chapter ${n}`).toBe("covered_by_volume");
    // Chapter 2's file stays: the verified book covers it, but a verified suspect book retires
    // nothing, so the file is no duplicate.
    expect(unit(u, "chapter", "2")).toMatchObject({
      owned: true,
      coverage: "covered_by_volume",
      fileIds: [s.chapter2],
      duplicateFileIds: [],
    });
    const rows = await app.ctx.db.libraryFile.findMany({ where: { seriesId: s.id }, orderBy: { id: "asc" } });
    expect(rows.map((f) => [f.id, f.state])).toEqual(
      [s.book, s.chapter2].sort((a, b) => a - b).map((id) => [id, "active"]),
    );
    expect(await app.ctx.db.recycleEntry.count()).toBe(recycled);
  });

  it("a proof with a stale digest or other chapters leaves the book suspect", async () => {
    const s = await suspectSeries();
    const proof = await proofOf(t, s.id);
    expect(await t.verify(s.id, "1", { ...proof, digest: `sha256:${"0".repeat(64)}` })).toEqual({
      code: "digest_stale",
      status: 409,
    });
    expect(await t.verify(s.id, "1", { ...proof, chapters: ["1", "2"] })).toEqual({
      code: "proof_chapters_mismatch",
      status: 422,
    });
    await expectSuspect(t, s.id);
    expect(await app.ctx.db.verification.count({ where: { seriesId: s.id } })).toBe(0);
  });

  it("book verified → verification DELETE → suspect", async () => {
    const s = await verified(t);
    expect(await t.withdraw(s.id, "1")).toEqual({});
    await expectSuspect(t, s.id);
    expect(await t.verifiedBook(s.id, "1")).toMatchObject({ proofStatus: null });
    expect(await t.withdraw(s.id, "1")).toEqual({ code: "verification_not_found", status: 404 });
  });

  it("book verified → content changes → suspect (the proof stops applying by itself)", async () => {
    const s = await verified(t);
    const before = (await t.verifiedBook(s.id, "1")).digest;
    await rewriteAsScanWould(app, s.book, await cbz(13));
    await t.scan();
    expect((await t.verifiedBook(s.id, "1")).digest).not.toBe(before);
    expect(await t.verifiedBook(s.id, "1")).toMatchObject({ proofStatus: "digest_changed" });
    await expectSuspect(t, s.id);
  });

  it("book verified → map changes → suspect (the proof stops applying by itself)", async () => {
    const s = await verified(t);
    expect(await t.saveMap(s.id, 1, [{ volume: "1", chapters: ["1", "2", "3", "4"] }])).toBe(2);
    expect(await t.verifiedBook(s.id, "1")).toMatchObject({
      chapters: ["1", "2", "3", "4"],
      proofStatus: "map_changed",
    });
    await expectSuspect(t, s.id);
  });
});
