/**
 * Start-up recovery: every journal entry left by a crash is finished or undone, oldest first, so
 * that afterwards disk and database agree (every active row's bytes at its path, every recycled
 * row's bytes in the bin, nothing in both, nothing lost, no journaled file left in staging).
 */
import type { JournalEntry } from "./journal.ts";
import type { Engine } from "./publication-core.ts";
import { recoverPublish } from "./publish.ts";
import { recoverPurge, recoverRestore } from "./recycle-bin.ts";
import { recoverRetire } from "./retirement.ts";
import { sweepStaging } from "./staging-sweep.ts";

function recoverOne(engine: Engine, entry: JournalEntry): Promise<"replayed" | "rolledBack"> {
  switch (entry.op) {
    case "publish":
      return recoverPublish(engine, entry);
    case "retire":
      return recoverRetire(engine, entry);
    case "restore":
      return recoverRestore(engine, entry);
    case "purge":
      return recoverPurge(engine, entry);
  }
}

/** Meant for start-up, before anything else writes to the library. */
export async function recover(engine: Engine): Promise<{ replayed: number; rolledBack: number }> {
  const counts = { replayed: 0, rolledBack: 0 };
  let failed = 0;
  // Walks by id so that entries created on the way (a retirement chained to a publication) are seen too.
  for (let lastId = 0; ;) {
    const entry = await engine.store.nextJournalEntry(lastId);
    if (!entry) break;
    lastId = entry.id;
    try {
      counts[await recoverOne(engine, entry)] += 1;
    } catch (e) {
      // The entry stays and is tried again at the next start; the others still get their turn.
      failed += 1;
      engine.ctx.log(`recovery: ${entry.op} ${entry.id} at step ${entry.step} failed: ${(e as Error).message}`);
    }
  }
  if (counts.replayed + counts.rolledBack + failed > 0) {
    engine.ctx.log(
      `recovery: ${counts.replayed} finished, ${counts.rolledBack} undone, ${failed} left for the next start`,
    );
  }
  // What no unfinished entry names is a leftover of an interrupted operation.
  await sweepStaging(engine);
  return counts;
}
