/**
 * The hostile corpus against the one archive reader: the generator writes every archive into a
 * fresh directory, and each must give exactly the outcome of its manifest entry, through
 * openArchive (and every page and entry read) and through the scan's readArchiveIndex. Reading
 * must create or change no file: the corpus directory is fingerprinted before and after, and the
 * process's temporary directory points at an empty folder that must stay empty.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERRORS } from "../server/src/errors.ts";
import { readArchiveIndex } from "../server/src/library/archive-index.ts";
import {
  ArchiveError,
  archiveOpenCount,
  openArchive,
  type ArchiveHandle,
} from "../server/src/library/archive-reader.ts";
import { generateCorpus, type CorpusCase, type Expected } from "./corpus/generate.ts";

const work = mkdtempSync(path.join(os.tmpdir(), "hostile-archives-"));
const corpusDir = path.join(work, "corpus");
const manifest: CorpusCase[] = await generateCorpus(corpusDir);
const originalTmpdir = process.env.TMPDIR;

/** Name, size, mtime and SHA-256 of every file under dir. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    const rel = path.relative(dir, p);
    if (!e.isFile()) {
      out[rel] = e.isDirectory() ? "dir" : "other";
      continue;
    }
    const st = statSync(p);
    out[rel] = `${st.size} ${st.mtimeMs} ${createHash("sha256").update(readFileSync(p)).digest("hex")}`;
  }
  return out;
}

let before: Record<string, string>;
beforeAll(() => {
  before = fingerprint(corpusDir);
  // Anything (sharp and libvips included) that wanted a temporary file would put it here.
  process.env.TMPDIR = mkdtempSync(path.join(work, "tmp-"));
});

afterAll(() => {
  if (originalTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = originalTmpdir;
  rmSync(work, { recursive: true, force: true });
});

async function settle<T>(p: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await p };
  } catch (error) {
    return { error };
  }
}

function expectRefusal(error: unknown, expected: Extract<Expected, { outcome: "refused" }>): void {
  expect(error, `expected ${expected.code}`).toBeInstanceOf(ArchiveError);
  const e = error as ArchiveError;
  expect({ code: e.code, entry: e.entry }).toEqual({ code: expected.code, entry: expected.entry });
  expect(e.status).toBe(ERRORS[expected.code].status);
  expect(e.extra.entry).toBe(expected.entry);
  expect(e.message).not.toContain(corpusDir); // details reach clients: no absolute paths
}

/** Every page through readPage, then every ignored entry through readEntry: the first failure, if any. */
async function readEverything(a: ArchiveHandle): Promise<unknown> {
  try {
    for (let i = 0; i < a.pages.length; i++) {
      const data = await a.readPage(i);
      expect(data.length).toBe(a.pages[i]?.size);
    }
    for (const name of a.ignored) await a.readEntry(name);
    return null;
  } catch (e) {
    return e;
  }
}

describe("the hostile archive corpus", () => {
  it("has at least 30 archives, each in the manifest once, covering every archive and image problem code", () => {
    expect(manifest.length).toBeGreaterThanOrEqual(30);
    const files = readdirSync(corpusDir)
      .filter((f) => f !== "manifest.json")
      .sort();
    expect(files).toEqual(manifest.map((c) => c.file).sort());
    expect(new Set(files).size).toBe(files.length);
    const written = JSON.parse(readFileSync(path.join(corpusDir, "manifest.json"), "utf8")) as CorpusCase[];
    expect(written).toEqual(manifest);
    const covered = new Set(manifest.flatMap((c) => (c.expect.outcome === "refused" ? [c.expect.code] : [])));
    // archive_not_found is the one code no file can produce.
    const codes = Object.keys(ERRORS).filter((c) => /^(archive|image)_/.test(c) && c !== "archive_not_found");
    expect([...covered].sort()).toEqual(codes.sort());
    expect(manifest.filter((c) => c.expect.outcome === "ok").length).toBeGreaterThanOrEqual(15);
  });

  it.each(manifest.map((c) => [c.file, c] as const))("%s", async (_file, c) => {
    const abs = path.join(corpusDir, c.file);
    const opensBefore = archiveOpenCount();
    const opened = await settle(openArchive(abs, c.limits));
    expect(archiveOpenCount()).toBe(opensBefore + 1);
    const index = await settle(readArchiveIndex(abs, c.limits));
    const x = c.expect;
    if (x.outcome === "refused" && x.stage === "open") {
      expect("value" in opened, c.about).toBe(false);
      if ("error" in opened) expectRefusal(opened.error, x);
      if ("error" in index) expectRefusal(index.error, x);
      else expect.unreachable("readArchiveIndex accepted what openArchive refuses");
      return;
    }
    if (!("value" in opened)) throw opened.error;
    const archive = opened.value;
    try {
      if (x.outcome === "ok") {
        expect(archive.pages.map((p) => p.name)).toEqual(x.pages);
        expect(archive.ignored).toEqual(x.ignored);
        expect(archive.comicInfoXml).toBe(x.comicInfo);
        expect("value" in index && index.value).toEqual({
          pageCount: x.pages.length,
          pageNames: x.pages,
          comicInfoXml: x.comicInfo,
          ignoredEntries: x.ignored,
        });
        expect(await readEverything(archive)).toBeNull();
      } else {
        // Refused only when read: the scan's index (no page read) still describes the archive.
        expect("value" in index && index.value.pageCount).toBe(archive.pages.length);
        expectRefusal(await readEverything(archive), x);
      }
    } finally {
      await archive.close();
    }
  });

  it("created or changed no file while reading: the corpus is byte for byte as written, the temporary folder empty", () => {
    expect(fingerprint(corpusDir)).toEqual(before);
    const tmp = process.env.TMPDIR as string;
    expect(path.dirname(tmp)).toBe(work);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(work).sort()).toEqual(["corpus", path.basename(tmp)].sort());
  });
});
