/**
 * Small durable writes for translation state (checkpoints, processor job records, result ZIPs):
 * written to a temporary name beside the target, fsynced, renamed over it, the folder fsynced. A
 * crash leaves either the old file or the new one, never half of one; stray temporaries are ignored
 * by readers (they never match a final name) and removed by `removeTemporaries`.
 */
import { randomBytes } from "node:crypto";
import { open, readdir, readFile, rename, rm, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { ensureDir, fsyncDir } from "../library/durable-fs.ts";
import { StoredZipWriter } from "../library/stored-zip-writer.ts";

const TMP_PREFIX = ".tmp-";

const tempBeside = (target: string) =>
  path.join(path.dirname(target), `${TMP_PREFIX}${path.basename(target)}-${randomBytes(4).toString("hex")}`);

/** Writes `target` through a temporary beside it: `write` fills it, then fsync, rename, fsync of the folder. */
async function publishThroughTemp(target: string, write: (fh: FileHandle) => Promise<void>): Promise<void> {
  await ensureDir(path.dirname(target));
  const tmp = tempBeside(target);
  const fh = await open(tmp, "wx", 0o600);
  try {
    await write(fh);
    await fh.sync();
    await fh.close();
    await rename(tmp, target);
  } catch (e) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(path.dirname(target));
}

/** Writes `data` at `target` atomically and durably. */
export function writeFileAtomic(target: string, data: Buffer | string): Promise<void> {
  return publishThroughTemp(target, (fh) => fh.writeFile(data));
}

/** JSON variant of writeFileAtomic. */
export function writeJsonAtomic(target: string, value: unknown): Promise<void> {
  return writeFileAtomic(target, `${JSON.stringify(value, null, 2)}\n`);
}

/** Removes temporaries a crash left in `dir` (not recursive). */
export async function removeTemporaries(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith(TMP_PREFIX)).map((n) => rm(path.join(dir, n), { force: true })));
}

/** One output page of a translation result: its entry name (= the source page's) and its bytes. */
export interface ResultPage {
  name: string;
  /** The page bytes, or the path of a file holding them. */
  data: Buffer | { file: string };
}

export const RECEIPT_ENTRY = "translation.json";

/**
 * Writes a protocol v1 result ZIP atomically: the pages in order under their source names, then
 * `translation.json` at the top level, nothing else (stored, no compression: pages are images).
 */
export function writeResultZip(target: string, pages: readonly ResultPage[], receipt: unknown): Promise<void> {
  return publishThroughTemp(target, async (fh) => {
    const zip = new StoredZipWriter(fh, { mtime: new Date(Date.UTC(2000, 0, 1)) });
    for (const p of pages) await zip.addBuffer(p.name, Buffer.isBuffer(p.data) ? p.data : await readFile(p.data.file));
    await zip.addBuffer(RECEIPT_ENTRY, Buffer.from(`${JSON.stringify(receipt, null, 2)}\n`, "utf8"));
    await zip.finish();
  });
}
