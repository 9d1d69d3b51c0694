import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { binFolderName, checkStagedPath, checkTargetRelPath, freeNameCandidates } from "./library-paths.ts";

describe("checkTargetRelPath", () => {
  it.each([
    "Alpha/Alpha - c001.cbz",
    "Alpha/Extras/Alpha - c001.5.zip",
    "Alpha/Alpha v01 [en].CBZ",
    "Alpha/Alpha - c002 (2).cbz",
  ])("accepts %s", (rel) => {
    expect(checkTargetRelPath(rel, "Alpha")).toBe(rel);
  });

  it.each([
    ["../Alpha/x.cbz", "inside the series folder"],
    ["Alpha/../Beta/x.cbz", "'..'"],
    ["Alpha/./x.cbz", "'.'"],
    ["Alpha//x.cbz", "empty"],
    ["Beta/x.cbz", "inside the series folder"],
    ["/Alpha/x.cbz", "relative"],
    ["C:/Alpha/x.cbz", "relative"],
    ["Alpha\\x.cbz", "forward slashes"],
    ["Alpha/.staging/x.cbz", "hidden"],
    ["Alpha/.x.cbz", "hidden"],
    ["Alpha/x.pdf", ".cbz or .zip"],
    ["Alpha", "names no file"],
    ["Alpha/", "empty"],
    ["Alpha/a:b.cbz", "portable"],
    ["Alpha/con.cbz", "portable"],
    ["Alpha/x.cbz ", "portable"],
    ["", "non-empty"],
  ])("refuses %s (%s)", (rel, why) => {
    expect(() => checkTargetRelPath(rel, "Alpha")).toThrow(
      expect.objectContaining({ code: "invalid_field", message: expect.stringContaining(why) }),
    );
  });

  it("refuses what is not a string", () => {
    expect(() => checkTargetRelPath(42, "Alpha")).toThrow(expect.objectContaining({ code: "invalid_field" }));
  });
});

describe("freeNameCandidates", () => {
  it("tries the name, then numbered names before the extension", () => {
    const it = freeNameCandidates("Alpha/Alpha - c001.cbz", 4);
    expect([...it]).toEqual([
      "Alpha/Alpha - c001.cbz",
      "Alpha/Alpha - c001 (2).cbz",
      "Alpha/Alpha - c001 (3).cbz",
      "Alpha/Alpha - c001 (4).cbz",
    ]);
  });
});

describe("binFolderName", () => {
  it("is the UTC time to the second and a random suffix", () => {
    expect(binFolderName(new Date(Date.UTC(2026, 10, 21, 7, 8, 40, 123)), "1a2b3c4d")).toBe(
      "20261121T070840Z-1a2b3c4d",
    );
  });
});

describe("checkStagedPath", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "library-paths-"));
  const staging = path.join(root, "library", ".staging");
  mkdirSync(path.join(staging, "sub"), { recursive: true });
  writeFileSync(path.join(staging, "sub", "a.cbz"), "x");
  writeFileSync(path.join(root, "outside.cbz"), "x");
  symlinkSync(root, path.join(staging, "escape"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("accepts a file inside staging, also in a subfolder", async () => {
    expect(await checkStagedPath(path.join(staging, "sub", "a.cbz"), staging)).toBe(path.join(staging, "sub", "a.cbz"));
  });

  it.each([
    ["relative", "sub/a.cbz"],
    ["outside", "OUT"],
    ["the staging folder itself", "STAGING"],
    ["through '..'", "DOTDOT"],
    ["through a symbolic link", "LINK"],
    ["in a missing folder", "MISSING"],
  ])("refuses a path %s", async (_why, p) => {
    const candidate =
      p === "OUT"
        ? path.join(root, "outside.cbz")
        : p === "STAGING"
          ? staging
          : p === "DOTDOT"
            ? `${staging}/../outside.cbz`
            : p === "LINK"
              ? path.join(staging, "escape", "outside.cbz")
              : p === "MISSING"
                ? path.join(staging, "nope", "a.cbz")
                : p;
    await expect(checkStagedPath(candidate, staging)).rejects.toMatchObject({ code: "invalid_field" });
  });
});
