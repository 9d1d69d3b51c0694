/**
 * Suwayomi's four auth modes against the Suwayomi-compatible server on 127.0.0.1: basic, simple
 * login (session cookie, logged in again when the session lapses), UI login (JWT access token
 * renewed with the refresh token near its expiry, a refused token renewed and the call retried, an
 * expired refresh token logging in again). The clocks of the client and the server are one
 * variable the test moves: nothing waits for time to pass. Then the settings: the password only in
 * the secrets file, and a chapter fetched through the registry with UI login.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError } from "../src/providers/provider.ts";
import { jwtExpiry, SuwayomiClient, type SuwayomiAuth } from "../src/providers/suwayomi-client.ts";
import { SuwayomiProvider } from "../src/providers/suwayomi.ts";
import { expectJson } from "./fixtures.ts";
import { downloadsOf, FAST_ENV, settled, until } from "./downloads-fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeAuth,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp } from "./utils.ts";

const SRC: FakeSource = { id: "7401", name: "Locked Scans", lang: "en" };
const USER = { username: "reader", password: "s3cret pass" };
let clock = Date.UTC(2026, 0, 1);
const now = () => clock;

async function fakeWith(mode: FakeAuth["mode"], over: Partial<FakeAuth> = {}): Promise<FakeSuwayomi> {
  return startFakeSuwayomi({
    sources: [SRC],
    works: [
      fakeWork({
        id: 11,
        title: "Locked Garden",
        source: SRC,
        chapters: [fakeChapter({ chapterNumber: 1, pages: await drawnChapter(3, 1) })],
      }),
    ],
    auth: { ...USER, mode, now, ...over },
  });
}

const providerOf = (fake: FakeSuwayomi, auth: SuwayomiAuth) =>
  new SuwayomiProvider(new SuwayomiClient({ baseUrl: fake.url, auth, now }), SRC);

/** Lists the work's chapters and fetches its first page: every kind of call the pipeline makes. */
async function use(p: SuwayomiProvider): Promise<number> {
  const chapters = await p.listChapters("11");
  const pages = await p.pages("11", chapters[0]!.externalId);
  return (await pages.fetch(1)).bytes.length;
}

describe("Suwayomi auth modes", () => {
  const fakes: FakeSuwayomi[] = [];
  afterAll(async () => {
    await Promise.all(fakes.map((f) => f.close()));
  });
  const start = async (...args: Parameters<typeof fakeWith>) => {
    const f = await fakeWith(...args);
    fakes.push(f);
    return f;
  };

  it("basic auth sends the header; without it the server refuses", async () => {
    const fake = await start("basic");
    expect(await use(providerOf(fake, { kind: "basic", ...USER }))).toBeGreaterThan(0);
    const refused = await use(providerOf(fake, { kind: "none" })).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: "ProviderError", status: 401, transient: false });
  });

  it("simple login: logs in once, keeps the session, logs in again once when it lapses; a wrong password is refused", async () => {
    const fake = await start("simple_login");
    const p = providerOf(fake, { kind: "simple_login", ...USER });
    expect(await use(p)).toBeGreaterThan(0);
    expect(await use(p)).toBeGreaterThan(0);
    expect(fake.logins).toBe(1);
    fake.expireSessions();
    expect(await use(p)).toBeGreaterThan(0);
    expect(fake.logins).toBe(2);
    expect(fake.requests.filter((r) => r.endsWith("unauthorized"))).toHaveLength(1);

    const wrong = await use(providerOf(fake, { kind: "simple_login", username: "reader", password: "nope" })).catch(
      (e: unknown) => e,
    );
    expect(wrong).toBeInstanceOf(ProviderError);
    expect(wrong).toMatchObject({ status: 401, transient: false });
    expect((wrong as Error).message).toMatch(/login refused/);
    expect((wrong as Error).message).not.toContain("nope");
  });

  it("UI login: renews the access token before it expires, and again after a refusal; an expired refresh token logs in again", async () => {
    const fake = await start("ui_login", { accessTtlMs: 5 * 60_000, refreshTtlMs: 24 * 3_600_000 });
    const client = new SuwayomiClient({ baseUrl: fake.url, auth: { kind: "ui_login", ...USER }, now });
    const p = new SuwayomiProvider(client, SRC);
    expect(await use(p)).toBeGreaterThan(0);
    expect([fake.logins, fake.refreshes]).toEqual([1, 0]);

    // 4 min 40 s later: within the margin of the 5-minute token, renewed before the call.
    clock += 4 * 60_000 + 40_000;
    expect(await use(p)).toBeGreaterThan(0);
    expect([fake.logins, fake.refreshes]).toEqual([1, 1]);
    expect(fake.requests.some((r) => r.endsWith("unauthorized"))).toBe(false);

    // The server stops accepting the issued access tokens: refused once, renewed, retried.
    fake.revokeAccessTokens();
    expect(await use(p)).toBeGreaterThan(0);
    expect([fake.logins, fake.refreshes]).toEqual([1, 2]);
    expect(fake.requests.filter((r) => r.endsWith("unauthorized"))).toHaveLength(1);

    // Two days later the refresh token has expired too: a new login.
    clock += 2 * 24 * 3_600_000;
    expect(await use(p)).toBeGreaterThan(0);
    expect(fake.logins).toBe(2);

    const wrong = await use(providerOf(fake, { kind: "ui_login", username: "reader", password: "nope" })).catch(
      (e: unknown) => e,
    );
    expect(wrong).toMatchObject({ name: "ProviderError", status: 401, transient: false });
  });

  it("reads a JWT's expiry without trusting it", () => {
    const token = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;
    expect(jwtExpiry(token({ exp: 1_800_000_000 }))).toBe(1_800_000_000_000);
    expect(jwtExpiry(token({}))).toBeNull();
    expect(jwtExpiry("not a token")).toBeNull();
  });
});

describe("UI login through the settings and the registry", () => {
  let fake: FakeSuwayomi;
  beforeAll(async () => {
    fake = await fakeWith("ui_login", { now: Date.now });
  });
  afterAll(() => fake.close());

  it("keeps the password in the secrets file only, and a linked chapter arrives", async () => {
    const app = await createTestApp({ env: FAST_ENV });
    try {
      const view = await expectJson<{ suwayomi: { auth: string; password: string; configured: boolean } }>(
        await app.api("/api/settings/sources", {
          method: "PUT",
          json: { suwayomi: { enabled: true, url: fake.url, auth: "ui_login", ...USER } },
        }),
        200,
      );
      expect(view.suwayomi).toMatchObject({ auth: "ui_login", configured: true, password: "••••" });
      const secrets = await readFile(path.join(app.config.dataDir, "secrets.json"), "utf8");
      expect(secrets).toContain(USER.password);
      const rows = await app.ctx.db.setting.findMany();
      expect(JSON.stringify(rows)).not.toContain(USER.password);

      const s = await expectJson<{ id: number }>(
        await app.api("/api/manga", { method: "POST", json: { title: "Locked Garden" } }),
        201,
      );
      await expectJson(
        await app.api(`/api/manga/${s.id}/sources`, {
          method: "POST",
          json: { provider: SRC.id, source_id: "11", language: "en" },
        }),
        201,
      );
      const [row] = await until("published", () => downloadsOf(app, s.id), settled);
      expect(row).toMatchObject({ chapter: "1", state: "published" });
      expect(fake.logins).toBe(1);
    } finally {
      await app.dispose();
    }
  });
});
