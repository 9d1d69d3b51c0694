/**
 * An upstream's status is never passed off as the service's own. Suwayomi (a real HTTP fake on
 * 127.0.0.1) answering 401, a bare 302, 500, or not answering at all (nothing listens) makes every
 * endpoint that asked it answer 502 `provider_failed` as problem+json, with the upstream's status
 * (or null) in `upstream_status` — over REST and GraphQL alike. No `extra` field of any coded
 * error can change a problem's status, code or type. Nothing is linked or stored on the way.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../src/errors.ts";
import { problemResponse, toProblem } from "../src/http/problem.ts";
import { ProviderError } from "../src/providers/provider.ts";
import { expectJson } from "./fixtures.ts";
import { fakeWork, startFakeSuwayomi, type FakeSuwayomi } from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let fake: FakeSuwayomi;
let seriesId: number;
const SOURCE = "2499283573021220255";

/** A port on which nothing listens any more. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function useSuwayomi(url: string): Promise<void> {
  await expectJson(
    await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: { enabled: true, url, auth: "none" } } }),
    200,
  );
}

async function restAnswer(res: Response) {
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: (await res.json()) as Record<string, unknown>,
  };
}

beforeAll(async () => {
  fake = await startFakeSuwayomi({ works: [fakeWork({ id: 41, title: "Blue Harbor" })] });
  app = await createTestApp();
  seriesId = (
    await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Blue Harbor" } }),
      201,
    )
  ).id;
  await useSuwayomi(fake.url);
  // It works when Suwayomi answers.
  expect((await app.api("/api/providers/suwayomi/sources?lang=en")).status).toBe(200);
});
afterAll(async () => {
  await app.dispose();
  await fake.close();
});

describe("Suwayomi failing", () => {
  it.each([
    [401, false],
    [302, false],
    [403, false],
    [500, true],
  ])("answering %i: 502 provider_failed with upstream_status, REST and GraphQL alike", async (upstream, transient) => {
    fake.setFailure({ target: "graphql", status: upstream, times: 1 });
    const rest = await restAnswer(await app.api("/api/providers/suwayomi/sources?lang=en"));
    expect(rest).toMatchObject({
      status: 502,
      type: "application/problem+json",
      body: {
        status: 502,
        code: "provider_failed",
        type: "about:blank#provider_failed",
        upstream_status: upstream,
        transient,
      },
    });

    fake.setFailure({ target: "graphql", status: upstream, times: 1 });
    const g = await app.gql<{ suwayomiSources: unknown }>('{ suwayomiSources(lang: "en") { id } }');
    expect(g.errors?.[0]?.extensions).toMatchObject({
      code: "provider_failed",
      status: 502,
      upstream_status: upstream,
    });

    fake.setFailure({ target: "graphql", status: upstream, times: 1 });
    const search = await restAnswer(
      await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: SOURCE } }),
    );
    expect(search).toMatchObject({ status: 502, body: { code: "provider_failed", upstream_status: upstream } });
    fake.setFailure(null);
    expect(await expectJson(await app.api(`/api/manga/${seriesId}/sources`), 200)).toEqual([]);
  });

  it("not answering at all: 502 provider_failed with upstream_status null, a problem body all the same", async () => {
    await useSuwayomi(`http://127.0.0.1:${await deadPort()}`);
    try {
      const rest = await restAnswer(await app.api("/api/providers/suwayomi/sources?lang=en"));
      expect(rest).toMatchObject({
        status: 502,
        type: "application/problem+json",
        body: { code: "provider_failed", upstream_status: null, transient: true },
      });
      expect(String(rest.body.detail)).toMatch(/unreachable/);
      const g = await app.gql('{ suwayomiSources(lang: "en") { id } }');
      expect(g.errors?.[0]?.extensions).toMatchObject({ code: "provider_failed", status: 502, upstream_status: null });
    } finally {
      await useSuwayomi(fake.url);
    }
  });
});

describe("Suwayomi refusing our login", () => {
  it.each(["basic", "simple_login", "ui_login"] as const)(
    "in %s mode: 502 provider_failed with upstream_status 401, never the API's own 401",
    async (mode) => {
      const guarded = await startFakeSuwayomi({ works: [], auth: { username: "u", password: "right", mode } });
      try {
        await expectJson(
          await app.api("/api/settings/sources", {
            method: "PUT",
            json: { suwayomi: { enabled: true, url: guarded.url, auth: mode, username: "u", password: "wrong" } },
          }),
          200,
        );
        const rest = await restAnswer(await app.api("/api/providers/suwayomi/sources?lang=en"));
        expect(rest).toMatchObject({ status: 502, body: { code: "provider_failed", upstream_status: 401 } });
        const g = await app.gql('{ suwayomiSources(lang: "en") { id } }');
        expect(g.errors?.[0]?.extensions).toMatchObject({ code: "provider_failed", status: 502, upstream_status: 401 });
      } finally {
        await useSuwayomi(fake.url);
        await guarded.close();
      }
    },
  );
});

describe("a problem's own members", () => {
  it("cannot be overridden by an error's extra fields", () => {
    const e = new AppError("provider_failed", "upstream said no", {
      status: 302,
      code: "ok",
      type: "about:blank#ok",
      title: "Fine",
      detail: "nothing happened",
      upstream_status: 302,
    });
    expect(toProblem(e)).toEqual({
      type: "about:blank#provider_failed",
      title: "The provider failed to answer",
      status: 502,
      detail: "upstream said no",
      code: "provider_failed",
      upstream_status: 302,
    });
    // A provider failure no service coded (a torrent client's, say) is still 502 with the upstream's status.
    expect(toProblem(new ProviderError("qBittorrent: Forbidden", false, 403))).toMatchObject({
      status: 502,
      code: "provider_failed",
      upstream_status: 403,
      transient: false,
    });
    // A null in the extras (an upstream that never answered) never reaches the Response's status.
    const res = problemResponse(new AppError("provider_failed", "unreachable", { status: null }));
    expect(res.status).toBe(502);
  });
});
