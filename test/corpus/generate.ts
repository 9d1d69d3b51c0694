/**
 * The hostile and odd archive corpus: writes every archive into a directory with a manifest of the
 * outcome the reader must give (`manifest.json`). Run `npx tsx test/corpus/generate.ts <dir>`, or
 * call generateCorpus(dir) (test/hostile-archives.test.ts does, into a temporary directory).
 *
 * An outcome is either `ok` (pages in natural order, ignored entries in directory order, the
 * ComicInfo text) or `refused` at `open` (the central directory or ComicInfo) or at `read`
 * (reading every page with readPage, then every ignored entry with readEntry, in that order).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { HOSTILE_CASES } from "./hostile-cases.ts";
import type { CaseBuilder, CorpusCase } from "./manifest.ts";
import { ODD_CASES } from "./odd-cases.ts";

export type { CorpusCase, Expected } from "./manifest.ts";

/** Every case: the odd ones that must read, then the hostile ones that must be refused. */
export const CORPUS: CaseBuilder[] = [...ODD_CASES, ...HOSTILE_CASES];

export async function generateCorpus(dir: string): Promise<CorpusCase[]> {
  await mkdir(dir, { recursive: true });
  const manifest: CorpusCase[] = [];
  for (const c of CORPUS) {
    await writeFile(path.join(dir, c.file), await c.build());
    manifest.push({ file: c.file, about: c.about, ...(c.limits ? { limits: c.limits } : {}), expect: c.expect });
  }
  await writeFile(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

// Also a command: `npx tsx test/corpus/generate.ts <dir>`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: tsx test/corpus/generate.ts <output dir>");
    process.exit(2);
  }
  const cases = await generateCorpus(path.resolve(dir));
  console.log(`${cases.length} archives and manifest.json written to ${path.resolve(dir)}`);
}
