/**
 * The scheduled passes keep the time of their last cycle across restarts, as the *arr apps keep
 * their scheduled tasks: after a restart the Wanted pass and the assembly monitor say when they
 * last ran, their next cycle is one interval after that one, and a pass overdue at start runs at
 * once, with no request. The passes are also one list with a run now (the *arr apps' System →
 * Tasks). From an empty service, through REST and GraphQL; the restarts start the service again on
 * the same data folder.
 */
import { existsSync, renameSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import type { Config } from "../src/config.ts";
import { until } from "./downloads-fixtures.ts";
import { createSeriesWithFiles, expectJson, expectProblem, scanLibrary } from "./fixtures.ts";
import { createTestApp, shareTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

interface Status {
  last_run: string | null;
  next_run: string | null;
  running: boolean;
}

const HOUR_MS = 3_600_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** The service started again on `config`'s data folder, listening; `get` reads a path with the API key. */
async function startAgain(config: Config) {
  const app: App = await createApp(config, { migrate: false, seedDemo: false });
  const port = await app.listen();
  const get = async (pathname: string) =>
    expectJson<Status>(
      await fetch(`http://127.0.0.1:${port}${pathname}`, { headers: { "x-api-key": TEST_API_KEY } }),
      200,
    );
  return { app, get };
}

describe("scheduled passes across restarts", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("keeps the last cycle, times the next from it, and runs an overdue pass at start", async () => {
    const first = await createTestApp({
      env: { WANTED_INTERVAL_SECONDS: "3600", ASSEMBLY_MONITOR_INTERVAL_SECONDS: "3600" },
    });
    // Closed below and started again; the dispose (data folder, PostgreSQL database) comes last.
    cleanups.push(() => first.dispose());
    const started = Date.now();

    // A fresh service: nothing ran yet, the first cycle is one interval after the start.
    const fresh = await expectJson<Status>(await first.api("/api/monitor/wanted"), 200);
    expect(fresh.last_run).toBeNull();
    expect(Date.parse(fresh.next_run!)).toBeGreaterThanOrEqual(started + HOUR_MS - 60_000);

    // The recycle bin's purge runs at every start: a fresh service has run it once already.
    const purgeTask = async (get: (p: string) => Promise<unknown>) =>
      ((await get("/api/system/tasks")) as { tasks: (Status & { name: string })[] }).tasks.find(
        (t) => t.name === "recycle_bin_purge",
      )!;
    const firstPurge = await purgeTask(async (p) => expectJson(await first.api(p), 200));
    expect(Date.parse(firstPurge.last_run!)).toBeGreaterThanOrEqual(started - 60_000);
    expect(firstPurge.next_run).toBe(plus(firstPurge.last_run!, 6 * HOUR_MS));

    // The operator's scan is a cycle of the scheduled scan: listed, and the next one 6 hours after it.
    const taskOf = async (get: (p: string) => Promise<unknown>, name: string) =>
      ((await get("/api/system/tasks")) as { tasks: (Status & { name: string })[] }).tasks.find(
        (t) => t.name === name,
      )!;
    const beforeScan = new Date().toISOString();
    await expectJson(await first.api("/api/library/scan", { method: "POST" }), 200);
    const scanned = await taskOf(async (p) => expectJson(await first.api(p), 200), "library_scan");
    expect(scanned.last_run! >= beforeScan).toBe(true);
    expect(scanned.next_run).toBe(plus(scanned.last_run!, 6 * HOUR_MS));

    const wanted = await expectJson<Status>(await first.api("/api/monitor/wanted/run", { method: "POST" }), 200);
    const assembly = await expectJson<Status>(await first.api("/api/monitor/assembly/run", { method: "POST" }), 200);
    expect(wanted.last_run).not.toBeNull();
    expect(assembly.last_run).not.toBeNull();
    await first.close();

    // Started again: the last runs are still known, and the next cycles are timed from them.
    const second = await startAgain(first.config);
    try {
      expect(await second.get("/api/monitor/wanted")).toMatchObject({
        last_run: wanted.last_run,
        next_run: plus(wanted.last_run!, HOUR_MS),
      });
      expect(await second.get("/api/monitor/assembly")).toMatchObject({
        last_run: assembly.last_run,
        next_run: plus(assembly.last_run!, HOUR_MS),
      });
      expect(await taskOf(second.get, "library_scan")).toMatchObject({
        last_run: scanned.last_run,
        next_run: scanned.next_run,
      });
      // The purge ran again at this start; its next cycle is 6 hours after that run.
      const purge = await purgeTask(second.get);
      expect(purge.last_run! > firstPurge.last_run!).toBe(true);
      expect(purge.next_run).toBe(plus(purge.last_run!, 6 * HOUR_MS));
    } finally {
      await second.app.close();
    }

    // Started again with a Wanted interval the last run is older than: the pass runs at once, by
    // itself; the assembly monitor, not due, waits for its time.
    await new Promise((r) => setTimeout(r, 1100));
    const shortInterval: Config = {
      ...first.config,
      downloads: { ...first.config.downloads, wantedIntervalSeconds: 1 },
    };
    const third = await startAgain(shortInterval);
    try {
      const ran = await until(
        "the overdue Wanted pass ran after the start",
        () => third.get("/api/monitor/wanted"),
        (s) => s.last_run !== null && s.last_run > wanted.last_run!,
      );
      expect(Date.parse(ran.last_run!)).toBeGreaterThan(Date.parse(wanted.last_run!));
      expect(await third.get("/api/monitor/assembly")).toMatchObject({
        last_run: assembly.last_run,
        next_run: plus(assembly.last_run!, HOUR_MS),
      });
    } finally {
      await third.app.close();
    }

    // An instance that runs no schedules (INSTANCE_ROLE api) still says when each pass last ran.
    const apiOnly = await startAgain({ ...first.config, instanceRole: "api" });
    try {
      const tasks = ((await apiOnly.get("/api/system/tasks")) as unknown as { tasks: (Status & { name: string })[] })
        .tasks;
      const wantedTask = tasks.find((t) => t.name === "wanted");
      expect(wantedTask?.last_run).not.toBeNull();
      expect(wantedTask!.last_run! > wanted.last_run!).toBe(true);
      // ... and when the workers run it next: one interval after the kept last run (this instance
      // has no loop of its own to ask).
      expect(wantedTask?.next_run).toBe(plus(wantedTask!.last_run!, HOUR_MS));
      expect(tasks.find((t) => t.name === "assembly")).toMatchObject({
        last_run: assembly.last_run,
        next_run: plus(assembly.last_run!, HOUR_MS),
      });
      const scanTask = tasks.find((t) => t.name === "library_scan")!;
      expect(scanTask.next_run).toBe(plus(scanTask.last_run!, 6 * HOUR_MS));
      expect(await apiOnly.get("/api/monitor/wanted")).toMatchObject({ last_run: null, next_run: null });
      // An api instance does not purge at start; the list says when a worker last did, and next will.
      const purgeTask = tasks.find((t) => t.name === "recycle_bin_purge")!;
      expect(purgeTask.next_run).toBe(plus(purgeTask.last_run!, 6 * HOUR_MS));
      expect(purgeTask.last_run! > firstPurge.last_run!).toBe(true);
    } finally {
      await apiOnly.app.close();
    }
  });
});

interface Task extends Status {
  name: string;
  interval_seconds: number;
}

const TASK_FIELDS = "name intervalSeconds lastRun nextRun running";
/** A REST task as GraphQL spells it. */
const asGraphql = (t: Task) => ({
  name: t.name.toUpperCase(),
  intervalSeconds: t.interval_seconds,
  lastRun: t.last_run,
  nextRun: t.next_run,
  running: t.running,
});

describe("the scheduled tasks, one list", () => {
  let app: TestApp;
  shareTestApp((a) => (app = a), {
    env: {
      WANTED_INTERVAL_SECONDS: "1800",
      CATALOGUE_REFRESH_INTERVAL_SECONDS: "43200",
      LIBRARY_SCAN_INTERVAL_SECONDS: "0",
    },
  });

  const tasks = async () => (await expectJson<{ tasks: Task[] }>(await app.api("/api/system/tasks"), 200)).tasks;

  it("lists every pass with its interval; the scan switched off has no next run", async () => {
    const list = await tasks();
    expect(list.map((t) => [t.name, t.interval_seconds, t.last_run, t.running])).toEqual([
      ["wanted", 1800, null, false],
      ["assembly", 900, null, false],
      ["catalogue_refresh", 43200, null, false],
      ["library_scan", 0, null, false],
      // The purge ran at start.
      ["recycle_bin_purge", 21600, list[4]!.last_run, false],
    ]);
    expect(list[4]!.last_run).not.toBeNull();
    expect(list[4]!.next_run).toBe(plus(list[4]!.last_run!, 6 * HOUR_MS));
    expect(list.find((t) => t.name === "library_scan")?.next_run).toBeNull();
    for (const t of list.filter((t) => t.name !== "library_scan")) expect(t.next_run).not.toBeNull();
    const gql = await app.gql<{ scheduledTasks: unknown[] }>(`{ scheduledTasks { ${TASK_FIELDS} } }`);
    expect(gql.data?.scheduledTasks).toEqual(list.map(asGraphql));
  });

  it("runs a pass on request and answers its status after it; the list and each monitor agree", async () => {
    const wanted = await expectJson<Task>(await app.api("/api/system/tasks/wanted/run", { method: "POST" }), 200);
    expect(wanted).toMatchObject({ name: "wanted", interval_seconds: 1800, running: false });
    expect(wanted.last_run).not.toBeNull();
    // The next cycle is one interval after the run on request, not after the start.
    expect(wanted.next_run).toBe(plus(wanted.last_run!, 1800_000));
    expect(await expectJson<Status>(await app.api("/api/monitor/wanted"), 200)).toMatchObject({
      last_run: wanted.last_run,
      next_run: wanted.next_run,
    });
    // The scan switched off still runs on request (the library root is empty: nothing to record).
    const scan = await expectJson<Task>(await app.api("/api/system/tasks/library_scan/run", { method: "POST" }), 200);
    expect(scan.last_run).not.toBeNull();
    expect(scan.next_run).toBeNull();

    const gql = await app.gql<{ runScheduledTask: { name: string; lastRun: string } }>(
      `mutation { runScheduledTask(name: CATALOGUE_REFRESH) { ${TASK_FIELDS} } }`,
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data?.runScheduledTask.name).toBe("CATALOGUE_REFRESH");
    const list = await tasks();
    expect(list.find((t) => t.name === "catalogue_refresh")?.last_run).toBe(gql.data?.runScheduledTask.lastRun);
    expect(list.find((t) => t.name === "wanted")?.last_run).toBe(wanted.last_run);
    expect(list.find((t) => t.name === "assembly")?.last_run).toBeNull();
  });

  it("counts the operator's scan, REST or GraphQL, as the scan task's run; switched off, none is scheduled", async () => {
    const before = new Date().toISOString();
    await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
    const rest = (await tasks()).find((t) => t.name === "library_scan")!;
    expect(rest.last_run! >= before).toBe(true);
    expect(rest.next_run).toBeNull();
    const gql = await app.gql(`mutation { scanLibrary { added } }`);
    expect(gql.errors).toBeUndefined();
    const after = (await tasks()).find((t) => t.name === "library_scan")!;
    expect(after.last_run! >= rest.last_run!).toBe(true);
    expect(after.next_run).toBeNull();
  });

  it("an unknown task is 404 task_not_found and runs nothing; GraphQL refuses the name", async () => {
    const before = await tasks();
    const problem = await expectProblem(
      await app.api("/api/system/tasks/housekeeping/run", { method: "POST" }),
      404,
      "task_not_found",
    );
    expect(problem).toMatchObject({
      names: ["wanted", "assembly", "catalogue_refresh", "library_scan", "recycle_bin_purge"],
    });
    expect(await tasks()).toEqual(before);
    const gql = await app.gql(`mutation { runScheduledTask(name: HOUSEKEEPING) { name } }`);
    expect(gql.errors?.[0]?.extensions?.code).toBe("bad_request");
  });
});

describe("the recycle bin's purge as a task", () => {
  let app: TestApp;
  shareTestApp((a) => (app = a), { env: { RECYCLE_RETENTION_DAYS: "1" } });

  interface BinEntry {
    id: number;
    original_path: string;
    bin_path: string;
  }
  const bin = async () => expectJson<BinEntry[]>(await app.api("/api/recycle-bin"), 200);

  it("removes on request what stayed longer than the retention, and keeps the rest", async () => {
    await createSeriesWithFiles(app, "Alpha", { books: [], chapters: [1, 2] });
    await scanLibrary(app);
    const files = await app.ctx.db.libraryFile.findMany({ orderBy: { path: "asc" } });
    // Prepared state: two files retired, one of them two days ago (longer than the one-day retention).
    await app.services.publication.retire(
      files.map((f) => f.id),
      "test",
    );
    const [old, recent] = await bin().then((b) =>
      [...b].sort((x, y) => x.original_path.localeCompare(y.original_path)),
    );
    await app.ctx.db.recycleEntry.update({
      where: { id: old!.id },
      data: { recycledAt: new Date(Date.now() - 2 * 24 * HOUR_MS) },
    });

    const before = (await tasks()).find((t) => t.name === "recycle_bin_purge")!;
    const ran = await expectJson<Task>(
      await app.api("/api/system/tasks/recycle_bin_purge/run", { method: "POST" }),
      200,
    );
    expect(ran.last_run! > before.last_run!).toBe(true);
    expect(ran.next_run).toBe(plus(ran.last_run!, 6 * HOUR_MS));
    expect((await bin()).map((e) => e.id)).toEqual([recent!.id]);

    // GraphQL runs the same task; nothing else expired, nothing else goes.
    const gql = await app.gql<{ runScheduledTask: { name: string; lastRun: string } }>(
      `mutation { runScheduledTask(name: RECYCLE_BIN_PURGE) { ${TASK_FIELDS} } }`,
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data?.runScheduledTask.name).toBe("RECYCLE_BIN_PURGE");
    expect(gql.data!.runScheduledTask.lastRun >= ran.last_run!).toBe(true);
    expect((await bin()).map((e) => e.id)).toEqual([recent!.id]);
  });

  it("leaves the bin alone while the library folder is away: nothing marked purged, purged once it is back", async () => {
    await createSeriesWithFiles(app, "Beta", { books: [], chapters: [1, 2] });
    await scanLibrary(app);
    const [file, other] = await app.ctx.db.libraryFile.findMany({
      where: { path: { startsWith: "Beta/" } },
      orderBy: { path: "asc" },
    });
    if (!file || !other) throw new Error("two chapter files expected");
    // Prepared state: the file retired through the service three days ago.
    await app.services.publication.retire([file.id], "test");
    const entry = (await bin()).find((e) => e.original_path === file.path)!;
    await app.ctx.db.recycleEntry.update({
      where: { id: entry.id },
      data: { recycledAt: new Date(Date.now() - 3 * 24 * HOUR_MS) },
    });
    const root = app.config.libraryRoot;
    const copy = (at: string) => path.join(at, ".recycle-bin", ...entry.bin_path.split("/"));
    const away = `${root}-unmounted`;
    renameSync(root, away);
    try {
      await expectJson(await app.api("/api/system/tasks/recycle_bin_purge/run", { method: "POST" }), 200);
      expect((await bin()).map((e) => e.id)).toContain(entry.id);
      await expectProblem(
        await app.api(`/api/recycle-bin/${entry.id}`, { method: "DELETE" }),
        503,
        "library_root_missing",
      );
      // Restoring or retiring meanwhile is refused as clearly, not taken for files gone.
      await expectProblem(
        await app.api(`/api/recycle-bin/${entry.id}/restore`, { method: "POST" }),
        503,
        "library_root_missing",
      );
      await expect(app.services.publication.retire([other.id], "test")).rejects.toMatchObject({
        code: "library_root_missing",
      });
      expect((await bin()).map((e) => e.id)).toContain(entry.id);
      expect(existsSync(copy(away))).toBe(true);
    } finally {
      renameSync(away, root);
    }
    await expectJson(await app.api("/api/system/tasks/recycle_bin_purge/run", { method: "POST" }), 200);
    expect((await bin()).map((e) => e.id)).not.toContain(entry.id);
    expect(existsSync(copy(root))).toBe(false);
  });

  const tasks = async () => (await expectJson<{ tasks: Task[] }>(await app.api("/api/system/tasks"), 200)).tasks;
});
