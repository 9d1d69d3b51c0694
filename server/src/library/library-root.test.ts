import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAppError } from "../errors.ts";
import {
  isLibraryFolderAway,
  libraryRootPresent,
  libraryRootState,
  mkdirStaging,
  requireLibraryFolder,
  requireLibraryRoot,
} from "./library-root.ts";

describe("the library folder is never made by a write", () => {
  let base: string;
  let root: string;
  beforeEach(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), "library-root-"));
    root = path.join(base, "library");
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => (isAppError(e) ? e.code : String(e)),
    );

  it("makes staging folders below a root that is there", async () => {
    await mkdir(root);
    expect(await libraryRootPresent(root)).toBe(true);
    await mkdirStaging(path.join(root, ".staging", "downloads", "7", "1"));
    expect(existsSync(path.join(root, ".staging", "downloads", "7", "1"))).toBe(true);
  });

  it("refuses with library_root_missing, and makes nothing, when the root is gone", async () => {
    expect(await libraryRootPresent(root)).toBe(false);
    expect(await refusal(requireLibraryRoot(root))).toBe("library_root_missing");
    expect(await refusal(mkdirStaging(path.join(root, ".staging", "assembly")))).toBe("library_root_missing");
    expect(existsSync(root)).toBe(false);
    expect(await requireLibraryRoot(root).catch(isLibraryFolderAway)).toBe(true);
    expect(isLibraryFolderAway(new Error("library_root_missing"))).toBe(false);
  });

  it("takes a file where the root should be for a missing root", async () => {
    await writeFile(root, "not a folder");
    expect(await refusal(requireLibraryRoot(root))).toBe("library_root_missing");
  });

  it("is only for the staging area", async () => {
    await mkdir(root);
    expect(await refusal(mkdirStaging(path.join(root, "Some Series")))).toMatch(/not in the staging area/);
  });

  it("tells an empty mount point from a fresh library by the files recorded, asking only when it must", async () => {
    let asked = 0;
    const recorded = (answer: boolean) => async () => {
      asked += 1;
      return answer;
    };
    expect(await libraryRootState(root, recorded(true))).toBe("missing");
    await mkdir(path.join(root, ".staging"), { recursive: true });
    await writeFile(path.join(root, "stray.cbz"), "");
    // No series folder (the staging area and loose files are none).
    expect(await libraryRootState(root, recorded(true))).toBe("empty");
    expect(await libraryRootState(root, recorded(false))).toBe("present");
    expect(asked).toBe(2);
    await mkdir(path.join(root, "Some Series"));
    expect(await libraryRootState(root, recorded(true))).toBe("present");
    expect(asked).toBe(2);
  });

  it("refuses a write into an empty mount point too, and lets one through a fresh or mounted library", async () => {
    const recorded = (answer: boolean) => () => Promise.resolve(answer);
    expect(await refusal(requireLibraryFolder(root, recorded(true)))).toBe("library_root_missing");
    await mkdir(root);
    expect(await refusal(requireLibraryFolder(root, recorded(true)))).toBe("library_root_empty");
    expect(await requireLibraryFolder(root, recorded(true)).catch(isLibraryFolderAway)).toBe(true);
    // Nothing recorded: a fresh library, whose first series folder this write may make.
    expect(await refusal(requireLibraryFolder(root, recorded(false)))).toBe(null);
    await mkdir(path.join(root, "Some Series"));
    expect(await refusal(requireLibraryFolder(root, recorded(true)))).toBe(null);
  });
});
