/**
 * The background side of an instance (INSTANCE_ROLE `worker` or `all`): the recycle-bin purge, the
 * automatic assembly, the download workers and the Wanted schedule, the translation worker, the
 * catalogue refresh and the scheduled library scan. Workers wake when another instance queues work (the event bus's `work`
 * channel, through Redis when there is one); with several instances on one database, the recovery
 * sweep after each lease renewal takes over what dead instances left (library/cluster.ts) and looks
 * for work anyway, so nothing waits for a wake-up that a missing Redis could not carry.
 */
import type { AppContext } from "./context.ts";
import type { Services } from "./index.ts";
import { startDownloads } from "./acquisition/download-pipeline-wiring.ts";
import { PURGE_INTERVAL_MS } from "../library/publication.ts";

/** Starts the background work; returns the stop, which waits for the cycles and jobs under way. */
export async function startBackground(ctx: AppContext, services: Services): Promise<() => Promise<void>> {
  const { config, cluster } = ctx;
  await services.publication.purgeSchedule.start(PURGE_INTERVAL_MS);
  await services.assemblyMonitor.start(config.assemblyMonitorIntervalSeconds * 1000);
  const stopDownloads = await startDownloads(ctx, services);
  services.translationWorker.start();
  await services.catalogueRefresh.start(config.catalogues.refreshIntervalSeconds * 1000);
  if (config.libraryScanIntervalSeconds > 0)
    await services.scanSchedule.start(config.libraryScanIntervalSeconds * 1000);

  const work = ctx.events.subscribeWork();
  const listening = (async () => {
    for await (const w of work) {
      if (w.queue === "downloads") services.downloadPipeline.kick();
      else services.translationWorker.kick();
    }
  })().catch((e: unknown) => ctx.log(`work events: ${(e as Error).message}`));

  const stopWaiting = cluster.exclusive ? recoverOnceLibraryIsBack(ctx, services) : async () => {};
  if (!cluster.exclusive) {
    cluster.onSweep(async () => {
      // The journal first: a download whose publication a dead instance left is published, not fetched again.
      await services.publication.recoverExpired();
      await services.downloadPipeline.resume();
      services.downloadPipeline.kick();
      services.translationWorker.kick();
    });
  }

  return async () => {
    await stopWaiting();
    await work.return();
    await listening;
    const stopped = await Promise.allSettled([
      services.publication.purgeSchedule.stop(),
      services.assemblyMonitor.stop(),
      stopDownloads(),
      services.translationWorker.stop(),
      services.catalogueRefresh.stop(),
      services.scanSchedule.stop(),
    ]);
    for (const r of stopped) if (r.status === "rejected") ctx.log(`shutdown: ${String(r.reason)}`);
  };
}

/**
 * Alone on its database, an instance whose start-up recovery found the library folder away (an
 * unmounted disk) finishes those operations once it is back, looking every DOWNLOAD_POLL_MS, then
 * lets the download workers take up the rows those publications held. Returns the stop.
 */
function recoverOnceLibraryIsBack(ctx: AppContext, services: Services): () => Promise<void> {
  if (!services.publication.waitingForLibrary()) return async () => {};
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const look = async () => {
    try {
      // Finished here, or by an operation that came first (it finishes them before its own work).
      await services.publication.recoverWaiting();
      if (!services.publication.waitingForLibrary()) {
        await services.downloadPipeline.resume();
        services.downloadPipeline.kick();
        services.translationWorker.kick();
      }
    } catch (e) {
      ctx.log(`recovery: ${(e as Error).message}`);
    }
    if (!stopped && services.publication.waitingForLibrary()) timer = setTimeout(tick, ctx.config.downloads.pollMs);
  };
  const tick = () => {
    running = look();
  };
  timer = setTimeout(tick, ctx.config.downloads.pollMs);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
