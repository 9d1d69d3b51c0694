/**
 * scripts/system-packages.sh, the one list of Debian packages both README commands need: installs
 * what is missing as root, otherwise stops at once with the exact command. dpkg-query, id and
 * apt-get are stand-ins on PATH, so the test changes nothing on the machine.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const script = path.join(root, "scripts", "system-packages.sh");
const dir = mkdtempSync(path.join(os.tmpdir(), "mls-syspkg-"));
const aptLog = path.join(dir, "apt-get.log");

function stub(name: string, body: string) {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}
// Installed: whatever FAKE_INSTALLED lists (dpkg-query prints "installed:<name> " for each).
stub("dpkg-query", `for p in $FAKE_INSTALLED; do printf 'installed:%s ' "$p"; done`);
stub("id", `echo "$FAKE_UID"`);
stub("apt-get", `echo "$*" >> "${aptLog}"`);

function run(args: string[], env: { installed: string[]; uid: number }) {
  rmSync(aptLog, { force: true });
  const r = spawnSync("bash", [script, ...args], {
    encoding: "utf8",
    env: {
      PATH: `${dir}:/usr/bin:/bin`,
      FAKE_INSTALLED: env.installed.join(" "),
      FAKE_UID: String(env.uid),
    },
  });
  return { ...r, apt: existsSync(aptLog) ? readFileSync(aptLog, "utf8").trim().split("\n") : [] };
}

const list = (mode: string) =>
  spawnSync("bash", [script, "--list", mode], { encoding: "utf8" }).stdout.trim().split("\n");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scripts/system-packages.sh", () => {
  it("lists what the test command needs, the start command's packages included", () => {
    const test = list("test");
    for (const p of [
      "chromium",
      "tesseract-ocr",
      "tesseract-ocr-eng",
      "tesseract-ocr-jpn",
      "tesseract-ocr-jpn-vert",
      "tesseract-ocr-fra",
      "tesseract-ocr-spa",
      "fonts-dejavu-core",
      "fonts-noto-cjk",
      "python3",
      "sqlite3",
      "libvips-tools",
      "unzip",
      "zip",
      "postgresql",
      "redis-server",
      "libxml2-utils",
    ])
      expect(test).toContain(p);
    expect(list("start").every((p) => test.includes(p))).toBe(true);
    expect(list("start")).not.toContain("chromium");
  });

  it("does nothing when every package is installed", () => {
    const r = run(["test"], { installed: list("test"), uid: 1000 });
    expect(r.status).toBe(0);
    expect(r.apt).toEqual([]);
  });

  it("as another user, stops at once and prints the exact apt-get command for what is missing", () => {
    const start = list("start");
    const r = run(["start"], { installed: start.slice(1), uid: 1000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`sudo apt-get update && sudo apt-get install -y --no-install-recommends ${start[0]}\n`);
    expect(r.apt).toEqual([]);
  });

  it("as root, installs only what is missing with apt-get", () => {
    const test = list("test");
    const r = run(["test"], { installed: test.filter((p) => p !== "redis-server" && p !== "zip"), uid: 0 });
    expect(r.status).toBe(0);
    expect(r.apt).toEqual(["update -qq", "install -y -qq --no-install-recommends zip redis-server"]);
  });

  it("refuses an unknown command name", () => {
    expect(run(["deploy"], { installed: [], uid: 0 }).status).toBe(2);
  });

  it("is the one list: CI, npm start and npm test all call it", () => {
    expect(readFileSync(path.join(root, ".ci", "run"), "utf8")).toMatch(/scripts\/system-packages\.sh test/);
    expect(readFileSync(path.join(root, ".ci", "run"), "utf8")).not.toMatch(/apt-get install/);
    const setup = readFileSync(path.join(root, "scripts", "setup.mjs"), "utf8");
    expect(setup).toMatch(/system-packages\.sh/);
    expect(setup).toMatch(/start: \{ packages: "start"/);
    expect(setup).toMatch(/test: \{ packages: "test"/);
  });
});
