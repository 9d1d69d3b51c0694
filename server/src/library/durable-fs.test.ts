import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  dropSecondName,
  ensureDir,
  moveNoClobber,
  removeEmptyDirs,
  sameFile,
  sha256File,
  statOrNull,
  TargetExistsError,
} from "./durable-fs.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "durable-fs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const p = (...parts: string[]) => path.join(dir, ...parts);

describe("moveNoClobber", () => {
  it("moves the bytes to the new name; in between, both names are one file", async () => {
    writeFileSync(p("a"), "alpha");
    let between: boolean | null = null;
    await moveNoClobber(p("a"), p("b"), async () => {
      const [a, b] = [await statOrNull(p("a")), await statOrNull(p("b"))];
      between = a !== null && b !== null && sameFile(a, b);
    });
    expect(between).toBe(true);
    expect(existsSync(p("a"))).toBe(false);
    expect(readFileSync(p("b"), "utf8")).toBe("alpha");
  });

  it("never replaces a file at the new name, and leaves both untouched", async () => {
    writeFileSync(p("a"), "alpha");
    writeFileSync(p("b"), "beta");
    await expect(moveNoClobber(p("a"), p("b"))).rejects.toBeInstanceOf(TargetExistsError);
    expect(readFileSync(p("a"), "utf8")).toBe("alpha");
    expect(readFileSync(p("b"), "utf8")).toBe("beta");
  });

  it("fails on a missing source without creating the target", async () => {
    await expect(moveNoClobber(p("nothing"), p("b"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(existsSync(p("b"))).toBe(false);
  });
});

describe("helpers", () => {
  it("statOrNull: null for nothing, a path through a file and a path too long to exist", async () => {
    writeFileSync(p("f"), "x");
    expect(await statOrNull(p("none"))).toBeNull();
    expect(await statOrNull(p("f", "child"))).toBeNull();
    expect(await statOrNull(p("x".repeat(5000)))).toBeNull();
    expect((await statOrNull(p("f")))?.size).toBe(1);
  });

  it("dropSecondName removes one name of a file that has two; the bytes stay under the other", async () => {
    writeFileSync(p("a"), "alpha");
    linkSync(p("a"), p("b"));
    await dropSecondName(p("a"));
    expect(existsSync(p("a"))).toBe(false);
    expect(readFileSync(p("b"), "utf8")).toBe("alpha");
  });

  it("ensureDir creates nested folders; removeEmptyDirs removes only empty ones, up to the stop", async () => {
    await ensureDir(p("bin", "x", "y", "z"));
    writeFileSync(p("bin", "x", "keep"), "k");
    await removeEmptyDirs(p("bin", "x", "y", "z"), p("bin"));
    expect(existsSync(p("bin", "x", "y"))).toBe(false);
    expect(existsSync(p("bin", "x", "keep"))).toBe(true);
    mkdirSync(p("bin", "empty"));
    await removeEmptyDirs(p("bin", "empty"), p("bin"));
    expect(existsSync(p("bin"))).toBe(true);
    expect(statSync(p("bin")).isDirectory()).toBe(true);
  });

  it("sha256File is the lowercase hex SHA-256", async () => {
    writeFileSync(p("f"), "abc");
    expect(await sha256File(p("f"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
