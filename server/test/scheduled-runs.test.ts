/**
 * The scheduled passes keep the time of their last cycle across restarts, as the *arr apps keep
 * their scheduled tasks: after a restart the Wanted pass and the assembly monitor say when they
 * last ran, their next cycle is one interval after that one, and a pass overdue at start runs at
 * once, with no request. From an empty service, through REST only; the restarts start the service
 * again on the same data folder.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import type { Config } from "../src/config.ts";
import { until } from "./downloads-fixtures.ts";
import { expectJson } from "./fixtures.ts";
import { createTestApp, TEST_API_KEY } from "./utils.ts";

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
  });
});
