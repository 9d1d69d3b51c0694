/**
 * Duplicate retirement of one book probed from outside (docs/rules.md, "Series page grouping",
 * "Coverage"; docs/api.md, "File audit"): an empty service, the drop folder as the source, series
 * fetched and mapped through REST. Duplicates are found through the exact map only (the slots of a
 * series of chapters, the map's rows for a series of books); the preview lists file ids and paths
 * of one book's chapter files, the confirm re-checks that set and moves it to the recycle bin.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { FAST_ENV } from "./downloads-fixtures.ts";
import { expectJson, expectProblem, type RestUnits } from "./fixtures.ts";
import { chapterName as chapter, reviewClient, type Preview, type Retired } from "./review-harness.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seq = 0;
shareTestApp((a) => (app = a), { env: FAST_ENV });
const c = () => reviewClient(app);
const fedSeries = (numbers: number[], fields: Record<string, unknown> = {}) =>
  c().fedSeries(`Shoal ${++seq}`, numbers, fields, seq * 100);

describe("duplicate retirement of one book", () => {
  /** Chapters 1–5 fetched, then book 1 from the same work; the map as given. */
  async function withBook(entries: { volume: string; chapters: string[] }[] | null) {
    const s = await fedSeries([1, 2, 3, 4, 5]);
    await c().drop(s.title, `${s.title} v01.cbz`, 32, 9500 + seq);
    await c().refresh(s.id);
    if (entries)
      await expectJson(
        await app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
        200,
      );
    const units = await expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
    return { ...s, units };
  }
  const previewUrl = (id: number) => `/api/manga/${id}/volumes/1/duplicates/preview`;
  const retireUrl = (id: number) => `/api/manga/${id}/volumes/1/duplicates/retire`;

  it("under the exact map: previews ids and paths of that book's chapter files, re-checks them, moves them to the bin", async () => {
    const s = await withBook([
      { volume: "1", chapters: ["1", "2", "3", "4"] },
      { volume: "2", chapters: ["5"] },
    ]);
    expect(s.units.map).toBe("exact");
    const inside = (await Promise.all([1, 2, 3, 4].map(s.file))).sort((x, y) => x.id - y.id);
    const book = s.units.units.find((u) => u.kind === "book" && u.number === "1")!;
    expect(book.duplicate_file_ids).toEqual(inside.map((f) => f.id));
    const p = await expectJson<Preview & { volume: string }>(await c().post(previewUrl(s.id)), 200);
    expect(p.files.map((f) => [f.id, f.path])).toEqual(inside.map((f) => [f.id, f.path]));
    expect(p.files.every((f) => f.flags.includes("duplicate"))).toBe(true);

    // One reviewed file changes on disk: the set is no longer the reviewed one.
    const original = await readFile(c().abs(inside[2]!.path));
    await writeFile(c().abs(inside[2]!.path), Buffer.concat([original, Buffer.from("x")]));
    await expectProblem(await c().post(retireUrl(s.id), { confirmation: p.confirmation }), 409, "snapshot_stale");
    await writeFile(c().abs(inside[2]!.path), original);
    // The map changes and changes back: another revision, another review.
    const p2 = await expectJson<Preview>(await c().post(previewUrl(s.id)), 200);
    const map = await expectJson<{ revision: number }>(await app.api(`/api/manga/${s.id}/chapter-map`), 200);
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map`, {
        method: "PUT",
        json: {
          revision: map.revision,
          entries: [
            { volume: "1", chapters: ["1", "2", "3", "4"] },
            { volume: "2", chapters: ["5"] },
          ],
        },
      }),
      200,
    );
    await expectProblem(await c().post(retireUrl(s.id), { confirmation: p2.confirmation }), 409, "snapshot_stale");

    const p3 = await expectJson<Preview>(await c().post(previewUrl(s.id)), 200);
    const done = await expectJson<Retired>(await c().post(retireUrl(s.id), { confirmation: p3.confirmation }), 200);
    expect(done.retired.map((r) => [r.file_id, r.from])).toEqual(inside.map((f) => [f.id, f.path]));
    const left = await c().auditAll(s.id);
    expect(left.map((f) => `${f.kind} ${f.number}`)).toEqual(["book 1", "chapter 5"]);
    // The book covers them: a refresh and the Wanted pass fetch none of them again.
    await c().refresh(s.id);
    expect((await c().downloads(s.id)).filter((d) => d.state !== "published")).toEqual([]);
    expect((await c().downloads(s.id)).length).toBe(6);
    expect((await c().auditAll(s.id)).length).toBe(2);
    expect(
      (await c().bin())
        .filter((e) => e.series_id === s.id)
        .map((e) => e.file_id)
        .sort(),
    ).toEqual(inside.map((f) => f.id).sort());
  });

  it("a series of books finds them directly from the map's rows: only the owned book's chapters, one book at a time", async () => {
    const title = `Reef ${++seq}`;
    const s = await c().createSeries(title, { status: "finished", known_book_count: 2 });
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map`, {
        method: "PUT",
        json: {
          revision: 0,
          entries: [
            { volume: "1", chapters: ["1", "2"] },
            { volume: "2", chapters: ["3", "4"] },
          ],
        },
      }),
      200,
    );
    for (const n of [1, 2, 3, 4]) await c().drop(title, chapter(title, n), 8, 9700 + n);
    await c().drop(title, `${title} v01.cbz`, 16, 9709);
    await c().link(s.id, title);
    const units = await expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
    expect(units).toMatchObject({ form: "books", map: "exact" });
    const files = await c().auditAll(s.id);
    const id = (name: string) => files.find((f) => f.path.endsWith(`/${name}`))!.id;
    expect(files.map((f) => `${f.kind} ${f.number}`)).toEqual([
      "book 1",
      "chapter 1",
      "chapter 2",
      "chapter 3",
      "chapter 4",
    ]);
    const p = await expectJson<Preview>(await c().post(`/api/manga/${s.id}/volumes/1/duplicates/preview`), 200);
    expect(p.files.map((f) => f.id)).toEqual([id(chapter(title, 1)), id(chapter(title, 2))].sort((a, b) => a - b));
    expect(files.filter((f) => f.flags.includes("duplicate")).map((f) => f.number)).toEqual(["1", "2"]);
    await expectProblem(await c().post(`/api/manga/${s.id}/volumes/2/duplicates/preview`), 409, "nothing_to_retire");
  });

  it("without a map, or with a partial one, no file is a duplicate", async () => {
    const none = await withBook(null);
    expect(none.units.map).toBe("none");
    expect(none.units.units.every((u) => u.duplicate_file_ids.length === 0)).toBe(true);
    expect((await c().auditAll(none.id)).some((f) => f.flags.includes("duplicate"))).toBe(false);
    expect((await expectProblem(await c().post(previewUrl(none.id)), 409, "nothing_to_retire")).map).toBe("none");

    // Chapter 5 lies between book 1 and book 2: owned outside every book, so the map is partial.
    const partial = await withBook([
      { volume: "1", chapters: ["1", "2", "3", "4"] },
      { volume: "2", chapters: ["7", "8"] },
    ]);
    expect(partial.units.map).toBe("partial");
    expect((await c().auditAll(partial.id)).some((f) => f.flags.includes("duplicate"))).toBe(false);
    await expectProblem(await c().post(previewUrl(partial.id)), 409, "nothing_to_retire");
    expect((await c().bin()).filter((e) => [none.id, partial.id].includes(e.series_id))).toEqual([]);
  });
});
