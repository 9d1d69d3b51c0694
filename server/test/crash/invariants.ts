/**
 * What must hold between the library on disk and the database after any publication, retirement,
 * restore or purge, finished or recovered: read from the real files and the real rows.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, lstat } from "node:fs/promises";
import path from "node:path";
import { stateDirs, type Config } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";

export interface DiskFile {
  /** Relative to its area's root, forward slashes. */
  rel: string;
  size: number;
  sha256: string;
  ino: number;
}

export interface LibraryState {
  library: DiskFile[];
  bin: DiskFile[];
  staging: DiskFile[];
}

async function walk(root: string, skipDotDirs: boolean): Promise<DiskFile[]> {
  const out: DiskFile[] = [];
  const visit = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(root, rel), { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      throw e;
    }
    for (const e of entries) {
      const childRel = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!(skipDotDirs && e.name.startsWith("."))) await visit(childRel);
      } else {
        const abs = path.join(root, childRel);
        const [st, bytes] = await Promise.all([lstat(abs), readFile(abs)]);
        out.push({
          rel: childRel,
          size: st.size,
          sha256: createHash("sha256").update(bytes).digest("hex"),
          ino: st.ino,
        });
      }
    }
  };
  await visit("");
  return out.sort((a, b) => (a.rel < b.rel ? -1 : 1));
}

/** Every file in the library (dot-folders excluded), the recycle bin and staging. */
export async function readLibraryState(config: Pick<Config, "libraryRoot" | "dataDir">): Promise<LibraryState> {
  const dirs = stateDirs(config);
  return {
    library: await walk(config.libraryRoot, true),
    bin: await walk(dirs.recycleBin, false),
    staging: await walk(dirs.staging, false),
  };
}

/**
 * The agreement of disk and database, as a list of violations (empty when it holds):
 * no unfinished journal entry; every active row's file at its path with its size and sha256, and
 * every library file recorded by exactly one active row; every recycled entry's bytes in the bin
 * with its size and sha256, its row recycled, and every bin file belonging to a recycled entry;
 * no file with a name both in the library and in the bin or staging.
 */
export async function violations(db: Db, config: Pick<Config, "libraryRoot" | "dataDir">): Promise<string[]> {
  const out: string[] = [];
  const state = await readLibraryState(config);
  const journal = await db.publicationJournal.findMany();
  for (const j of journal) out.push(`journal entry ${j.id} (${j.op}) left at step ${j.step}`);

  const files = await db.libraryFile.findMany();
  const onDisk = new Map(state.library.map((f) => [f.rel, f]));
  const activeByPath = new Map<string, number>();
  for (const r of files.filter((f) => f.state === "active")) {
    activeByPath.set(r.path, (activeByPath.get(r.path) ?? 0) + 1);
    const d = onDisk.get(r.path);
    if (!d) out.push(`active file ${r.id} is not on disk at ${r.path}`);
    else if (d.size !== Number(r.size) || d.sha256 !== r.sha256)
      out.push(`active file ${r.id} at ${r.path} differs from its record`);
  }
  for (const [p, n] of activeByPath) if (n > 1) out.push(`${n} active rows for ${p}`);
  for (const d of state.library) if (!activeByPath.has(d.rel)) out.push(`library file ${d.rel} has no active row`);

  const entries = await db.recycleEntry.findMany();
  const inBin = new Map(state.bin.map((f) => [f.rel, f]));
  const recycled = entries.filter((e) => e.state === "recycled");
  for (const e of recycled) {
    const d = inBin.get(e.binPath);
    if (!d) out.push(`recycle entry ${e.id} has no bytes at ${e.binPath}`);
    else if (d.size !== Number(e.size) || d.sha256 !== e.sha256)
      out.push(`recycle entry ${e.id} differs from its bytes`);
    // An entry of a removed series has no file row any more (nor a series): only its bytes count.
    if (e.fileId === null && e.seriesId === null) continue;
    const row = files.find((f) => f.id === e.fileId);
    if (!row || row.state !== "recycled" || row.recycledAt === null)
      out.push(`recycle entry ${e.id}: its file row is ${row?.state ?? "gone"}`);
  }
  for (const r of files.filter((f) => f.state === "recycled")) {
    if (!entries.some((e) => e.fileId === r.id && (e.state === "recycled" || e.state === "purged")))
      out.push(`recycled file ${r.id} has no bin entry`);
  }
  const binPaths = new Set(recycled.map((e) => e.binPath));
  for (const d of state.bin) if (!binPaths.has(d.rel)) out.push(`bin file ${d.rel} belongs to no recycled entry`);

  const libraryInodes = new Set(state.library.map((f) => f.ino));
  for (const d of [...state.bin, ...state.staging])
    if (libraryInodes.has(d.ino)) out.push(`${d.rel} is also in the library (a second name)`);
  return out;
}

/** How often each content (sha256) occurs across the library, the bin and staging. */
export function contentCounts(state: LibraryState): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of [...state.library, ...state.bin, ...state.staging])
    counts.set(f.sha256, (counts.get(f.sha256) ?? 0) + 1);
  return counts;
}
