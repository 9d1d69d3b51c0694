import { readdir } from "node:fs/promises";
import { generateDemoLibrary } from "../../library/demo.ts";
import { isSeriesFolder } from "../../library/library-root.ts";
import type { AppContext } from "../context.ts";
import type { Services } from "../index.ts";

/** The series folders under the library root. */
async function seriesFolders(ctx: AppContext): Promise<number> {
  return (await readdir(ctx.config.libraryRoot, { withFileTypes: true })).filter(isSeriesFolder).length;
}

/** True when the library root has no series folder and the database no series. */
async function libraryIsEmpty(ctx: AppContext): Promise<boolean> {
  return (await ctx.repos.series.count()) === 0 && (await seriesFolders(ctx)) === 0;
}

/**
 * Series folders no scan has recorded yet, when the database holds no series at all: a first start
 * over an existing collection, which waits for its first scan (0 once any series is known).
 */
export async function unscannedSeriesFolders(ctx: AppContext): Promise<number> {
  return (await ctx.repos.series.count()) > 0 ? 0 : seriesFolders(ctx);
}

/**
 * First start with an empty library: writes the demo series (real CBZ files), scans them like any
 * library, then records what a scan cannot know (publication status, book counts, the operator map
 * of the mapped series) through the ordinary services.
 */
export async function seedDemoLibraryIfEmpty(ctx: AppContext, services: Services): Promise<boolean> {
  if (!(await libraryIsEmpty(ctx))) return false;
  const started = Date.now();
  const plan = await generateDemoLibrary(ctx.config.libraryRoot);
  await services.scan.scan();
  for (const demo of plan.series) {
    const row = await ctx.repos.series.byFolder(demo.folder);
    if (!row) continue;
    await services.series.update(row.id, {
      title: demo.title,
      status: demo.status,
      knownBookCount: demo.knownBookCount,
      webtoon: demo.webtoon,
      language: demo.language,
    });
    await ctx.repos.slots.ensureVolumes(row.id, demo.volumes, true);
    await ctx.repos.slots.ensureChapters(row.id, demo.chapters, true);
    if (demo.operatorMap) {
      const revision = await ctx.repos.maps.operatorRevision(row.id);
      await services.maps.replace(row.id, { revision, entries: demo.operatorMap }, false);
    }
    // The books the generator wrote from known chapters get their proof, like any typed one.
    const owned = demo.proofs.length > 0 ? await services.verification.list(row.id) : [];
    for (const proof of demo.proofs) {
      const book = owned.find((b) => b.volume === proof.volume);
      if (book)
        await services.verification.verify(row.id, proof.volume, {
          digest: book.digest,
          chapters: proof.chapters,
          note: proof.note,
        });
    }
  }
  ctx.log(
    `demo library: ${plan.series.length} series written to ${ctx.config.libraryRoot} in ${Date.now() - started} ms`,
  );
  return true;
}
