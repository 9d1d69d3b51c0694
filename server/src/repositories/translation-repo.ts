/**
 * Translation job rows: one row per attempt (jobKey + attempt is the public id `<key>-<attempt>`).
 * A row changes only through `move`, guarded by id, the state it was read in and its attempt, so a
 * late answer about an older attempt, a cancel and the worker can never overwrite each other. The
 * worker's moves also name the epoch of its claim (several instances: `takeOver`), so an instance
 * that stalled past its claim moves nothing once another instance took the job over.
 */
import type { Db } from "../db/client.ts";
import type { Prisma, TranslationJob } from "../generated/prisma/client.ts";

export type TranslationJobRow = TranslationJob;
export type TranslationJobUpdate = Prisma.TranslationJobUpdateManyMutationInput;

/** Everything a new attempt row needs; state defaults to queued. */
export interface NewTranslationJob {
  jobKey: string;
  attempt: number;
  seriesId: number;
  kind: "volume" | "chapter";
  number: string;
  sourceLanguage: string;
  targetLanguage: string;
  engine: string;
  origin: "upload" | "source" | "indexer";
  sourceMappingId?: number | null;
  sourcePath: string | null;
  sourceSha256: string | null;
  state?: string;
}

export function translationRepo(db: Db) {
  return {
    create: (job: NewTranslationJob) => db.translationJob.create({ data: { ...job, state: job.state ?? "queued" } }),
    get: (id: number) => db.translationJob.findUnique({ where: { id } }),
    /** The id of one attempt of a job. */
    idOf: (jobKey: string, attempt: number) =>
      db.translationJob.findUnique({ where: { jobKey_attempt: { jobKey, attempt } }, select: { id: true } }),
    /** An attempt of the job staged from a torrent that neither failed nor was cancelled. */
    stagedFromIndexer: (jobKey: string) =>
      db.translationJob.findFirst({
        where: { jobKey, origin: "indexer", state: { notIn: ["failed", "cancelled"] } },
        select: { id: true },
      }),
    jobKeysOf: (ids: readonly number[]) =>
      db.translationJob.findMany({ where: { id: { in: [...ids] } }, select: { jobKey: true } }),
    /** The state of a job's newest attempt. */
    newestState: (jobKey: string) =>
      db.translationJob.findFirst({ where: { jobKey }, orderBy: { attempt: "desc" }, select: { state: true } }),
    /** What the fallback plan reads of a series' jobs. */
    planFacts: (seriesId: number) =>
      db.translationJob.findMany({
        where: { seriesId },
        select: { kind: true, number: true, targetLanguage: true, state: true },
      }),
    /** The jobs of these engines in these states, oldest first, with their series' fallback flag. */
    working: (engines: readonly string[], states: readonly string[]) =>
      db.translationJob.findMany({
        where: { engine: { in: [...engines] }, state: { in: [...states] } },
        orderBy: { id: "asc" },
        include: { series: { select: { translationFallbackEnabled: true } } },
      }),
    /** By public id parts (`<key>-<attempt>`). */
    byKey: (jobKey: string, attempt: number) =>
      db.translationJob.findUnique({ where: { jobKey_attempt: { jobKey, attempt } } }),
    /** The newest attempt of a key (the one a retry starts from). */
    newest: (jobKey: string) => db.translationJob.findFirst({ where: { jobKey }, orderBy: { attempt: "desc" } }),
    /** Newest first; every attempt is listed (older attempts keep their own outcome). */
    list: (seriesId?: number, take = 1000) =>
      db.translationJob.findMany({
        where: seriesId === undefined ? {} : { seriesId },
        orderBy: [{ id: "desc" }],
        take,
      }),
    /** Rows of a series in one of `states`. */
    inStates: (states: readonly string[], where: { seriesId?: number } = {}) =>
      db.translationJob.findMany({
        where: { state: { in: [...states] }, ...(where.seriesId !== undefined ? { seriesId: where.seriesId } : {}) },
        orderBy: { id: "asc" },
      }),
    /**
     * Moves the row only when it is still in `expected` at `attempt`; false when someone else moved
     * it first (the caller reads it again and decides anew).
     */
    async move(
      id: number,
      expected: { state: string; attempt: number; epoch?: number },
      data: TranslationJobUpdate,
    ): Promise<boolean> {
      const { state, attempt, epoch } = expected;
      const where = { id, state, attempt, ...(epoch === undefined ? {} : { epoch }) };
      return (await db.translationJob.updateMany({ where, data })).count === 1;
    },
    /**
     * A new claim of the row by a worker: its epoch counts up from `epoch` (the one read), unless
     * another worker counted it up first or a publication of the job is in flight (its instance, or
     * the recovery sweep, finishes that first). The new epoch, or null.
     */
    async takeOver(id: number, epoch: number): Promise<number | null> {
      const taken = await db.translationJob.updateMany({
        where: { id, epoch, journalId: null },
        data: { epoch: epoch + 1 },
      });
      return taken.count === 1 ? epoch + 1 : null;
    },
    /** How many rows are in `states` (overall, or per engine). */
    count: (states: readonly string[], engine?: string) =>
      db.translationJob.count({ where: { state: { in: [...states] }, ...(engine ? { engine } : {}) } }),
    /** Jobs of a series per state (the panel's summary, the fallback's per-series limit). */
    async countsBySeries(seriesId: number): Promise<Record<string, number>> {
      const rows = await db.translationJob.groupBy({ by: ["state"], where: { seriesId }, _count: { _all: true } });
      return Object.fromEntries(rows.map((r) => [r.state, r._count._all]));
    },
  };
}

export type TranslationRepo = ReturnType<typeof translationRepo>;
