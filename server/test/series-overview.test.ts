/**
 * GraphQL `Series.overview` (the library card): domain/overview.ts over the units view, and the
 * library list loading every series' snapshot in one batch — the same statements for 5 series as
 * for 55.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesOverview } from "../src/domain/overview.ts";
import { loadSnapshot } from "../src/repositories/snapshot-repo.ts";
import { loadSnapshots } from "../src/repositories/snapshots-repo.ts";
import { countStatements, gqlEnum, restUnitsView, seriesByTitle, writeBigSeries } from "./web-support-helpers.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const OVERVIEW =
  "coverFileId coverUrl completion books booksOwned chapters chaptersOwned missingBooks missingChapters hasGaps";

interface GqlOverview {
  coverFileId: number | null;
  coverUrl: string | null;
  completion: string | null;
  books: number;
  booksOwned: number;
  chapters: number;
  chaptersOwned: number;
  missingBooks: number;
  missingChapters: number;
  hasGaps: boolean;
}

describe("Series.overview", () => {
  let app: TestApp;
  let ids: Map<string, number>;

  beforeAll(async () => {
    app = await createTestApp({ demo: true });
    ids = await seriesByTitle(app);
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const list = async () => {
    const r = await app.gql<{ seriesList: { id: number; title: string; overview: GqlOverview }[] }>(
      `{ seriesList { id title overview { ${OVERVIEW} } } }`,
    );
    expect(r.errors).toBeUndefined();
    return r.data!.seriesList;
  };

  it("equals seriesOverview(units) for every demo series, in the list and for one series", async () => {
    const all = await list();
    expect(all).toHaveLength(5);
    for (const s of all) {
      const o = seriesOverview(await restUnitsView(app, s.id));
      const expected = {
        ...o,
        completion: gqlEnum(o.completion),
        coverUrl: o.coverFileId === null ? null : `/api/files/${o.coverFileId}/thumbnail?page=first`,
      };
      expect(s.overview, s.title).toEqual(expected);
      const one = await app.gql<{ series: { overview: GqlOverview } }>(
        `query($id: Int!) { series(id: $id) { overview { ${OVERVIEW} } } }`,
        { id: s.id },
      );
      expect(one.data?.series.overview).toEqual(expected);
    }
  });

  it("the demo cards: counts, gaps and covers as the library shows them", async () => {
    const byTitle = new Map((await list()).map((s) => [s.title, s.overview]));
    // Harbor: books 1–3 owned, book 4 misses chapter 28, book 5 complete from chapters (40.5 is an extra).
    expect(byTitle.get("Harbor of Paper Cranes")).toMatchObject({
      books: 5,
      booksOwned: 3,
      chapters: 40,
      missingBooks: 1,
      missingChapters: 1,
      hasGaps: true,
    });
    // Lanterns: every book owned, no chapters; complete.
    expect(byTitle.get("Lanterns of the Salt Road")).toMatchObject({
      books: 4,
      booksOwned: 4,
      chapters: 0,
      missingBooks: 0,
      missingChapters: 0,
      hasGaps: false,
      completion: "ALL_BOOKS",
    });
    for (const [title, o] of byTitle) {
      expect(o.coverFileId, title).not.toBeNull();
      // The cover is a real first-page thumbnail.
      const res = await app.api(o.coverUrl!);
      expect(res.status, title).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/webp");
    }
    // Moss has books 1–2 and chapters: a book is the cover.
    const moss = await restUnitsView(app, ids.get("Moss & Meteor")!);
    expect(moss.units.find((u) => u.kind === "book" && u.number === "1")?.fileIds).toEqual([
      byTitle.get("Moss & Meteor")!.coverFileId,
    ]);
  });

  it("a batch of many series gives each one the snapshot it has alone, and leaves unknown ids out", async () => {
    const big = await writeBigSeries(app, "Overview Big", 300, 20, (b) => b % 2 === 0);
    const all = [...ids.values(), big.id, 999_999];
    const batch = await loadSnapshots(app.ctx.db, all);
    expect([...batch.keys()].sort((a, b) => a - b)).toEqual(all.filter((id) => id !== 999_999).sort((a, b) => a - b));
    for (const id of all.slice(0, -1))
      expect(batch.get(id), `series ${id}`).toEqual(await loadSnapshot(app.ctx.db, id));
  });

  it("seriesList with overviews is the same fixed number of statements for 5 series and for 55", async () => {
    // A card is kept until its series changes: touch every demo series so the first list computes all.
    await app.ctx.db.series.updateMany({ data: { webtoon: false } });
    const before = await countStatements(app, list);
    const beforeWarm = await countStatements(app, list);
    for (let i = 0; i < 50; i++) await writeBigSeries(app, `Card ${String(i).padStart(2, "0")}`, 12, 2, (b) => b === 1);
    await app.ctx.db.series.updateMany({ data: { webtoon: false } });
    const after = await countStatements(app, list);
    expect(after.value.length).toBe(before.value.length + 50);
    const card = after.value.find((s) => s.title === "Card 07")!.overview;
    expect(card).toMatchObject({ books: 2, booksOwned: 1, chapters: 12, chaptersOwned: 6 });
    // One list select, the series' revisions, then the batch of the changed series: one fixed lookup
    // (series rows, map sources, proofs) and the five bulk selects.
    expect(after.count, after.statements.join("\n")).toBe(8);
    expect(before.count).toBe(after.count);
    // Unchanged series: the list and the revisions only.
    const afterWarm = await countStatements(app, list);
    expect(afterWarm.value).toEqual(after.value);
    expect(afterWarm.count, afterWarm.statements.join("\n")).toBe(2);
    expect(beforeWarm.count).toBe(2);
  });
});
