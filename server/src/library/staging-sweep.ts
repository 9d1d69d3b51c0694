/**
 * The start-up sweep of staging: after recovery has finished or undone every interrupted journal
 * entry, a staged file that no unfinished entry names is left over from a crash (an assembly built
 * but not yet published, a torrent import copied but not yet journalled) and is removed, so that
 * staging never fills up. Areas whose owner resumes its own work after a restart and cleans them
 * itself are left alone: downloads (page folders of a running download) and translations (sources
 * of queued jobs, their checkpoints). Staged files are copies being built, never library files.
 */
import { lstat, readdir, rm, rmdir } from "node:fs/promises";
import path from "node:path";
import type { Engine } from "./publication-core.ts";

/** Top-level folders of staging whose owners resume from them and clean them themselves. */
export const STAGING_OWNED_ELSEWHERE = ["downloads", "translations"] as const;

async function namedByJournal(engine: Engine): Promise<Set<string>> {
  const named = new Set<string>();
  for (let lastId = 0; ;) {
    const entry = await engine.store.nextJournalEntry(lastId);
    if (!entry) break;
    lastId = entry.id;
    if (entry.op === "publish") named.add(path.join(engine.staging, ...entry.payload.staged.split("/")));
  }
  return named;
}

/**
 * Removes the staged files no unfinished journal entry names; answers how many. Alone on the
 * database it runs at start-up; with several instances (another may be building a file right now)
 * it removes only files older than `minAgeMs`.
 */
export async function sweepStaging(engine: Engine, minAgeMs = 0): Promise<number> {
  const before = Date.now() - minAgeMs;
  const named = await namedByJournal(engine);
  let removed = 0;
  const walk = async (dir: string, top: boolean): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      throw e;
    }
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (top && (STAGING_OWNED_ELSEWHERE as readonly string[]).includes(e.name)) continue;
      if (e.isDirectory()) {
        await walk(abs, false);
        // An emptied sub-folder goes too (a top-level area folder stays).
        if (!top) await rmdir(abs).catch(() => undefined);
        continue;
      }
      if (named.has(abs)) continue;
      // Files and symbolic links alike (a link is removed, never followed).
      const st = await lstat(abs).catch(() => null);
      if (!st || (minAgeMs > 0 && st.mtimeMs > before)) continue;
      await rm(abs, { force: true });
      removed += 1;
    }
  };
  await walk(engine.staging, true);
  if (removed > 0) engine.ctx.log(`recovery: removed ${removed} staged file(s) left by an interrupted operation`);
  return removed;
}
