/** Settings and jobs of the indexer/torrent channel through REST and GraphQL: same service, same answers, secrets masked. */
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProwlarr, type FakeProwlarr } from "./fakes/prowlarr-server.ts";
import { startFakeQbittorrent, type FakeQbt } from "./fakes/qbittorrent-server.ts";
import { expectJson, expectProblem } from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

const SETTINGS_QUERY = `{ indexerSettings { active
  prowlarr { enabled url apiKey apiKeySet }
  qbittorrent { enabled url username password passwordSet category tag savePath mount { clientPath localPath } retention } } }`;

/** The GraphQL answer in the REST shape, to compare the two. */
function snake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snake);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)]),
  );
}

describe("indexer settings API", () => {
  let app: TestApp;
  shareTestApp((a) => (app = a));
  const get = async () => expectJson<Record<string, unknown>>(await app.api("/api/settings/indexer"), 200);
  const put = (json: unknown) => app.api("/api/settings/indexer", { method: "PUT", json });

  it("is off by default, with the documented defaults", async () => {
    expect(await get()).toEqual({
      prowlarr: { enabled: false, url: null, api_key: null, api_key_set: false },
      qbittorrent: {
        enabled: false,
        url: null,
        username: null,
        password: null,
        password_set: false,
        category: "manga-library",
        tag: "manga-library",
        save_path: null,
        mount: null,
        retention: "keep_seeding",
      },
      active: false,
    });
  });

  it("stores secrets masked, keeps them when the mask or nothing comes back, clears them with null; REST and GraphQL agree", async () => {
    const body = await expectJson<Record<string, { api_key?: string; api_key_set?: boolean; password?: string }>>(
      await put({
        prowlarr: { enabled: true, url: "http://127.0.0.1:9696/", api_key: "k-123-secret" },
        qbittorrent: {
          enabled: true,
          url: "http://127.0.0.1:8081",
          username: "admin",
          password: "p-456-secret",
          mount: { client_path: "/downloads/", local_path: "/srv/torrents" },
        },
      }),
      200,
    );
    expect(body.prowlarr).toEqual({ enabled: true, url: "http://127.0.0.1:9696", api_key: "••••", api_key_set: true });
    expect(body.qbittorrent?.password).toBe("••••");
    expect(body.active).toBe(true);
    expect(JSON.stringify(body)).not.toMatch(/secret/);
    const secretsFile = path.join(app.config.dataDir, "secrets.json");
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);

    // The form sends back the mask: the key stays.
    await expectJson(
      await put({ prowlarr: { api_key: "••••" }, qbittorrent: { retention: "remove_when_seeded" } }),
      200,
    );
    expect(app.ctx.secrets.getIntegrationSecret("prowlarr.apiKey")).toBe("k-123-secret");

    const gql = await app.gql<{ indexerSettings: unknown }>(SETTINGS_QUERY);
    expect(gql.errors).toBeUndefined();
    expect(snake(gql.data?.indexerSettings)).toEqual(await get());

    const viaGql = await app.gql<{ updateIndexerSettings: { active: boolean; qbittorrent: { passwordSet: boolean } } }>(
      `mutation { updateIndexerSettings(input: { qbittorrent: { password: null } }) { active qbittorrent { passwordSet } } }`,
    );
    expect(viaGql.data?.updateIndexerSettings).toEqual({ active: false, qbittorrent: { passwordSet: false } });
    expect(app.ctx.secrets.getIntegrationSecret("qbittorrent.password")).toBeNull();
    expect((await get()).active).toBe(false);
  });

  it("refuses invalid values with the same code through both transports, writing nothing", async () => {
    const before = await get();
    for (const bad of [
      { prowlarr: { url: "ftp://x" } },
      { prowlarr: { url: "http://u:p@x" } },
      { prowlarr: { enabled: "yes" } },
      { qbittorrent: { retention: "delete_everything" } },
      { qbittorrent: { mount: { client_path: "relative", local_path: "/x" } } },
      { qbittorrent: { mount: { client_path: "/a/../b", local_path: "/x" } } },
      { qbittorrent: { category: "a/b" } },
      { qbittorrent: { tag: "a,b" } },
    ]) {
      await expectProblem(await put(bad), 400, "invalid_field");
    }
    await expectProblem(await put([]), 400, "bad_request");
    const gql = await app.gql(
      `mutation { updateIndexerSettings(input: { qbittorrent: { retention: "nope" } }) { active } }`,
    );
    expect(gql.errors?.[0]?.extensions?.code).toBe("invalid_field");
    expect(await get()).toEqual(before);
  });

  it("lists torrent jobs the same way through both; an unknown series is 404", async () => {
    const s = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Jobs Series" } }),
      201,
    );
    await app.ctx.db.torrentJob.create({
      data: {
        seriesId: s.id,
        infoHash: "a".repeat(40),
        title: "Jobs Series v01",
        books: '["1"]',
        retention: "keep_seeding",
      },
    });
    const rest = await expectJson<unknown[]>(await app.api(`/api/torrents?series_id=${s.id}`), 200);
    expect(rest).toEqual([
      expect.objectContaining({
        series_id: s.id,
        info_hash: "a".repeat(40),
        books: ["1"],
        state: "added",
        imported_file_ids: [],
      }),
    ]);
    const gql = await app.gql<{ torrentJobs: unknown[] }>(
      `query($id: Int) { torrentJobs(seriesId: $id) { id seriesId infoHash title indexer books state contentPath importedFileIds retention error pending { book reason detail } createdAt updatedAt } }`,
      { id: s.id },
    );
    expect(snake(gql.data?.torrentJobs)).toEqual(rest);
    await expectProblem(await app.api("/api/torrents?series_id=99999"), 404, "series_not_found");
    const missing = await app.gql(`{ torrentJobs(seriesId: 99999) { id } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe("series_not_found");
  });
});

describe("checking the saved connections (GET /api/settings/indexer/check, indexerCheck)", () => {
  let app: TestApp;
  shareTestApp((a) => (app = a));
  let prowlarr: FakeProwlarr;
  let qbt: FakeQbt;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mls-indexer-check-"));
    prowlarr = await startFakeProwlarr({ apiKey: "prowlarr-key-1", releases: [] });
    qbt = await startFakeQbittorrent({
      dialect: "5.1",
      password: "qbt-pass-1",
      clientRoot: "/downloads",
      diskRoot: dir,
      catalogue: [],
    });
  });
  afterAll(async () => {
    await prowlarr?.close();
    await qbt?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const CHECK = `{ indexerCheck { prowlarr { status detail indexers } qbittorrent { status detail version } } }`;
  /** The REST answer, after checking that GraphQL answers the same. */
  async function check(): Promise<{
    prowlarr: { status: string; detail: string | null; indexers: number | null };
    qbittorrent: { status: string; detail: string | null; version: string | null };
  }> {
    const rest = await expectJson<Awaited<ReturnType<typeof check>>>(await app.api("/api/settings/indexer/check"), 200);
    const gql = await app.gql<{ indexerCheck: unknown }>(CHECK);
    expect(gql.errors).toBeUndefined();
    const lower = JSON.parse(
      JSON.stringify(gql.data?.indexerCheck).replace(/"(OK|FAILED|OFF)"/g, (m) => m.toLowerCase()),
    );
    expect(lower).toEqual(rest);
    return rest;
  }

  it("says off before anything is set up, then what each one answered; a refusal or silence is the check's answer", async () => {
    expect(await check()).toMatchObject({
      prowlarr: { status: "off", indexers: null },
      qbittorrent: { status: "off" },
    });

    const put = (json: unknown) => app.api("/api/settings/indexer", { method: "PUT", json });
    await expectJson(
      await put({
        prowlarr: { enabled: true, url: prowlarr.url, api_key: "prowlarr-key-1" },
        qbittorrent: { enabled: true, url: qbt.url, username: "admin", password: "qbt-pass-1" },
      }),
      200,
    );
    // The fake lists two indexers, one of them disabled.
    expect(await check()).toEqual({
      prowlarr: { status: "ok", detail: null, indexers: 1 },
      qbittorrent: { status: "ok", detail: null, version: "v5.0.2" },
    });

    await expectJson(await put({ prowlarr: { api_key: "wrong-key" }, qbittorrent: { password: "wrong-pass" } }), 200);
    const refused = await check();
    expect(refused.prowlarr).toMatchObject({ status: "failed", indexers: null });
    expect(refused.prowlarr.detail).toContain("refused the API key");
    expect(refused.prowlarr.detail).not.toContain("wrong-key");
    expect(refused.qbittorrent).toMatchObject({ status: "failed", version: null });
    expect(refused.qbittorrent.detail).toContain("wrong user name or password");

    // Nothing listens any more: failed, with the reason, and this service still answers 200.
    await prowlarr.close();
    await expectJson(await put({ prowlarr: { api_key: "prowlarr-key-1" } }), 200);
    const silent = await check();
    expect(silent.prowlarr.status).toBe("failed");
    expect(silent.prowlarr.detail).toMatch(/Prowlarr/);
  });
});
