/**
 * Suwayomi's four auth modes probed from an empty service through REST and GraphQL against the
 * Suwayomi-compatible server on 127.0.0.1 (real clock): the settings answer the same through both and
 * never echo the password; every mode lists the server's sources and searches a work; UI login renews
 * an access token near its expiry and after a refusal, and logs in again once the refresh token has
 * expired; wrong credentials answer 502 `provider_failed` with the upstream's status beside it, never
 * as the service's own status and never with the password in it.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson, expectProblem } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeAuth,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SRC: FakeSource = { id: "7711", name: "Gate Scans", lang: "en" };
const USER = { username: "keeper", password: "p4ss-Wörd-7711" };
type Mode = "none" | "basic" | "simple_login" | "ui_login";

async function fakeFor(mode: Mode, over: Partial<FakeAuth> = {}): Promise<FakeSuwayomi> {
  return startFakeSuwayomi({
    sources: [SRC],
    works: [
      fakeWork({
        id: 21,
        title: "Gate Keeper",
        source: SRC,
        chapters: [fakeChapter({ chapterNumber: 1, pages: await drawnChapter(2, 5) })],
      }),
    ],
    ...(mode === "none" ? {} : { auth: { ...USER, mode, ...over } }),
  });
}

interface RestSettings {
  suwayomi: {
    enabled: boolean;
    url: string | null;
    auth: string;
    username: string | null;
    password: string | null;
    password_set: boolean;
    configured: boolean;
  };
}

const SETTINGS_GQL = `{ sourceSettings { suwayomi { enabled url auth username password passwordSet configured } } }`;
const UPDATE_GQL = `mutation($input: SourceSettingsInput!) { updateSourceSettings(input: $input) { suwayomi { enabled url auth username password passwordSet configured } } }`;

describe("Suwayomi auth modes from outside", () => {
  let app: TestApp;
  const fakes: FakeSuwayomi[] = [];
  let seriesId: number;
  beforeAll(async () => {
    app = await createTestApp();
    seriesId = (
      await expectJson<{ id: number }>(
        await app.api("/api/manga", { method: "POST", json: { title: "Gate Keeper" } }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    await app?.dispose();
    await Promise.all(fakes.map((f) => f.close()));
  });
  const start = async (mode: Mode, over: Partial<FakeAuth> = {}) => {
    const f = await fakeFor(mode, over);
    fakes.push(f);
    return f;
  };

  /** Reads the settings both ways: they agree and never hold the password. */
  async function readBoth(): Promise<RestSettings["suwayomi"]> {
    const res = await app.api("/api/settings/sources");
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain(USER.password);
    expect(text).not.toContain("wrong-");
    const rest = (JSON.parse(text) as RestSettings).suwayomi;
    const gql = await app.gql<{ sourceSettings: { suwayomi: Record<string, unknown> } }>(SETTINGS_GQL);
    expect(JSON.stringify(gql)).not.toContain(USER.password);
    const g = gql.data!.sourceSettings.suwayomi;
    expect({ ...g, auth: String(g.auth).toLowerCase() }).toEqual({
      enabled: rest.enabled,
      url: rest.url,
      auth: rest.auth,
      username: rest.username,
      password: rest.password,
      passwordSet: rest.password_set,
      configured: rest.configured,
    });
    return rest;
  }

  /** The calls the service makes with the connection: the sources list and a search. */
  async function use(): Promise<void> {
    const sources = await expectJson<{ id: string }[]>(await app.api("/api/providers/suwayomi/sources?lang=en"), 200);
    expect(sources.map((s) => s.id)).toContain(SRC.id);
    const found = await expectJson<{ works: { source_id: string }[] }>(
      await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: SRC.id } }),
      200,
    );
    expect(found.works.map((w) => w.source_id)).toEqual(["21"]);
  }

  for (const mode of ["none", "basic", "simple_login", "ui_login"] as const) {
    it(`${mode}: set through ${mode === "basic" || mode === "ui_login" ? "GraphQL" : "REST"}, read masked through both, used`, async () => {
      const fake = await start(mode);
      const body = { enabled: true, url: fake.url, auth: mode, ...(mode === "none" ? {} : USER) };
      if (mode === "basic" || mode === "ui_login") {
        // GraphQL spells the mode as its enum value.
        const r = await app.gql<{ updateSourceSettings: { suwayomi: Record<string, unknown> } }>(UPDATE_GQL, {
          input: { suwayomi: { ...body, auth: mode.toUpperCase() } },
        });
        expect(r.errors).toBeUndefined();
        expect(JSON.stringify(r)).not.toContain(USER.password);
      } else {
        const res = await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: body } });
        const text = await res.text();
        expect(res.status).toBe(200);
        expect(text).not.toContain(USER.password);
      }
      const view = await readBoth();
      expect(view).toMatchObject({ enabled: true, auth: mode, configured: true });
      if (mode === "none") expect(view.password_set).toBe(false);
      else expect(view).toMatchObject({ username: USER.username, password: "••••", password_set: true });
      await use();
      await use();
      if (mode === "simple_login" || mode === "ui_login") expect(fake.logins).toBe(1);
      const secrets = await readFile(path.join(app.config.dataDir, "secrets.json"), "utf8");
      if (mode !== "none") expect(secrets).toContain(USER.password);
    });
  }

  it("wrong credentials: 502 provider_failed with the upstream's status, through both, no password in it", async () => {
    for (const mode of ["basic", "simple_login", "ui_login"] as const) {
      const fake = await start(mode);
      await expectJson(
        await app.api("/api/settings/sources", {
          method: "PUT",
          json: {
            suwayomi: { enabled: true, url: fake.url, auth: mode, username: USER.username, password: `wrong-${mode}` },
          },
        }),
        200,
      );
      await readBoth();
      const res = await app.api("/api/providers/suwayomi/sources?lang=en");
      const text = await res.text();
      expect([mode, res.status]).toEqual([mode, 502]);
      expect(text).not.toContain(`wrong-${mode}`);
      const p = JSON.parse(text) as { code: string; status: number; upstream_status: number | null; detail: string };
      expect([mode, p.code, p.status]).toEqual([mode, "provider_failed", 502]);
      expect([mode, p.upstream_status]).toEqual([mode, 401]);
      expect(p.detail).toMatch(/^Suwayomi (authentication failed|login refused)/);
      await expectProblem(
        await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: SRC.id } }),
        502,
        "provider_failed",
      );
      const g = await app.gql(`{ suwayomiSources(lang: "en") { id } }`);
      expect([mode, g.errors?.[0]?.extensions?.code]).toEqual([mode, "provider_failed"]);
      expect(JSON.stringify(g)).not.toContain(`wrong-${mode}`);
    }
  });

  it("UI login: an access token near its expiry is renewed before it is used", async () => {
    // Access tokens live 29 s: the client renews 30 s before expiry, so every use renews first.
    const fake = await start("ui_login", { accessTtlMs: 29_000 });
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "ui_login", ...USER } },
      }),
      200,
    );
    await use();
    expect(fake.logins).toBe(1);
    const renewed = fake.refreshes;
    await use();
    expect(fake.refreshes).toBeGreaterThan(renewed);
    expect(fake.logins).toBe(1);
  });

  it("UI login: a revoked access token is renewed and the call retried; an expired refresh token logs in again", async () => {
    // The fake's clock moves only when the test says so: a real 1 s lifetime expired under load before
    // the renewal it was meant to allow.
    let skewMs = 0;
    const fake = await start("ui_login", { refreshTtlMs: 60_000, now: () => Date.now() + skewMs });
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "ui_login", ...USER } },
      }),
      200,
    );
    await use();
    expect([fake.logins, fake.refreshes]).toEqual([1, 0]);
    fake.revokeAccessTokens();
    await use();
    expect([fake.logins, fake.refreshes]).toEqual([1, 1]);
    skewMs = 120_000;
    fake.revokeAccessTokens();
    await use();
    expect(fake.logins).toBe(2);
  });
});
