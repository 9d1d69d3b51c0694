/**
 * Failed torrent jobs and explicit assignment, probed from an empty service through REST and GraphQL
 * with a Prowlarr- and a qBittorrent-compatible server on 127.0.0.1: retry and dismiss only in the
 * states that allow them (otherwise 409 with a stable code and nothing changed; unknown id 404), the
 * GraphQL twins answering the same; an assignment to a book that is not waiting, of a file the
 * torrent does not hold, and the same assignment twice.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProwlarr, type FakeProwlarr } from "./fakes/prowlarr-server.ts";
import { makeTorrent, startFakeQbittorrent, type FakeQbt } from "./fakes/qbittorrent-server.ts";
import { expectJson, expectProblem, useIndexer } from "./fixtures.ts";
import { untilFound } from "./downloads-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const KEY = "prowlarr-key-loose";
const PASSWORD = "qbt-password-loose";
const SALT_ROOT = "Salt Road v01-02 (Digital)";
const saltPack = makeTorrent(SALT_ROOT, [
  { path: "Salt Road v01.cbz", pages: 2 },
  { path: "Salt Road v02.cbz", pages: 2 },
]);
const WAIT_ROOT = "Kite Hill v01-02 (Digital)";
const waitPack = makeTorrent(WAIT_ROOT, [
  { path: "Kite Hill v01.cbz", pages: 2 },
  { path: "Kite Hill - Extra Story.cbz", pages: 3 },
]);

interface Job {
  id: number;
  state: string;
  books: string[];
  imported_file_ids: number[];
  pending: { book: string; reason: string }[];
  error: string | null;
}

describe("torrent jobs: retry, dismiss and explicit assignment from outside", () => {
  let app: TestApp;
  let prowlarr: FakeProwlarr;
  let qbt: FakeQbt;
  const series: Record<string, number> = {};

  const jobsOf = async (id: number) => expectJson<Job[]>(await app.api(`/api/torrents?series_id=${id}`), 200);
  const all = async () => expectJson<Job[]>(await app.api(`/api/torrents`), 200);
  const post = (p: string, json?: unknown) => app.api(p, { method: "POST", ...(json === undefined ? {} : { json }) });
  const gqlCode = async (query: string, variables: Record<string, unknown>) =>
    (await app.gql(query, variables)).errors?.[0]?.extensions?.code;
  const RETRY = `mutation($id: Int!) { retryTorrentJob(id: $id) { id state } }`;
  const DISMISS = `mutation($id: Int!) { dismissTorrentJob(id: $id) { id state } }`;

  async function newSeries(title: string): Promise<number> {
    const s = await expectJson<{ id: number }>(
      await post("/api/manga", { title, status: "finished", known_book_count: 2 }),
      201,
    );
    await expectJson(await post(`/api/manga/${s.id}/wanted/run`), 200);
    return s.id;
  }

  beforeAll(async () => {
    app = await createTestApp({ env: { WANTED_INTERVAL_SECONDS: "1" } });
    const diskRoot = path.join(app.dir, "client-downloads");
    mkdirSync(diskRoot, { recursive: true });
    prowlarr = await startFakeProwlarr({
      apiKey: KEY,
      releases: [
        { title: SALT_ROOT, size: 40 * 1024 * 1024, torrent: saltPack.bytes, infoHash: saltPack.infoHash },
        { title: WAIT_ROOT, size: 40 * 1024 * 1024, torrent: waitPack.bytes, infoHash: waitPack.infoHash },
      ],
    });
    qbt = await startFakeQbittorrent({
      dialect: "5.2",
      password: PASSWORD,
      clientRoot: "/downloads",
      diskRoot,
      catalogue: [saltPack, waitPack],
      completeAfterMs: 100,
    });
    await useIndexer(app, {
      prowlarrUrl: prowlarr.url,
      apiKey: KEY,
      qbittorrentUrl: qbt.url,
      password: PASSWORD,
      diskRoot,
      retention: "keep_seeding",
    });
  });
  afterAll(async () => {
    await app?.dispose();
    await prowlarr?.close();
    await qbt?.close();
  });

  it("an unknown id: 404 torrent_job_not_found for retry, dismiss, files and assign, through both", async () => {
    await expectProblem(await post("/api/torrents/987654/retry"), 404, "torrent_job_not_found");
    await expectProblem(await post("/api/torrents/987654/dismiss"), 404, "torrent_job_not_found");
    await expectProblem(
      await post("/api/torrents/987654/dismiss", { remove_from_client: true }),
      404,
      "torrent_job_not_found",
    );
    await expectProblem(
      await post("/api/torrents/987654/assign", { file: "x.cbz", book: "1" }),
      404,
      "torrent_job_not_found",
    );
    expect(await gqlCode(RETRY, { id: 987654 })).toBe("torrent_job_not_found");
    expect(await gqlCode(DISMISS, { id: 987654 })).toBe("torrent_job_not_found");
    expect(await all()).toEqual([]);
  });

  it("a failed job: retried (REST) it fails again while the client is broken, retried (GraphQL) once fixed it imports", async () => {
    // The client reports the torrent's files missing until the test lets go (a broken disk, then fixed).
    let broken = true;
    const watch = setInterval(() => {
      const entry = qbt.torrents.get(saltPack.infoHash);
      if (!entry || Object.getOwnPropertyDescriptor(entry, "state")?.get) return;
      let real = entry.state;
      Object.defineProperty(entry, "state", {
        get: () => (broken ? "missingFiles" : real),
        set: (v: string) => (real = v),
        enumerable: true,
      });
    }, 2);
    try {
      series.salt = await newSeries("Salt Road");
      const failed = await untilFound("the job to fail", async () => {
        const [j] = await jobsOf(series.salt!);
        return j?.state === "failed" ? j : undefined;
      });
      expect(failed.error).toMatch(/missingFiles/);
      const retried = await expectJson<Job>(await post(`/api/torrents/${failed.id}/retry`), 200);
      expect(retried).toMatchObject({ id: failed.id, state: "added", error: null });
      const again = await untilFound("the retried job to fail again", async () => {
        const [j] = await jobsOf(series.salt!);
        return j?.state === "failed" ? j : undefined;
      });
      expect(again.error).toMatch(/missingFiles/);
      broken = false;
      const viaGql = await app.gql<{ retryTorrentJob: { id: number; state: string } }>(RETRY, { id: failed.id });
      expect(viaGql.errors).toBeUndefined();
      expect(viaGql.data?.retryTorrentJob).toEqual({ id: failed.id, state: "added" });
      const imported = await untilFound("the retried job to import", async () => {
        const [j] = await jobsOf(series.salt!);
        return j?.state === "imported" ? j : undefined;
      });
      expect(imported.imported_file_ids).toHaveLength(2);
    } finally {
      clearInterval(watch);
    }
    const [job] = await jobsOf(series.salt!);
    await expectProblem(await post(`/api/torrents/${job!.id}/retry`), 409, "torrent_job_not_retryable");
    expect(await jobsOf(series.salt!)).toEqual([job]);
    const dismissed = await app.gql<{ dismissTorrentJob: { id: number; state: string } }>(DISMISS, { id: job!.id });
    expect(dismissed.errors).toBeUndefined();
    expect(dismissed.data?.dismissTorrentJob).toEqual({ id: job!.id, state: "dismissed" });
    const before = await jobsOf(series.salt!);
    // A dismissed job can be neither retried nor dismissed again; nothing changes.
    await expectProblem(await post(`/api/torrents/${job!.id}/retry`), 409, "torrent_job_not_retryable");
    await expectProblem(await post(`/api/torrents/${job!.id}/dismiss`), 409, "torrent_job_not_dismissable");
    expect(await gqlCode(RETRY, { id: job!.id })).toBe("torrent_job_not_retryable");
    expect(await gqlCode(DISMISS, { id: job!.id })).toBe("torrent_job_not_dismissable");
    expect(await jobsOf(series.salt!)).toEqual(before);
  });

  it("a job awaiting an assignment: not retryable; a wrong book, a foreign file, then the right one, twice", async () => {
    series.kite = await newSeries("Kite Hill");
    const waiting = await untilFound("the pack to await an assignment", async () => {
      const [j] = await jobsOf(series.kite!);
      return j?.state === "awaiting_assignment" ? j : undefined;
    });
    expect(waiting.pending.map((p) => [p.book, p.reason])).toEqual([["2", "not_found_by_name"]]);
    const before = await jobsOf(series.kite!);
    const file = `${WAIT_ROOT}/Kite Hill - Extra Story.cbz`;
    await expectProblem(await post(`/api/torrents/${waiting.id}/retry`), 409, "torrent_job_not_retryable");
    expect(await gqlCode(RETRY, { id: waiting.id })).toBe("torrent_job_not_retryable");
    const refused: [unknown, number, string][] = [
      [{ file, book: "7" }, 409, "torrent_book_not_pending"],
      [{ file, book: "1" }, 409, "torrent_book_not_pending"],
      [{ file, book: "" }, 400, "invalid_label"],
      [{ file, book: "-2" }, 400, "invalid_label"],
      [{ file: `${SALT_ROOT}/Salt Road v02.cbz`, book: "2" }, 422, "torrent_file_not_found"],
      [{ file: "Kite Hill - Extra Story.cbz", book: "2" }, 422, "torrent_file_not_found"],
      [{ file: `${WAIT_ROOT}/../${WAIT_ROOT}/Kite Hill - Extra Story.cbz`, book: "2" }, 422, "torrent_file_not_found"],
      [{ assignments: [] }, 400, "invalid_field"],
      [{ book: "2" }, 400, "invalid_field"],
    ];
    for (const [body, status, code] of refused) {
      const res = await post(`/api/torrents/${waiting.id}/assign`, body);
      expect([res.status, JSON.stringify(body)]).toEqual([status, JSON.stringify(body)]);
      await expectProblem(res, status, code);
    }
    const gqlWrongBook = await gqlCode(
      `mutation($id: Int!, $f: String!) { assignTorrentFiles(id: $id, assignments: [{ file: $f, book: "7" }]) { state } }`,
      { id: waiting.id, f: file },
    );
    expect(gqlWrongBook).toBe("torrent_book_not_pending");
    expect(await jobsOf(series.kite!)).toEqual(before);

    const done = await expectJson<Job>(await post(`/api/torrents/${waiting.id}/assign`, { file, book: "2" }), 200);
    expect(done).toMatchObject({ state: "imported", pending: [] });
    expect(done.imported_file_ids).toHaveLength(2);
    // The same assignment twice: the job no longer waits; nothing is imported again.
    await expectProblem(
      await post(`/api/torrents/${waiting.id}/assign`, { file, book: "2" }),
      409,
      "torrent_job_not_awaiting_assignment",
    );
    const after = await jobsOf(series.kite!);
    expect(after).toEqual([done]);
    // Imported and kept seeding: not retryable, dismissable (REST), then neither.
    await expectProblem(await post(`/api/torrents/${waiting.id}/retry`), 409, "torrent_job_not_retryable");
    // A dismissal with a body it cannot read is refused and changes nothing.
    await expectProblem(
      await post(`/api/torrents/${waiting.id}/dismiss`, { remove_from_client: "yes" }),
      400,
      "invalid_field",
    );
    await expectProblem(await post(`/api/torrents/${waiting.id}/dismiss`, ["remove"]), 400, "bad_request");
    const malformed = await app.api(`/api/torrents/${waiting.id}/dismiss`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{remove_from_client",
    });
    await expectProblem(malformed, 400, "bad_request");
    expect(await jobsOf(series.kite!)).toEqual([done]);
    expect(await expectJson<Job>(await post(`/api/torrents/${waiting.id}/dismiss`), 200)).toMatchObject({
      state: "dismissed",
    });
    await expectProblem(await post(`/api/torrents/${waiting.id}/dismiss`), 409, "torrent_job_not_dismissable");
  });

  it("ids that are not ids are refused as bad input", async () => {
    for (const bad of ["abc", "0", "-1", "1.5"]) {
      const res = await post(`/api/torrents/${bad}/retry`);
      expect(res.status, bad).toBeGreaterThanOrEqual(400);
      expect(res.status, bad).toBeLessThan(500);
    }
  });
});
