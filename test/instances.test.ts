/**
 * Several instances serve one library: two processes of the built service (server/dist/main.js) on
 * one PostgreSQL database, one library root, one data dir and one Redis, started at the same time on
 * an empty database (the demo library is written once). Only the public API is used. A third
 * instance dies with SIGKILL in the middle of assemblies (PUBLICATION_CRASH_AT, the crash tests'
 * hook), and a surviving one finishes its work once its leases ran out. A password or an
 * integration secret changed through A is B's at once (the shared secrets file, re-read on an
 * event through Redis).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeSuwayomi, type FakeSuwayomi } from "../server/test/fakes/suwayomi-server.ts";
import {
  collect,
  sessionWsClient,
  startInstance,
  startRedis,
  wsClient,
  type Instance,
  type RedisServer,
} from "../server/test/instances.ts";
import { expectJson } from "../server/test/expect-json.ts";
import { startPostgres, type PostgresCluster } from "../server/test/postgres.ts";

interface Series {
  id: number;
  title: string;
  folder: string;
}
interface AuditFile {
  id: number;
  path: string;
  kind: string;
  /** The book's volume or the chapter's number. */
  number: string | null;
}
interface RecycleEntry {
  file_id: number;
  original_path: string;
  reason: string;
}

let pg: PostgresCluster;
let redis: RedisServer;
let dir: string;
let env: Record<string, string>;
let a: Instance;
let b: Instance;
let fake: FakeSuwayomi;
const extra: Instance[] = [];

const json = <T>(res: Response, status = 200): Promise<T> => expectJson<T>(res, status);

async function seriesByTitle(i: Instance, title: string): Promise<Series> {
  const s = (await json<Series[]>(await i.api("/api/manga"))).find((x) => x.title === title);
  if (!s) throw new Error(`no series ${title}`);
  return s;
}

/** Every active file of a series, through the audit listing (24 a page). */
async function activeFiles(i: Instance, seriesId: number): Promise<AuditFile[]> {
  const out: AuditFile[] = [];
  for (let page = 1; ; page++) {
    const body = await json<{ total: number; files: AuditFile[] }>(
      await i.api(`/api/manga/${seriesId}/audit?page=${page}`),
    );
    out.push(...body.files);
    if (out.length >= body.total || body.files.length === 0) return out;
  }
}

/** Names of the files under a folder of the library and under the same folder in the recycle bin. */
function onDisk(folder: string): { library: string[]; bin: string[] } {
  const root = path.join(dir, "library");
  const library = readdirSync(path.join(root, folder)).filter((n) => n.endsWith(".cbz"));
  const bin: string[] = [];
  const binRoot = path.join(root, ".recycle-bin");
  for (const batch of readdirSync(binRoot, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const inBatch = path.join(binRoot, batch.name, folder);
    try {
      bin.push(...readdirSync(inBatch).filter((n) => n.endsWith(".cbz")));
    } catch {
      // this batch holds other series' files
    }
  }
  return { library, bin };
}

const chapterLabels = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mls-instances-"));
  [pg, redis, fake] = await Promise.all([
    startPostgres(),
    startRedis(),
    startFakeSuwayomi({ works: [], auth: { username: "reader", password: "second secret" } }),
  ]);
  await pg.sql("CREATE DATABASE library");
  env = {
    DATABASE_URL: pg.url("library"),
    REDIS_URL: redis.url,
    LIBRARY_ROOT: path.join(dir, "library"),
    DATA_DIR: path.join(dir, "data"),
    // Short leases: a dead instance's work is taken over within seconds.
    LEASE_SECONDS: "3",
    // The admin password lives in the shared secrets file (generated on the first start), so it can be changed.
    ADMIN_PASSWORD: "",
  };
  // Both start at once on an empty database: migrations, secrets and the demo library happen once.
  [a, b] = await Promise.all([startInstance("A", env), startInstance("B", env)]);
});

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop(), ...extra.map((i) => i.stop())]);
  await Promise.allSettled([redis?.stop(), pg?.stop(), fake?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("two instances on PostgreSQL and Redis", () => {
  it("answer the same series and the same units for every demo series", async () => {
    const [fromA, fromB] = (await Promise.all([a, b].map(async (i) => json<Series[]>(await i.api("/api/manga"))))) as [
      Series[],
      Series[],
    ];
    expect(fromA).toHaveLength(5); // the demo library, written once by the two instances starting together
    expect(fromB).toEqual(fromA);
    for (const s of fromA) {
      const [ua, ub] = await Promise.all(
        [a, b].map(async (i) => json<unknown>(await i.api(`/api/manga/${s.id}/units`))),
      );
      expect(ub, s.title).toEqual(ua);
    }
  });

  it("a map saved through one is seen with its new revision through the other; a stale revision is refused", async () => {
    const clock = await seriesByTitle(a, "The Clockmaker's Apprentice");
    const before = await json<{ revision: number }>(await b.api(`/api/manga/${clock.id}/chapter-map`));
    const entries = [
      { volume: "1", chapters: chapterLabels(0, 5) },
      { volume: "2", chapters: chapterLabels(6, 9) },
    ];
    const saved = await json<{ revision: number }>(
      await a.api(`/api/manga/${clock.id}/chapter-map`, {
        method: "PUT",
        body: JSON.stringify({ revision: before.revision, entries }),
      }),
    );
    expect(saved.revision).toBe(before.revision + 1);
    const seen = await json<{ revision: number; entries: { volume: string; chapters: string[] }[] }>(
      await b.api(`/api/manga/${clock.id}/chapter-map`),
    );
    expect(seen.revision).toBe(saved.revision);
    expect(seen.entries).toEqual(entries);
    const stale = await b.api(`/api/manga/${clock.id}/chapter-map`, {
      method: "PUT",
      body: JSON.stringify({ revision: before.revision, entries: [{ volume: "1", chapters: ["1"] }] }),
    });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { code: string }).code).toBe("map_revision_stale");
    // B's units follow the map A saved (its view cache is keyed by the database's revision).
    const units = await json<{ map: string }>(await b.api(`/api/manga/${clock.id}/units`));
    expect(units.map).not.toBe("none");
  });

  it("a subscriber on B hears the events of a scan started on A", async () => {
    const client = wsClient(b.base);
    try {
      const events = collect<{ libraryEvents: { kind: string } }>(
        client,
        "subscription { libraryEvents { kind seriesId } }",
        (es) => es.some((e) => e.libraryEvents.kind === "SCAN_FINISHED"),
      );
      await events.ready;
      await json(await a.api("/api/library/scan", { method: "POST" }));
      expect((await events.done).map((e) => e.libraryEvents.kind)).toContain("SCAN_FINISHED");
    } finally {
      await client.dispose();
    }
  });

  it("a Suwayomi password set through A is the one B sends at once", async () => {
    const settings = (password: string) => ({
      method: "PUT",
      body: JSON.stringify({
        suwayomi: { enabled: true, url: fake.url, auth: "basic", username: "reader", password },
      }),
    });
    await json(await a.api("/api/settings/sources", settings("first secret")));
    expect((await b.api("/api/providers/suwayomi/sources?lang=en")).status).not.toBe(200);
    await json(await a.api("/api/settings/sources", settings("second secret")));
    expect(await json<unknown[]>(await b.api("/api/providers/suwayomi/sources?lang=en"))).not.toHaveLength(0);
    // Nothing of the secret went through Redis or into a log.
    expect(`${a.output()}${b.output()}`).not.toContain("second secret");
  });

  it("the admin password changed through A: B's live session ends at once, the old password is refused", async () => {
    const generated = /web login: +admin \/ (\S+)/.exec(`${a.output()}${b.output()}`)?.[1];
    if (!generated) throw new Error("neither instance printed the generated password");
    const login = (i: Instance, password: string) =>
      fetch(`${i.base}/api/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "admin", password }),
      });
    const signedIn = await login(b, generated);
    expect(signedIn.status).toBe(204);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    // A browser's live connection to B, opened with the session.
    const client = sessionWsClient(b.base, cookie);
    try {
      const closed = new Promise<number>((resolve) =>
        client.on("closed", (e) => resolve((e as { code: number }).code)),
      );
      const connected = new Promise((resolve) => client.on("connected", resolve));
      client.subscribe({ query: "subscription { libraryEvents { kind } }" }, { next() {}, error() {}, complete() {} });
      await connected;
      const changed = await a.api("/api/session/password", {
        method: "PUT",
        body: JSON.stringify({ current_password: generated, new_password: "a password both instances know" }),
      });
      expect(changed.status).toBe(200);
      expect(await closed).toBe(4401);
    } finally {
      await client.dispose();
    }
    expect((await fetch(`${b.base}/api/session`, { headers: { cookie } })).status).toBe(401);
    expect((await login(b, generated)).status).toBe(401);
    expect((await login(b, "a password both instances know")).status).toBe(204);
    expect(`${a.output()}${b.output()}`).not.toContain("a password both instances know");
  });

  it("scans started on both at once record each new file once", async () => {
    const clock = await seriesByTitle(a, "The Clockmaker's Apprentice");
    const sources = (await activeFiles(a, clock.id)).filter((f) => f.kind === "chapter").slice(10, 16);
    const folder = path.join(dir, "library", "Paper Copies");
    mkdirSync(folder);
    sources.forEach((f, n) =>
      copyFileSync(
        path.join(dir, "library", f.path),
        path.join(folder, `Paper Copies - c${String(n + 1).padStart(3, "0")}.cbz`),
      ),
    );
    const answers = await Promise.all([a, b].map((i) => i.api("/api/library/scan", { method: "POST" })));
    const statuses = answers.map((r) => r.status).sort();
    // One scan runs at a time across the instances: the other is refused, or runs after it.
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses);
    const all = await json<Series[]>(await b.api("/api/manga"));
    const copies = all.filter((s) => s.folder === "Paper Copies");
    expect(copies).toHaveLength(1);
    const files = await activeFiles(b, (copies[0] as Series).id);
    expect(files.map((f) => f.path).sort()).toEqual(
      sources.map((_, n) => `Paper Copies/Paper Copies - c${String(n + 1).padStart(3, "0")}.cbz`).sort(),
    );
  });

  it("the same assembly confirmed through both at once succeeds once and makes one book", async () => {
    const harbor = await seriesByTitle(a, "Harbor of Paper Cranes");
    const preview = await json<{ confirmation: string; files: { id: number; path: string }[] }>(
      await a.api(`/api/manga/${harbor.id}/volumes/5/assemble?dry_run=true`, { method: "POST" }),
    );
    const confirm = (i: Instance) =>
      i.api(`/api/manga/${harbor.id}/volumes/5/assemble?dry_run=false`, {
        method: "POST",
        body: JSON.stringify({ confirmation: preview.confirmation }),
      });
    const answers = await Promise.all([confirm(a), confirm(b)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const books = (await activeFiles(b, harbor.id)).filter((f) => f.kind === "book" && f.number === "5");
    expect(books).toHaveLength(1);
    const disk = onDisk(harbor.folder);
    expect(disk.library.filter((n) => /v0*5\b/.test(n))).toHaveLength(1);
    // Each chapter file of the book went to the recycle bin once, and left the library.
    const sourceNames = preview.files.map((f) => path.basename(f.path)).sort();
    expect(disk.bin.filter((n) => sourceNames.includes(n)).sort()).toEqual(sourceNames);
    for (const n of sourceNames) expect(disk.library).not.toContain(n);
  });

  it.each([
    ["retire:moved", "1", [0, 5]],
    ["publish:linked", "2", [6, 9]],
  ] as const)(
    "an instance killed at %s of an assembly leaves every file exactly once once another finished it",
    async (step, volume, [from, to]) => {
      const clock = await seriesByTitle(a, "The Clockmaker's Apprentice");
      const doomed = await startInstance(`C ${step}`, { ...env, PUBLICATION_CRASH_AT: step });
      extra.push(doomed);
      const preview = await json<{ confirmation: string; files: { id: number; path: string }[] }>(
        await doomed.api(`/api/manga/${clock.id}/volumes/${volume}/assemble?dry_run=true`, { method: "POST" }),
      );
      const sourceNames = preview.files.map((f) => path.basename(f.path)).sort();
      expect(sourceNames.length).toBeGreaterThanOrEqual(to - from + 1);
      await doomed
        .api(`/api/manga/${clock.id}/volumes/${volume}/assemble?dry_run=false`, {
          method: "POST",
          body: JSON.stringify({ confirmation: preview.confirmation }),
        })
        .then(
          (r) => expect.fail(`the doomed instance answered ${r.status}`),
          () => undefined, // the connection died with the process
        );
      expect(await doomed.exited()).toBe(null); // killed by SIGKILL, no exit code
      // A live instance's recovery sweep takes the entry over once its lease ran out (3 s).
      await expect
        .poll(
          async () => {
            const bin = await json<RecycleEntry[]>(await b.api("/api/recycle-bin"));
            return bin.filter((e) => e.reason === `assembled into v00${volume}`).length;
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBe(sourceNames.length);
      const disk = onDisk(clock.folder);
      for (const n of sourceNames) {
        expect(
          disk.library.filter((x) => x === n),
          n,
        ).toHaveLength(0);
        expect(
          disk.bin.filter((x) => x === n),
          n,
        ).toHaveLength(1);
      }
      const books = disk.library.filter((n) => new RegExp(`v0*${volume}\\b`).test(n));
      expect(books).toHaveLength(1);
      const active = await activeFiles(a, clock.id);
      expect(active.filter((f) => f.kind === "book" && f.number === volume)).toHaveLength(1);
      expect(active.filter((f) => sourceNames.includes(path.basename(f.path)))).toEqual([]);
      // Nothing left behind for anyone: the same book is owned, so a new preview is refused.
      const again = await a.api(`/api/manga/${clock.id}/volumes/${volume}/assemble?dry_run=true`, { method: "POST" });
      expect(again.status).toBe(409);
    },
  );
});
