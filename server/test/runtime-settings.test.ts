/**
 * The service's runtime settings (`runtime-settings.ts`): the main applies them before the app is
 * created, and they make V8 collect its old generation sooner, so promoted garbage does not pile up
 * before the first full collection (docs/benchmarks.md, downloads). Counted, not timed: full
 * collections of the same run of garbage in a child process, with the settings and without. And
 * the start script's environment: a process started with it has libuv's larger thread pool.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serviceStart } from "../bench/harness.ts";

const PROBE = path.join(import.meta.dirname, "runtime-settings", "gc-probe.ts");

function fullCollections(mode: "on" | "off"): number {
  // The young generation as the start script sets it.
  const r = spawnSync(process.execPath, ["--max-semi-space-size=2", "--import", "tsx", PROBE, mode], {
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

/** Threads of a process that has used libuv's thread pool (more requests than any pool has threads). */
function threadsAfterPoolUse(env: Record<string, string>): number {
  const probe = `
    const fs = require("node:fs");
    Promise.all(Array.from({ length: 64 }, () => fs.promises.stat("/"))).then(() =>
      console.log(fs.readdirSync("/proc/self/task").length));`;
  const r = spawnSync(process.execPath, ["-e", probe], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
  });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe("runtime settings", () => {
  it("the start script gives the service libuv's thread pool of 8 (4 without it)", () => {
    // The start script's environment, as the benchmarks read it to start the service.
    const { env } = serviceStart();
    expect(env.UV_THREADPOOL_SIZE).toBe("8");
    const { UV_THREADPOOL_SIZE: _size, ...without } = env;
    // The pool's threads are the only difference between the two processes.
    expect(threadsAfterPoolUse(env) - threadsAfterPoolUse(without)).toBe(8 - 4);
  });

  it("V8 collects the old generation at least twice as often with them", () => {
    const off = fullCollections("off");
    const on = fullCollections("on");
    expect(off).toBeGreaterThan(0);
    expect(on).toBeGreaterThanOrEqual(2 * off);
  });

  it("the service's main applies them before it creates the app", () => {
    const main = readFileSync(path.join(import.meta.dirname, "..", "src", "main.ts"), "utf8");
    const applied = main.indexOf("applyRuntimeSettings();");
    expect(applied).toBeGreaterThan(0);
    expect(applied).toBeLessThan(main.indexOf("await createApp("));
  });
});
