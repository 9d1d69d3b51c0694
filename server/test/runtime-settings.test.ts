/**
 * The service's runtime settings (`runtime-settings.ts`): the main applies them before the app is
 * created, and they make V8 collect its old generation sooner, so promoted garbage does not pile up
 * before the first full collection (docs/benchmarks.md, downloads). Counted, not timed: full
 * collections of the same run of garbage in a child process, with the settings and without.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const PROBE = path.join(import.meta.dirname, "runtime-settings", "gc-probe.ts");

function fullCollections(mode: "on" | "off"): number {
  // The young generation as the start script sets it.
  const r = spawnSync(process.execPath, ["--max-semi-space-size=2", "--import", "tsx", PROBE, mode], {
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe("runtime settings", () => {
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
