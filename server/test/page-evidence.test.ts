/**
 * Page evidence from an empty service, through the public API only: a library folder the test
 * writes (chapter files of real JPEG pages, book files scanned from them), a scan, then
 * GET /api/manga/{id}/page-evidence (202 while the signatures are computed in the background) and
 * the adoption of a book's proposal with its preview and confirmation, over REST and GraphQL.
 *
 * The books: v01 is chapters 1–3 rebuilt with a cover and a credits page, every page re-encoded,
 * resized and trimmed by a small crop; v02 holds the pages of chapters 4–6 shuffled; v03 is another
 * edition (chapters 4 and 5, then a third of pages from elsewhere); chapter 7 is a distractor that
 * shares one page with v01.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { bookFileName, chapterFileName, expectJson, expectProblem, scanLibrary, type RestUnits } from "./fixtures.ts";
import { blankPage, chapterPages, eventually, otherPage, rescanned, writePagesCbz } from "./page-images.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
shareTestApp((a) => (app = a));

const TITLE = "Evidence Trail";
const PAGES = 6;

interface RestChapter {
  number: string;
  file_ids: number[];
  pages: number;
  matched: number;
  matched_any_order: number;
  book_pages: [number, number] | null;
  in_order: boolean;
}
interface RestBook {
  volume: string;
  file_id: number;
  pages: number;
  chapters: RestChapter[];
  proposal: { volume: string; chapters: string[] } | null;
}
interface RestEvidence {
  status: "ready" | "computing";
  progress: { done: number; total: number } | null;
  books: RestBook[];
}

let seriesId: number;
let firstAnswer: Response;

beforeAll(async () => {
  const s = await expectJson<{ id: number; folder: string }>(
    await app.api("/api/manga", { method: "POST", json: { title: TITLE, status: "finished", known_book_count: 3 } }),
    201,
  );
  seriesId = s.id;
  const dir = path.join(app.config.libraryRoot, s.folder);
  const ch: Buffer[][] = [];
  for (let n = 1; n <= 6; n++) {
    ch[n] = await chapterPages(TITLE, n, PAGES);
    // A blank page inside chapter 2: never evidence.
    if (n === 2) ch[n]!.splice(3, 0, await blankPage());
    await writePagesCbz(path.join(dir, chapterFileName(TITLE, n)), ch[n]!);
  }
  const seven = await chapterPages(TITLE, 7, PAGES);
  seven[2] = ch[2]![1] as Buffer; // the one shared page
  await writePagesCbz(path.join(dir, chapterFileName(TITLE, 7)), seven);

  const v1 = [
    await otherPage(TITLE, "cover"),
    ...(await Promise.all([...ch[1]!, ...ch[2]!, ...ch[3]!].map(rescanned))),
    await otherPage(TITLE, "credits"),
  ];
  await writePagesCbz(path.join(dir, bookFileName(TITLE, 1)), v1);
  const order = [4, 11, 2, 16, 7, 0, 13, 9, 15, 5, 1, 10, 17, 3, 8, 12, 6, 14];
  const pool = [...ch[4]!, ...ch[5]!, ...ch[6]!];
  await writePagesCbz(
    path.join(dir, bookFileName(TITLE, 2)),
    order.map((i) => pool[i] as Buffer),
  );
  const elsewhere = await Promise.all(Array.from({ length: 6 }, (_, i) => otherPage(TITLE, `story ${i}`)));
  await writePagesCbz(path.join(dir, bookFileName(TITLE, 3)), [...ch[4]!, ...ch[5]!, ...elsewhere]);
  expect((await scanLibrary(app)).errors).toEqual([]);
  firstAnswer = await app.api(`/api/manga/${seriesId}/page-evidence`);
});

const evidence = () =>
  eventually(
    async () => {
      const res = await app.api(`/api/manga/${seriesId}/page-evidence`);
      return { status: res.status, body: (await res.json()) as RestEvidence };
    },
    (r) => r.status === 200,
    "the page signatures",
  );
const book = (e: RestEvidence, volume: string) => e.books.find((b) => b.volume === volume)!;
const chapter = (b: RestBook, n: string) => b.chapters.find((c) => c.number === n);
const adoptUrl = (volume: string, dry: boolean) =>
  `/api/manga/${seriesId}/volumes/${volume}/page-evidence/adopt?dry_run=${dry}`;

describe("page evidence", () => {
  it("answers 202 with the progress while the signatures are computed, never reading archives itself", async () => {
    // Nothing asked for signatures before: the first answer only queues them.
    expect(firstAnswer.status).toBe(202);
    const body = (await firstAnswer.json()) as RestEvidence;
    expect(body).toEqual({ status: "computing", progress: { done: 0, total: 10 }, books: [] });
    const done = await evidence();
    expect(done.body.status).toBe("ready");
    // Cached by content: answering again opens no archive.
    const opens = archiveOpenCount();
    expect((await app.api(`/api/manga/${seriesId}/page-evidence`)).status).toBe(200);
    expect(archiveOpenCount()).toBe(opens);
  });

  it("finds chapters 1–3 in order inside the re-encoded, resized and cropped book 1, and proposes them", async () => {
    const { body } = await evidence();
    const v1 = book(body, "1");
    expect(v1.pages).toBe(20);
    // Book pages: the cover (1), chapter 1 (2–7), chapter 2 with its blank page (8–14), chapter 3
    // (15–20), the credits (21); blank pages are no evidence.
    expect(v1.chapters.filter((c) => c.in_order).map((c) => [c.number, c.pages, c.matched, c.book_pages])).toEqual([
      ["1", 6, 6, [2, 7]],
      ["2", 6, 6, [8, 14]],
      ["3", 6, 6, [15, 20]],
    ]);
    expect(v1.proposal).toEqual({ volume: "1", chapters: ["1", "2", "3"] });
    // The distractor shares one page with the book: never a match.
    const seven = chapter(v1, "7");
    expect(seven?.in_order ?? false).toBe(false);
  });

  it("a shuffled book: the chapters' pages are there, but not in order: no proposal", async () => {
    const { body } = await evidence();
    const v2 = book(body, "2");
    for (const n of ["4", "5", "6"]) {
      const c = chapter(v2, n)!;
      expect(c.matched_any_order).toBe(PAGES);
      expect(c.in_order).toBe(false);
    }
    expect(v2.proposal).toBeNull();
  });

  it("a book of another edition: chapters 4 and 5 are found, but a third of its pages are not them: no proposal", async () => {
    const { body } = await evidence();
    const v3 = book(body, "3");
    expect(v3.chapters.filter((c) => c.in_order).map((c) => c.number)).toEqual(["4", "5"]);
    expect(v3.proposal).toBeNull();
  });

  it("GraphQL gives the same evidence", async () => {
    const { body } = await evidence();
    const g = await app.gql<{ pageEvidence: { status: string; books: Record<string, unknown>[] } }>(
      `query($s: Int!) { pageEvidence(seriesId: $s) { status books { volume fileId pages proposal { volume chapters }
        chapters { number fileIds pages matched matchedAnyOrder bookPages inOrder } } } }`,
      { s: seriesId },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data?.pageEvidence.status).toBe("ready");
    expect(g.data?.pageEvidence.books).toEqual(
      body.books.map((b) => ({
        volume: b.volume,
        fileId: b.file_id,
        pages: b.pages,
        proposal: b.proposal,
        chapters: b.chapters.map((c) => ({
          number: c.number,
          fileIds: c.file_ids,
          pages: c.pages,
          matched: c.matched,
          matchedAnyOrder: c.matched_any_order,
          bookPages: c.book_pages,
          inOrder: c.in_order,
        })),
      })),
    );
  });

  it("no proposal, no adoption: 409 page_evidence_no_proposal (REST and GraphQL); an unknown book is 404", async () => {
    await evidence();
    await expectProblem(
      await app.api(adoptUrl("2", true), { method: "POST", json: {} }),
      409,
      "page_evidence_no_proposal",
    );
    const g = await app.gql(
      `mutation { previewPageEvidenceAdoption(seriesId: ${seriesId}, volume: "3") { confirmation } }`,
    );
    expect(g.errors?.[0]?.extensions).toMatchObject({ code: "page_evidence_no_proposal", status: 409 });
    await expectProblem(await app.api(adoptUrl("9", true), { method: "POST", json: {} }), 404, "book_not_owned");
  });

  it("adopts book 1: the preview changes nothing; the confirm saves the entry and records the proof, retiring nothing", async () => {
    await evidence();
    const mapBefore = await expectJson<{ revision: number }>(await app.api(`/api/manga/${seriesId}/chapter-map`), 200);
    const preview = await expectJson<{
      revision: number;
      entry: { volume: string; chapters: string[] };
      proof: { digest: string; chapters: string[]; note: string };
      coverage: { map_after: string };
      confirmation: string;
    }>(await app.api(adoptUrl("1", true), { method: "POST", json: {} }), 200);
    expect(preview.revision).toBe(mapBefore.revision);
    expect(preview.entry).toEqual({ volume: "1", chapters: ["1", "2", "3"] });
    expect(preview.proof.chapters).toEqual(["1", "2", "3"]);
    expect(preview.proof.note).toMatch(/^page evidence: chapters 1–3 found in order at pages 2–20/);
    const files = await app.ctx.db.libraryFile.findFirstOrThrow({ where: { seriesId, kind: "book", volume: "1" } });
    expect(preview.proof.digest).toBe(`sha256:${files.sha256}`);
    // A preview changes nothing.
    expect(
      (await expectJson<{ revision: number }>(await app.api(`/api/manga/${seriesId}/chapter-map`), 200)).revision,
    ).toBe(mapBefore.revision);
    const listed = await expectJson<{ volume: string; verified: boolean; suspect_reason: string }[]>(
      await app.api(`/api/manga/${seriesId}/verified-books`),
      200,
    );
    expect(listed.find((b) => b.volume === "1")).toMatchObject({ verified: false, suspect_reason: "hand import" });

    const done = await expectJson<{
      revision: number;
      verification: { verified: boolean; chapters: string[]; proof: { note: string; status: string } };
    }>(await app.api(adoptUrl("1", false), { method: "POST", json: { confirmation: preview.confirmation } }), 200);
    expect(done.revision).toBe(mapBefore.revision + 1);
    expect(done.verification).toMatchObject({
      verified: true,
      chapters: ["1", "2", "3"],
      proof: { status: "applies" },
    });
    expect(done.verification.proof.note).toBe(preview.proof.note);
    const map = await expectJson<{ revision: number; entries: { volume: string; chapters: string[] }[] }>(
      await app.api(`/api/manga/${seriesId}/chapter-map`),
      200,
    );
    expect(map.entries).toEqual([{ volume: "1", chapters: ["1", "2", "3"] }]);

    // A proof recorded this way behaves like a typed one: the book covers, never retires a file.
    // (Chapters 4–7 are owned outside every book of this finished series: the map is partial, so
    // no book counts as covered yet; book 1 holds its chapters and shows no doubt.)
    const units = await expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);
    expect(units.map).toBe("partial");
    expect(units.units.find((x) => x.kind === "book" && x.number === "1")).toMatchObject({
      problems: [],
      duplicate_file_ids: [],
    });
    for (const n of ["1", "2", "3"]) {
      const u = units.units.find((x) => x.kind === "chapter" && x.number === n)!;
      expect(u).toMatchObject({ book: "1", coverage: null, duplicate_file_ids: [] });
    }
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId, state: { not: "active" } } })).toBe(0);

    // The token was for that map revision: used again, 409.
    await expectProblem(
      await app.api(adoptUrl("1", false), { method: "POST", json: { confirmation: preview.confirmation } }),
      409,
      "map_revision_stale",
    );
  });

  it("a confirmation is refused when the map or the book changed since the preview, or is for another book", async () => {
    // Withdraw the proof so book 1 can be adopted again.
    expect((await app.api(`/api/manga/${seriesId}/volumes/1/verification`, { method: "DELETE" })).status).toBe(204);
    const p1 = await expectJson<{ confirmation: string; revision: number }>(
      await app.api(adoptUrl("1", true), { method: "POST", json: {} }),
      200,
    );
    // The map changes meanwhile: book 2 gets an (unknown) entry.
    await expectJson(
      await app.api(`/api/manga/${seriesId}/chapter-map`, {
        method: "PUT",
        json: {
          revision: p1.revision,
          entries: [
            { volume: "1", chapters: ["1", "2", "3"] },
            { volume: "2", chapters: [] },
          ],
        },
      }),
      200,
    );
    await expectProblem(
      await app.api(adoptUrl("1", false), { method: "POST", json: { confirmation: p1.confirmation } }),
      409,
      "map_revision_stale",
    );
    const p2 = await expectJson<{ confirmation: string }>(
      await app.api(adoptUrl("1", true), { method: "POST", json: {} }),
      200,
    );
    await expectProblem(
      await app.api(adoptUrl("3", false), { method: "POST", json: { confirmation: p2.confirmation } }),
      400,
      "confirmation_invalid",
    );
    // The book's content changes (a rescan records it): its digest is no longer the previewed one.
    const row = await app.ctx.db.libraryFile.findFirstOrThrow({ where: { seriesId, kind: "book", volume: "1" } });
    const v1 = path.join(app.config.libraryRoot, ...row.path.split("/"));
    await writePagesCbz(v1, [await otherPage(TITLE, "new cover"), ...(await chapterPages(TITLE, 1, PAGES))]);
    await scanLibrary(app);
    await expectProblem(
      await app.api(adoptUrl("1", false), { method: "POST", json: { confirmation: p2.confirmation } }),
      409,
      "digest_stale",
    );
    expect(await app.ctx.db.verification.count({ where: { seriesId } })).toBe(0);
  });
});
