/**
 * main.ts as the operator runs it (a child process): --help, the refusal to listen on a
 * non-loopback host without a token (exit code 2), and a start on loopback that prints its address
 * and stops cleanly on SIGTERM.
 */
import { spawn, spawnSync } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./processor-harness.ts";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const MAIN = path.join(ROOT, "server", "src", "processor", "main.ts");
let dir: string;
const env = () => {
  const e = { ...process.env };
  delete e.TRANSLATION_PROCESSOR_TOKEN;
  return e;
};

beforeAll(async () => {
  dir = await tempDir("processor-main-");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("processor main", () => {
  it("--help lists the launch options", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", MAIN, "--help"], {
      cwd: ROOT,
      env: env(),
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    for (const o of [
      "--state",
      "--host",
      "--config",
      "--cpu",
      "--checkpoint-directory",
      "--engine-python",
      "--engine-root",
      "TRANSLATION_PROCESSOR_TOKEN",
    ])
      expect(r.stdout).toContain(o);
  });

  it("refuses a non-loopback --host without a token (exit code 2)", () => {
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", MAIN, "--host", "0.0.0.0:0", "--state", path.join(dir, "s1")],
      { cwd: ROOT, env: env(), encoding: "utf8" },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("TRANSLATION_PROCESSOR_TOKEN");
  });

  it("refuses an engine python without an engine root (exit code 2)", () => {
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", MAIN, "--engine-python", "python3", "--state", path.join(dir, "s2")],
      { cwd: ROOT, env: env(), encoding: "utf8" },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--engine-root");
  });

  it("starts on loopback, prints its address, answers 404 for an unknown job and stops on SIGTERM", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        MAIN,
        "--host",
        "127.0.0.1:0",
        "--state",
        path.join(dir, "s3"),
        "--engine-python",
        "python3",
        "--engine-root",
        dir,
      ],
      { cwd: ROOT, env: env(), stdio: ["ignore", "pipe", "pipe"] },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on("exit", (code) => reject(new Error(`exited early with ${code}`)));
    });
    const res = await fetch(`${url}/jobs/${"a".repeat(32)}-0`);
    expect(res.status).toBe(404);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
