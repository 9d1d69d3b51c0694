/** Shared by the drop-folder suites: chapters written as CBZs of drawn pages, and proof that nothing in a folder changed. */
import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { zipBuffer } from "./fixtures.ts";
import { drawnChapter } from "./fakes/suwayomi-server.ts";

/** A CBZ of drawn pages (real JPEGs the image check accepts), with `extra` entries after them. */
export async function drawnCbz(
  count: number,
  seed: number,
  extra: { name: string; data: Buffer }[] = [],
): Promise<Buffer> {
  const pages = await drawnChapter(count, seed);
  return zipBuffer([
    ...pages.map((p, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data: p.bytes })),
    ...extra,
  ]);
}

/** Every file under a folder with its SHA-256 and mtime (a link as "link"): nothing moved, changed or deleted. */
export async function folderSnapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const abs = path.join(e.parentPath, e.name);
    if (e.isSymbolicLink()) out[path.relative(dir, abs)] = "link";
    if (!e.isFile()) continue;
    const st = await stat(abs);
    out[path.relative(dir, abs)] = `${createHash("sha256")
      .update(await readFile(abs))
      .digest("hex")} ${st.mtimeMs}`;
  }
  return out;
}
