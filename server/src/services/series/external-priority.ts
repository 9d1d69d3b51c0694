/**
 * External volumes replace assemblies (docs/rules.md, "Assembly"; rule in domain/external-priority.ts).
 * "Imported" happens today in two places: the library scan records a new book file, and
 * `publication.publish` puts a downloaded or imported book into the library. Both are wrapped here
 * (services/index.ts) so that after them the assembled copies an external copy replaces go to the
 * recycle bin through `publication.retire` — never deleted, restorable from the bin.
 */
import { buildCoverageIndex } from "../../domain/coverage.ts";
import { assemblyReplacements, type AssemblyReplacement } from "../../domain/external-priority.ts";
import { seriesForm } from "../../domain/series-form.ts";
import type { Publication, PublishInput, PublishResult } from "../../library/publication.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import type { AppContext } from "../context.ts";

export const REPLACED_REASON = "replaced by an external volume";

export interface Replaced extends AssemblyReplacement {
  seriesId: number;
  retired: { fileId: number; recycleEntryId: number }[];
}

export function externalPriority(ctx: AppContext, publication: Pick<Publication, "retire">) {
  /** Retires the assembled copies the series' external copies replace; one outcome per volume. */
  async function applySeries(seriesId: number): Promise<Replaced[]> {
    const snapshot = await loadSnapshot(ctx.db, seriesId);
    if (!snapshot) return [];
    const index = buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series), estimates: false });
    const out: Replaced[] = [];
    for (const r of assemblyReplacements(snapshot, index)) {
      const retired = await publication.retire(r.assembledFileIds, REPLACED_REASON);
      out.push({
        ...r,
        seriesId,
        retired: retired.map((x) => ({ fileId: x.fileId, recycleEntryId: x.recycleEntryId })),
      });
      ctx.log(
        `assembly: book ${r.volume} of series ${seriesId} replaced by an external volume (files ${r.externalFileIds.join(", ")})`,
      );
    }
    if (out.length > 0) ctx.events.publish("series_changed", seriesId);
    return out;
  }

  /** Every series that has an active assembled book (few): the scan does not say which it touched. */
  async function applyAll(): Promise<Replaced[]> {
    const out: Replaced[] = [];
    for (const seriesId of await ctx.repos.files.seriesWithAssembledBooks()) out.push(...(await applySeries(seriesId)));
    return out;
  }

  return { applySeries, applyAll };
}

export type ExternalPriority = ReturnType<typeof externalPriority>;

/** The scan, followed by the priority step (a failure of the step is logged, the scan stands). */
export function scanWithPriority<S extends { scan(): Promise<unknown> }>(
  ctx: AppContext,
  scan: S,
  priority: ExternalPriority,
): S & { running(): boolean } {
  let running = 0;
  const run = async () => {
    running += 1;
    try {
      const result = await scan.scan();
      await priority
        .applyAll()
        .catch((e: unknown) => ctx.log(`assembly: external priority after scan failed: ${(e as Error).message}`));
      return result;
    } finally {
      running -= 1;
    }
  };
  // The assembly monitor defers while a scan (an import) is under way.
  return { ...scan, scan: run as S["scan"], running: () => running > 0 };
}

/**
 * The verification service, whose recorded proof runs the priority step for its series: a suspect
 * external copy waits for its proof, and once verified it wins like any other external copy.
 */
export function verificationWithPriority<V extends { verify(seriesId: number, ...rest: never[]): Promise<unknown> }>(
  ctx: AppContext,
  verification: V,
  priority: ExternalPriority,
): V {
  const verify = async (seriesId: number, ...rest: never[]) => {
    const result = await verification.verify(seriesId, ...rest);
    await priority
      .applySeries(seriesId)
      .catch((e: unknown) => ctx.log(`assembly: external priority after a proof failed: ${(e as Error).message}`));
    return result;
  };
  return { ...verification, verify: verify as V["verify"] };
}

/** The publication, whose publish of an external book runs the priority step for its series. */
export function publicationWithPriority(ctx: AppContext, publication: Publication): Publication {
  const priority = externalPriority(ctx, publication);
  return {
    ...publication,
    async publish(input: PublishInput): Promise<PublishResult> {
      const result = await publication.publish(input);
      if (input.file.kind === "book" && input.file.origin !== "assembled") {
        await priority
          .applySeries(input.seriesId)
          .catch((e: unknown) => ctx.log(`assembly: external priority after publish failed: ${(e as Error).message}`));
      }
      return result;
    },
  };
}
