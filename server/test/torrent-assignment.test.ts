/**
 * Explicit assignment of a torrent's files to books, from an empty service through the public API
 * only (REST and GraphQL) with a Prowlarr- and a qBittorrent-compatible server on 127.0.0.1: the
 * Wanted pass grabs a pack for books 1–3, the scheduled poll imports book 1 (the only file named
 * for it) and leaves book 2 (no file named for it) and book 3 (two files named for it) waiting
 * (`needs_explicit_assignment`); the operator lists the files, is refused for what cannot be
 * assigned (nothing changes), assigns a file per book, and the job ends imported.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProwlarr, type FakeProwlarr } from "./fakes/prowlarr-server.ts";
import { makeTorrent, startFakeQbittorrent, type FakeQbt } from "./fakes/qbittorrent-server.ts";
import { expectJson, expectProblem, unitOf, type RestUnits, useIndexer } from "./fixtures.ts";
import { untilFound } from "./downloads-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const KEY = "prowlarr-key-assignment";
const PASSWORD = "qbt-password-assignment";
const ROOT = "Reef Line v01-03 (Digital)";
const pack = makeTorrent(ROOT, [
  { path: "Reef Line v01.cbz", pages: 2 },
  { path: "Reef Line - Second Book.cbz", pages: 3 },
  { path: "Reef Line v03.cbz", pages: 2 },
  { path: "Reef Line v03 (alt scan).cbz", pages: 4 },
  { path: "Reef Line - Broken.cbz" }, // not an archive inside
  { path: "Reef Line v04.pdf" },
  { path: "Reef Line.nfo" },
]);
const name = (file: string) => `${ROOT}/${file}`;

interface Job {
  id: number;
  state: string;
  books: string[];
  imported_file_ids: number[];
  pending: { book: string; reason: string; detail: string }[];
  error: string | null;
}

/** The GraphQL answer in the REST shape, to compare the two. */
function snake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snake);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)]),
  );
}

const JOB_FIELDS = `id seriesId infoHash title indexer books state contentPath importedFileIds retention error
  pending { book reason detail } createdAt updatedAt`;

describe("explicit assignment of a torrent's files to books", () => {
  let app: TestApp;
  let prowlarr: FakeProwlarr;
  let qbt: FakeQbt;
  let seriesId: number;
  let jobId: number;

  const jobs = async () => expectJson<Job[]>(await app.api(`/api/torrents?series_id=${seriesId}`), 200);
  const owned = async () => {
    const u = await expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);
    return ["1", "2", "3"].map((n) => unitOf(u, "book", n).owned);
  };
  const assign = (id: number, json: unknown) => app.api(`/api/torrents/${id}/assign`, { method: "POST", json });

  beforeAll(async () => {
    app = await createTestApp({ env: { WANTED_INTERVAL_SECONDS: "1" } });
    const diskRoot = path.join(app.dir, "client-downloads");
    mkdirSync(diskRoot, { recursive: true });
    prowlarr = await startFakeProwlarr({
      apiKey: KEY,
      releases: [{ title: ROOT, size: 90 * 1024 * 1024, torrent: pack.bytes, infoHash: pack.infoHash }],
    });
    qbt = await startFakeQbittorrent({
      dialect: "5.2",
      password: PASSWORD,
      clientRoot: "/downloads",
      diskRoot,
      catalogue: [pack],
      completeAfterMs: 20,
    });
    await useIndexer(app, {
      prowlarrUrl: prowlarr.url,
      apiKey: KEY,
      qbittorrentUrl: qbt.url,
      password: PASSWORD,
      diskRoot,
      retention: "remove_after_import",
    });
  });
  afterAll(async () => {
    await app.dispose();
    await prowlarr.close();
    await qbt.close();
  });

  it("imports the book one file is named for and leaves the others waiting, saying why", async () => {
    seriesId = (
      await expectJson<{ id: number }>(
        await app.api("/api/manga", {
          method: "POST",
          json: { title: "Reef Line", status: "finished", known_book_count: 3 },
        }),
        201,
      )
    ).id;
    await expectJson(await app.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }), 200);
    const [job] = await jobs();
    expect(job).toMatchObject({ books: ["1", "2", "3"], state: "added" });
    jobId = job!.id;

    const waiting = await untilFound("the job to await an assignment", async () => {
      const [j] = await jobs();
      return j?.state === "awaiting_assignment" ? j : undefined;
    });
    expect(waiting.pending.map((p) => [p.book, p.reason])).toEqual([
      ["2", "not_found_by_name"],
      ["3", "ambiguous"],
    ]);
    expect(waiting.pending[1]!.detail).toContain("Reef Line v03 (alt scan).cbz");
    expect(waiting.imported_file_ids).toHaveLength(1);
    expect(await owned()).toEqual([true, false, false]);
    // Waiting for the operator: the torrent stays in the client, and is not searched again.
    expect(qbt.deleted).toEqual([]);
    expect(prowlarr.requests.length).toBeGreaterThan(0);
    const searches = prowlarr.requests.length;
    await expectJson(await app.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }), 200);
    expect(prowlarr.requests.length).toBe(searches);
    expect(await jobs()).toHaveLength(1);

    // REST and GraphQL list the job the same way.
    const gql = await app.gql<{ torrentJobs: unknown[] }>(
      `query($id: Int) { torrentJobs(seriesId: $id) { ${JOB_FIELDS} } }`,
      {
        id: seriesId,
      },
    );
    expect(snake(gql.data?.torrentJobs)).toEqual(await jobs());
  });

  it("lists the torrent's files with the book each is named for, the same through both", async () => {
    const rest = await expectJson<{ job: Job; files: Record<string, unknown>[] }>(
      await app.api(`/api/torrents/${jobId}/files`),
      200,
    );
    expect(rest.job).toMatchObject({ id: jobId, state: "awaiting_assignment" });
    expect(rest.files.map((f) => [f.name, f.named_book, f.format, f.assignable, f.refusal])).toEqual([
      [name("Reef Line - Broken.cbz"), null, "archive", true, null],
      [name("Reef Line - Second Book.cbz"), null, "archive", true, null],
      [name("Reef Line v01.cbz"), "1", "archive", true, null],
      [name("Reef Line v03 (alt scan).cbz"), "3", "archive", true, null],
      [name("Reef Line v03.cbz"), "3", "archive", true, null],
      [name("Reef Line v04.pdf"), "4", "other_book", false, "unsupported_format"],
      [name("Reef Line.nfo"), null, "other", false, "unsupported_format"],
    ]);
    const gql = await app.gql<{ torrentFiles: unknown }>(
      `query($id: Int!) { torrentFiles(id: $id) { job { ${JOB_FIELDS} } files { name size progress namedBook format assignable refusal } } }`,
      { id: jobId },
    );
    expect(snake(gql.data?.torrentFiles)).toEqual(rest);
    await expectProblem(await app.api(`/api/torrents/99999/files`), 404, "torrent_job_not_found");
  });

  it("refuses what cannot be assigned with the same code through both, changing nothing", async () => {
    const before = await jobs();
    const cases: [unknown, number, string][] = [
      [{ file: name("Reef Line v04.pdf"), book: "2" }, 422, "torrent_file_not_assignable"],
      [{ file: name("Reef Line v01.cbz"), book: "1" }, 409, "torrent_book_not_pending"],
      [{ file: name("nowhere.cbz"), book: "2" }, 422, "torrent_file_not_found"],
      [{ file: "../../etc/passwd", book: "2" }, 422, "torrent_file_not_found"],
      [{ file: name("Reef Line v03.cbz"), book: "two" }, 400, "invalid_label"],
      [
        {
          assignments: [
            { file: name("Reef Line v03.cbz"), book: "3" },
            { file: name("Reef Line v03.cbz"), book: "2" },
          ],
        },
        400,
        "invalid_field",
      ],
      // All or nothing: a valid assignment next to a refused one is not made either.
      [
        {
          assignments: [
            { file: name("Reef Line - Second Book.cbz"), book: "2" },
            { file: name("Reef Line v04.pdf"), book: "3" },
          ],
        },
        422,
        "torrent_file_not_assignable",
      ],
    ];
    for (const [body, status, code] of cases) await expectProblem(await assign(jobId, body), status, code);
    const viaGql = await app.gql(
      `mutation($id: Int!, $f: String!) { assignTorrentFiles(id: $id, assignments: [{ file: $f, book: "2" }]) { state } }`,
      { id: jobId, f: name("Reef Line.nfo") },
    );
    expect(viaGql.errors?.[0]?.extensions?.code).toBe("torrent_file_not_assignable");
    await expectProblem(await assign(99999, { file: "x.cbz", book: "2" }), 404, "torrent_job_not_found");
    expect(await jobs()).toEqual(before);
    expect(await owned()).toEqual([true, false, false]);
  });

  it("keeps a book waiting when its file fails the hardened import, and says why", async () => {
    const p = await expectProblem(
      await assign(jobId, { file: name("Reef Line - Broken.cbz"), book: "2" }),
      422,
      "archive_unreadable",
    );
    expect(p.detail).toBeTruthy();
    const [job] = await jobs();
    expect(job).toMatchObject({ state: "awaiting_assignment" });
    expect(job!.pending.map((x) => x.book)).toEqual(["2", "3"]);
    expect(await owned()).toEqual([true, false, false]);
  });

  it("imports an assigned file as the book (REST), then the last one (GraphQL): the job is done", async () => {
    const afterRest = await expectJson<Job>(
      await assign(jobId, { file: name("Reef Line - Second Book.cbz"), book: "2" }),
      200,
    );
    expect(afterRest).toMatchObject({ state: "awaiting_assignment" });
    expect(afterRest.pending.map((x) => x.book)).toEqual(["3"]);
    expect(afterRest.imported_file_ids).toHaveLength(2);
    expect(await owned()).toEqual([true, true, false]);

    const viaGql = await app.gql<{
      assignTorrentFiles: { state: string; pending: unknown[]; importedFileIds: number[] };
    }>(
      `mutation($id: Int!, $f: String!) { assignTorrentFiles(id: $id, assignments: [{ file: $f, book: "3" }]) { state pending { book } importedFileIds } }`,
      { id: jobId, f: name("Reef Line v03 (alt scan).cbz") },
    );
    expect(viaGql.errors).toBeUndefined();
    expect(viaGql.data?.assignTorrentFiles).toMatchObject({ state: "imported", pending: [] });
    expect(viaGql.data?.assignTorrentFiles.importedFileIds).toHaveLength(3);
    expect(await owned()).toEqual([true, true, true]);

    // The files are the ones assigned: book 2 has the three pages of "Second Book", book 3 the four of the alt scan.
    const files = await app.ctx.db.libraryFile.findMany({ where: { seriesId }, orderBy: { volume: "asc" } });
    expect(files.map((f) => [f.volume, f.pageCount, f.origin])).toEqual([
      ["1", 2, "download"],
      ["2", 3, "download"],
      ["3", 4, "download"],
    ]);
    // Retention runs as after an automatic import.
    await untilFound("the torrent to be removed", async () =>
      (await jobs())[0]?.state === "removed" ? true : undefined,
    );
    expect(qbt.deleted).toEqual([{ hashes: [pack.infoHash], deleteFiles: true }]);
    await expectProblem(
      await assign(jobId, { file: name("Reef Line v03.cbz"), book: "3" }),
      409,
      "torrent_job_not_awaiting_assignment",
    );
  });
});
