/**
 * The series' page shape for the content check of its downloads (domain/conformity.ts
 * `seriesShapeOf`). The series' median page aspect is not stored: it is the median of the
 * `medianAspect` figures of its newest 50 downloads that passed, and when there are none, of the
 * median aspects of its newest files on disk (a collection scanned before any download), read from
 * the headers of a few pages of each (archive-page-info.ts: no page is decoded). Degraded
 * downloads never count, so a bad source cannot shift the baseline.
 *
 * The files' medians are kept per series while its sampled files stay the same (ids and contents),
 * so a series whose downloads keep failing the judgement opens its files once, not per download.
 * A file the hardened reader refuses is left out of the sample (and logged): the shape of a series
 * never fails a download. Such an answer is not kept, so the file is read again next time (it may
 * have been in the middle of a move).
 */
import path from "node:path";
import { parseStoredVerdict, needsFileAspects, seriesShapeOf, type SeriesShape } from "../../domain/conformity.ts";
import { AppError } from "../../errors.ts";
import { archiveMedianAspect } from "../../library/archive-page-info.ts";
import type { AppContext } from "../context.ts";

/** States of earlier downloads whose verdict tells how the series' pages are shaped (they passed). */
const PASSED_STATES = ["publishing", "published"] as const;
/** Newest passed downloads whose figures count. */
const ASPECT_HISTORY = 50;
/** Newest files on disk measured when no passed download tells the shape. */
const FILE_SAMPLE = 3;
/** Series whose files' medians are kept. */
const CACHE_SIZE = 256;

export function seriesPageShape(ctx: AppContext) {
  const filesCache = new Map<number, { key: string; medians: (number | null)[] }>();

  async function fileMedians(seriesId: number): Promise<(number | null)[]> {
    const sample = await ctx.repos.files.shapeSample(seriesId, FILE_SAMPLE);
    const key = sample.map((f) => `${f.id}:${f.sha256}`).join(",");
    const kept = filesCache.get(seriesId);
    if (kept?.key === key) return kept.medians;
    const medians: (number | null)[] = [];
    let refused = false;
    for (const f of sample) {
      try {
        const abs = path.join(ctx.config.libraryRoot, ...f.path.split("/"));
        medians.push(await archiveMedianAspect(abs, ctx.config.archiveLimits));
      } catch (e) {
        ctx.log(
          `series ${seriesId}: page shape of file ${f.id} not read: ${e instanceof Error ? e.message : String(e)}`,
        );
        medians.push(null);
        refused = true;
      }
    }
    filesCache.delete(seriesId);
    if (refused) return medians;
    filesCache.set(seriesId, { key, medians });
    while (filesCache.size > CACHE_SIZE) filesCache.delete(filesCache.keys().next().value as number);
    return medians;
  }

  return {
    /** The shape the judgement of download `downloadId` (left out of the history) uses. */
    async of(seriesId: number, downloadId: number): Promise<SeriesShape> {
      const series = await ctx.repos.series.get(seriesId);
      if (!series) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      if (series.webtoon) return seriesShapeOf(true, [], []);
      const verdicts = await ctx.repos.downloads.verdictsOf(seriesId, PASSED_STATES, downloadId, ASPECT_HISTORY);
      const downloadMedians = verdicts.map((text) => {
        const v = parseStoredVerdict(text);
        return v && typeof v.figures.medianAspect === "number" ? v.figures.medianAspect : null;
      });
      const files = needsFileAspects(false, downloadMedians) ? await fileMedians(seriesId) : [];
      return seriesShapeOf(false, downloadMedians, files);
    },
  };
}
