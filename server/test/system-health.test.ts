/**
 * The service's health (GET /api/system/health, GraphQL `systemHealth`), as the *arr apps' System →
 * Status → Health, from an empty service through the public API: series folders waiting for their
 * first scan, a Suwayomi that does not answer (a closed port, then a real fake server), a library
 * folder that went away, and a linked source whose downloads fail. REST and GraphQL agree throughout.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, rename } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { createSeries, expectJson, linkSources, useSuwayomi, writeCbz } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  startFakeSuwayomi,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

interface Health {
  status: "ok" | "warning" | "error";
  checks: { code: string; level: string; message: string }[];
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** The health through REST, checked against GraphQL's. The free space of the test machine's disk is not this test's. */
async function healthOf(app: TestApp): Promise<Health> {
  const rest = await expectJson<Health>(await app.api("/api/system/health"), 200);
  const gql = await app.gql<{ systemHealth: Health }>(`{ systemHealth { status checks { code level message } } }`);
  expect(gql.errors).toBeUndefined();
  expect(gql.data?.systemHealth).toEqual({
    status: rest.status.toUpperCase(),
    checks: rest.checks.map((c) => ({ ...c, code: c.code.toUpperCase(), level: c.level.toUpperCase() })),
  });
  return { ...rest, checks: rest.checks.filter((c) => c.code !== "disk_space_low") };
}

const codes = (h: Health) => h.checks.map((c) => [c.code, c.level]);

describe("system health", () => {
  let app: TestApp;
  let fake: FakeSuwayomi;
  beforeAll(async () => {
    app = await createTestApp();
    fake = await startFakeSuwayomi({ works: [] });
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });
  const health = () => healthOf(app);

  it("a fresh service with an empty library and no Suwayomi: nothing to report", async () => {
    const h = await health();
    expect(codes(h)).toEqual([]);
  });

  it("series folders copied into the library wait for their first scan; the scan clears it", async () => {
    for (const title of ["Blue Harbor", "Paper Moon"]) {
      await mkdir(path.join(app.config.libraryRoot, title));
      await writeCbz(path.join(app.config.libraryRoot, title, `${title} c001.cbz`), 4);
    }
    const h = await health();
    expect(h.status).not.toBe("ok");
    expect(codes(h)).toEqual([["library_not_scanned", "warning"]]);
    expect(h.checks[0]?.message).toBe(
      '2 series folders have not been scanned yet: press "Scan library" on the Library page to record them.',
    );
    await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
    expect(codes(await health())).toEqual([]);
  });

  it("a Suwayomi that does not answer is an error naming it; once it answers, nothing", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url, auth: "none" } },
      }),
      200,
    );
    const down = await health();
    expect(down.status).toBe("error");
    expect(codes(down)).toEqual([["suwayomi_unreachable", "error"]]);
    const message = down.checks[0]?.message ?? "";
    expect(message.startsWith(`Suwayomi (${url}) is in use but could not list its sources: `)).toBe(true);
    // What failed, as the connection said it.
    expect(message).toContain("connection refused");

    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
    expect(codes(await health())).toEqual([]);
    expect(fake.requests.some((r) => r.startsWith("POST /api/graphql sources"))).toBe(true);

    // Switched off: not asked, nothing to report.
    await expectJson(
      await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: { enabled: false } } }),
      200,
    );
    const asked = fake.requests.length;
    expect(codes(await health())).toEqual([]);
    expect(fake.requests.length).toBe(asked);
  });

  it("a library folder that went away (an unmounted disk) is an error; back again, nothing", async () => {
    const root = app.config.libraryRoot;
    const aside = `${root}-aside`;
    await rename(root, aside);
    try {
      const h = await health();
      expect(h.status).toBe("error");
      expect(codes(h)).toEqual([["library_root_missing", "error"]]);
      expect(h.checks[0]?.message).toContain(root);
    } finally {
      await rename(aside, root);
    }
    expect(codes(await health())).toEqual([]);
  });
});

describe("system health: a linked source whose downloads fail", () => {
  const SOURCE = { id: "4242", name: "Broken Scans", lang: "en" };
  let app: TestApp;
  let fake: FakeSuwayomi;
  beforeAll(async () => {
    const pages = await drawnChapter(2, 7);
    fake = await startFakeSuwayomi({
      sources: [SOURCE],
      works: [
        fakeWork({
          id: 61,
          title: "Quiet Lantern",
          source: SOURCE,
          // Every page answers 500 for good: each download fails after its retries.
          chapters: [1, 2].map((n) => fakeChapter({ chapterNumber: n, pages: pages.map((p) => flakyPage(p, 1e6)) })),
        }),
      ],
    });
    app = await createTestApp({ env: FAST_ENV });
    await useSuwayomi(app, fake.url);
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("names the source and its series once most of its downloads failed", async () => {
    const id = await createSeries(app, "Quiet Lantern");
    expect(codes(await healthOf(app))).toEqual([]);
    // Linking runs the first pass: both chapters are queued, and both fail.
    await linkSources(app, id, [[SOURCE.id, 61, 0, "en"]]);
    await until(
      "both downloads failed",
      async () => expectJson<{ state: string }[]>(await app.api(`/api/manga/${id}/downloads`), 200),
      (d) => d.length === 2 && d.every((x) => x.state === "failed"),
      30_000,
    );
    const h = await healthOf(app);
    expect(h.status).toBe("warning");
    expect(codes(h)).toEqual([["sources_failing", "warning"]]);
    expect(h.checks[0]?.message).toMatch(
      /^A linked source fails most of its downloads: Broken Scans \(en\) for Quiet Lantern\. /,
    );

    // Suwayomi switched off: nothing is fetched from its sources, so none is reported as failing.
    await expectJson(
      await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: { enabled: false } } }),
      200,
    );
    expect(codes(await healthOf(app))).toEqual([]);
    await useSuwayomi(app, fake.url);
    expect(codes(await healthOf(app))).toEqual([["sources_failing", "warning"]]);
  });
});
