/**
 * Duplicate retirement reads "suspect" from the coverage index (docs/rules.md, "Suspect and verified books": a book's
 * size is judged against the edition), so a book oversized only against the series' median book
 * is refused like any suspect book, over REST and GraphQL; the same book without an edition to
 * compare against retires its duplicates.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  bookFileIds,
  bookFileName,
  markDownloaded,
  chapterFileName,
  createSeriesWithFiles,
  expectJson,
  expectProblem,
  scanLibrary,
  writeCbz,
} from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seq = 0;

shareTestApp((a) => (app = a));

/** Books `small` of 10 pages, book 4 of 30 pages, chapters 10–13 mapped to book 4. */
async function series(small: number[]) {
  const title = `Edition ${++seq}`;
  const s = await createSeriesWithFiles(app, title, { books: small, chapters: [10, 11, 12, 13], bookPages: 10 });
  await writeCbz(path.join(app.config.libraryRoot, s.folder, bookFileName(title, 4)), 30);
  await scanLibrary(app);
  // Downloaded books (prepared state): only their size can make them suspect here.
  await markDownloaded(app, await bookFileIds(app, s.id));
  await expectJson(
    await app.api(`/api/manga/${s.id}/chapter-map`, {
      method: "PUT",
      json: { revision: 0, entries: [{ volume: "4", chapters: ["10", "11", "12", "13"] }] },
    }),
    200,
  );
  return { id: s.id, title };
}

const preview = (id: number) => app.api(`/api/manga/${id}/volumes/4/duplicates/preview`, { method: "POST", json: {} });
const gqlPreview = (id: number) =>
  app.gql<{ previewDuplicateRetirement: { files: { id: number }[] } }>(
    `mutation($s: Int!) { previewDuplicateRetirement(seriesId: $s, volume: "4") { files { id } } }`,
    { s: id },
  );

describe("duplicate retirement and the edition's size", () => {
  it("a book above twice the series' median book is an oversized pack: 409 book_suspect", async () => {
    const s = await series([1, 2, 3]);
    const p = await expectProblem(await preview(s.id), 409, "book_suspect");
    expect(p.suspect_reason).toBe("oversized pack");
    const g = await gqlPreview(s.id);
    expect(g.errors?.[0]?.extensions?.code).toBe("book_suspect");
    const active = await app.ctx.db.libraryFile.count({ where: { seriesId: s.id, state: "active" } });
    expect(active).toBe(8);
  });

  it("the same book with no edition to compare against is sound and retires its chapter files", async () => {
    const s = await series([]);
    const p = await expectJson<{ files: { path: string }[] }>(await preview(s.id), 200);
    expect(p.files.map((f) => f.path)).toEqual(
      [10, 11, 12, 13].map((n) => `${s.title}/${chapterFileName(s.title, n)}`),
    );
    const g = await gqlPreview(s.id);
    expect(g.errors).toBeUndefined();
    expect(g.data?.previewDuplicateRetirement.files).toHaveLength(4);
  });
});
