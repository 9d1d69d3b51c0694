/**
 * Translation jobs as use cases: list, upload a source for one book or chapter, explicit retry,
 * cancel, the destination-language change, pause/resume on the toggles, a native release's pause
 * and resume, and
 * the search (a normal Wanted pass, then the fallback: translation-fallback-service.ts). Every change
 * of a row is decided by the pure machine (domain/translation-jobs.ts) and stored with a guarded
 * update (same state, same attempt); the worker (translation-worker*.ts) does the network.
 */
import {
  ACTIVE_STATES,
  formatJobId,
  jobKey,
  jobActions,
  parseJobId,
  transition,
  type JobFacts,
  type PausedReason,
  type TranslationEvent,
  type TranslationState,
} from "../../domain/translation-jobs.ts";
import { nativeEvent, type NativeSituation } from "../../domain/translation-native.ts";
import { acceptsArchiveBody, mediaTypeOf } from "../../domain/archive-media-type.ts";
import { parseLabel, type Label } from "../../domain/labels.ts";
import { AppError } from "../../errors.ts";
import {
  translationRepo,
  type NewTranslationJob,
  type TranslationJobRow,
} from "../../repositories/translation-repo.ts";
import type { AppContext } from "../context.ts";
import { checkSourceArchive, copySource, discardSource, placeSource, receiveBody } from "./translation-upload.ts";

/** The public status (docs/api.md, "Translation jobs"); `state` keeps the exact internal one. */
export type TranslationStatus = "queued" | "running" | "completed" | "failed" | "cancelling" | "cancelled";

export interface TranslationJobView {
  id: string;
  status: TranslationStatus;
  state: TranslationState;
  seriesId: number;
  target: { kind: "volume" | "chapter"; number: string };
  sourceLanguage: string;
  targetLanguage: string;
  sourceSha256: string | null;
  progress: { pagesDone: number; pagesTotal: number | null } | null;
  error: { code: string; message: string } | null;
  attempt: number;
  engine: string;
  origin: string;
  cancelPending: boolean;
  /** The operator may retry this attempt / cancel it (decided by the job machine). */
  retryable: boolean;
  cancellable: boolean;
  pausedReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TranslationSearchResult {
  created: TranslationJobView[];
  skipped: { kind: string; number: string; reason: string }[];
  queuedDownloads: number;
}

/**
 * Internal state → public status. A job is `completed` only once its translation is in the library
 * (imported); the processor's completed result waiting for import is still `running` (it may wait,
 * paused, for re-enablement). A paused job shows the status of the state it resumes to.
 */
export function publicStatus(state: TranslationState, pausedFrom: TranslationState | null): TranslationStatus {
  switch (state) {
    case "queued":
    case "uploading":
    case "submitted":
      return "queued";
    case "running":
    case "completed":
    case "importing":
      return "running";
    case "imported":
      return "completed";
    case "failed":
      return "failed";
    case "cancelling":
      return "cancelling";
    case "cancelled":
      return "cancelled";
    case "paused":
      return pausedFrom === null || pausedFrom === "paused" ? "queued" : publicStatus(pausedFrom, null);
  }
}

/** The view of a job that is the newest attempt of its target (just created, retried or moved). */
export function jobView(r: TranslationJobRow): TranslationJobView {
  return attemptView(r, true);
}

/** `newest`: no later attempt of the same target exists (only the newest may be retried). */
export function attemptView(r: TranslationJobRow, newest: boolean): TranslationJobView {
  const state = r.state as TranslationState;
  return {
    id: formatJobId(r.jobKey, r.attempt),
    status: publicStatus(state, r.pausedFrom as TranslationState | null),
    state,
    seriesId: r.seriesId,
    target: { kind: r.kind === "chapter" ? "chapter" : "volume", number: r.number },
    sourceLanguage: r.sourceLanguage,
    targetLanguage: r.targetLanguage,
    sourceSha256: r.sourceSha256,
    progress:
      r.pagesDone === null && r.pagesTotal === null ? null : { pagesDone: r.pagesDone ?? 0, pagesTotal: r.pagesTotal },
    error: r.errorCode === null ? null : { code: r.errorCode, message: r.errorMessage ?? "" },
    attempt: r.attempt,
    engine: r.engine,
    origin: r.origin,
    cancelPending: r.cancelPending,
    ...jobActions(factsOf(r), { newest, hasSource: r.sourcePath !== null }),
    pausedReason: r.pausedReason,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export const factsOf = (r: TranslationJobRow): JobFacts => ({
  state: r.state as TranslationState,
  attempt: r.attempt,
  targetLanguage: r.targetLanguage,
  pausedFrom: r.pausedFrom as TranslationState | null,
  pausedReason: r.pausedReason as PausedReason | null,
  cancelPending: r.cancelPending,
});

/**
 * A refusal of the machine as an AppError for the operation the user asked for: a cancelled id
 * says so (a retry uses the next number); anything else is "not retryable" or "not cancellable".
 */
function refusal(operation: "retry" | "cancel", code: string, detail: string): AppError {
  if (code === "translation_cancelled") return new AppError("translation_cancelled", detail, { refused: code });
  if (operation === "retry") return new AppError("translation_not_retryable", detail, { refused: code });
  return new AppError("translation_not_cancellable", detail, { refused: code });
}

/** Tells subscribers (GraphQL translationProgress) and the library listeners that a job changed. */
export function announce(ctx: AppContext, r: TranslationJobRow): void {
  ctx.events.translations.publish({
    jobId: formatJobId(r.jobKey, r.attempt),
    seriesId: r.seriesId,
    state: r.state,
    pagesDone: r.pagesDone,
    pagesTotal: r.pagesTotal,
    errorCode: r.errorCode,
  });
  ctx.events.publish("series_changed", r.seriesId);
}

export interface TranslationServiceDeps {
  /** The engine new jobs use: a non-empty processor URL selects `external` (translation-settings.ts). */
  engine(): Promise<"external" | "local">;
}

export interface UploadQuery {
  sourceLanguage: string | undefined;
  volume: string | undefined;
  chapter: string | undefined;
}

export interface UploadBody {
  /** The body, asked for only after every check that needs no byte of it passed. */
  stream: () => ReadableStream<Uint8Array> | null;
  /** The Content-Length; null when the request had none (411). */
  length: number | null;
  /** A file name from Content-Disposition (only used to spot packs). */
  fileName: string | null;
  /** The Content-Type header (an archive type, a byte stream or none; anything else is 415). */
  contentType?: string | null;
}

const LANGUAGE_RE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;
/** "1-5", "v01-05", "1~3", "1,2": a pack in a number parameter. */
const RANGE_RE = /^\s*v?\d+(\.\d+)?\s*(-|–|~|\.\.|to|,)\s*v?\d+/i;

export function translationService(ctx: AppContext, deps: TranslationServiceDeps) {
  const repo = translationRepo(ctx.db);
  // Wakes the worker after a row changed; a no-op until the worker registers (useWorker).
  let kickWorker: () => void = () => {};
  const kick = () => kickWorker();

  async function byPublicId(id: string): Promise<TranslationJobRow> {
    const parsed = parseJobId(id);
    if (!parsed)
      throw new AppError(
        "translation_job_id_invalid",
        `${JSON.stringify(id)} is not <32 lowercase hex>-<retry number>`,
      );
    const row = await repo.byKey(parsed.key, parsed.attempt);
    if (!row) throw new AppError("translation_job_not_found", `no translation job ${id}`);
    return row;
  }

  /**
   * Applies `event` to the row through the machine and stores `next` only from the state and
   * attempt it was read in. A lost race reads the row again (a few times) and decides anew.
   */
  async function apply(
    row: TranslationJobRow,
    event: TranslationEvent,
  ): Promise<{ row: TranslationJobRow; refused: string | null }> {
    let current = row;
    for (let tries = 0; tries < 5; tries++) {
      const r = transition(factsOf(current), event);
      if ("refused" in r) return { row: current, refused: r.refused };
      const { next } = r;
      const moved = await repo.move(
        current.id,
        { state: current.state, attempt: current.attempt },
        {
          state: next.state,
          pausedFrom: next.pausedFrom,
          pausedReason: next.pausedReason,
          cancelPending: next.cancelPending,
          ...(r.error !== undefined
            ? { errorCode: r.error?.code ?? null, errorMessage: r.error?.message ?? null }
            : {}),
          ...(r.progress ? { pagesDone: r.progress.pagesDone, pagesTotal: r.progress.pagesTotal } : {}),
        },
      );
      const fresh = await repo.get(current.id);
      if (!fresh) throw new AppError("translation_job_not_found");
      if (moved) {
        announce(ctx, fresh);
        return { row: fresh, refused: null };
      }
      current = fresh;
    }
    throw new AppError("translation_not_cancellable", "the job kept changing: try again");
  }

  async function target(seriesId: number, q: UploadQuery): Promise<{ kind: "volume" | "chapter"; number: Label }> {
    const hasVolume = q.volume !== undefined && q.volume !== "",
      hasChapter = q.chapter !== undefined && q.chapter !== "";
    if (hasVolume === hasChapter) throw new AppError("bad_request", "give exactly one of volume=<n> or chapter=<n>");
    const kind = hasVolume ? ("volume" as const) : ("chapter" as const);
    const text = (hasVolume ? q.volume : q.chapter)!;
    if (RANGE_RE.test(text))
      throw new AppError(
        "translation_pack_refused",
        `${kind} ${JSON.stringify(text)} is a range: split the pack into one archive per ${kind === "volume" ? "book" : "chapter"} first`,
      );
    const number = parseLabel(text);
    if (number === null)
      throw new AppError("invalid_label", `${kind} must be an exact decimal number such as "3" or "10.5"`, {
        field: kind,
      });
    const series = await ctx.repos.series.get(seriesId);
    if (!series) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    const slot =
      kind === "volume"
        ? await ctx.repos.slots.volume(seriesId, number)
        : await ctx.repos.slots.chapter(seriesId, number);
    // The managed edition: a book beyond edition_book_count is another edition's numbering.
    const beyondEdition =
      kind === "volume" && series.editionBookCount !== null && Number(number) > series.editionBookCount;
    if (!slot || beyondEdition) {
      throw new AppError(
        "translation_target_unknown",
        `the managed edition of series ${seriesId} has no ${kind === "volume" ? "book" : "chapter"} ${number}`,
        { kind, number },
      );
    }
    return { kind, number };
  }

  /** The attempt a new job of `key` gets: 0, or the newest + 1 once that one ended. */
  async function nextAttempt(key: string): Promise<number> {
    const newest = await repo.newest(key);
    if (!newest) return 0;
    if (
      (ACTIVE_STATES as readonly string[]).includes(newest.state) ||
      newest.state === "paused" ||
      newest.state === "cancelling"
    ) {
      throw new AppError(
        "translation_job_active",
        `job ${formatJobId(newest.jobKey, newest.attempt)} is ${newest.state}: cancel it first`,
        { job: formatJobId(newest.jobKey, newest.attempt) },
      );
    }
    return newest.attempt + 1;
  }

  async function createJob(
    job: Omit<NewTranslationJob, "attempt" | "sourcePath"> & { received: string },
  ): Promise<TranslationJobRow> {
    let placed: string | null = null;
    try {
      const attempt = await nextAttempt(job.jobKey);
      placed = await placeSource(ctx.config, job.received, job.jobKey, attempt);
      const { received: _received, ...rest } = job;
      const row = await repo.create({ ...rest, attempt, sourcePath: placed });
      kick();
      announce(ctx, row);
      return row;
    } catch (e) {
      await discardSource(placed ?? job.received);
      // Two uploads for one target at once: the unique (key, attempt) lets one win.
      if ((e as { code?: string }).code === "P2002")
        throw new AppError("translation_job_active", "another job for this target was just created");
      throw e;
    }
  }

  const self = {
    async list(seriesId?: number): Promise<TranslationJobView[]> {
      if (seriesId !== undefined && !(await ctx.repos.series.get(seriesId)))
        throw new AppError("series_not_found", `series ${seriesId} does not exist`);
      const rows = await repo.list(seriesId);
      const newest = new Map<string, number>();
      for (const r of rows) newest.set(r.jobKey, Math.max(newest.get(r.jobKey) ?? r.attempt, r.attempt));
      return rows.map((r) => attemptView(r, newest.get(r.jobKey) === r.attempt));
    },

    async get(id: string): Promise<TranslationJobView> {
      const row = await byPublicId(id);
      return attemptView(row, (await repo.newest(row.jobKey))?.attempt === row.attempt);
    },

    /**
     * A source archive for one book or chapter of the managed edition. Checked in this order:
     * Content-Length (411), content type (415), series (404), the number (422 unknown, 422 a range), the source language,
     * then the body: staged, hashed, opened with the hardened reader, packs refused by name.
     */
    async upload(seriesId: number, q: UploadQuery, body: UploadBody): Promise<TranslationJobView> {
      if (body.length === null)
        throw new AppError("length_required", "the upload needs a Content-Length header (no chunked bodies)");
      if (!acceptsArchiveBody(body.contentType))
        throw new AppError(
          "unsupported_media_type",
          `send the CBZ itself as the body (application/zip), not ${JSON.stringify(mediaTypeOf(body.contentType).slice(0, 60))}`,
        );
      const t = await target(seriesId, q);
      const series = (await ctx.repos.series.get(seriesId))!;
      let source = q.sourceLanguage ?? "";
      if (source === "original") source = series.originalLanguage ?? "";
      if (!LANGUAGE_RE.test(source))
        throw new AppError(
          "invalid_field",
          'source_language must be a language code such as "ja" (or "original" when the work\'s language is known)',
          { field: "source_language" },
        );
      if (source.split("-")[0] === series.language.split("-")[0])
        throw new AppError("invalid_field", `the source language equals the series language (${series.language})`, {
          field: "source_language",
        });
      const key = jobKey({ seriesId, kind: t.kind, number: t.number, destination: series.language });
      await nextAttempt(key); // refuse before reading a large body when a job is under way
      const received = await receiveBody(ctx.config, body.stream, body.length);
      try {
        await checkSourceArchive(ctx.config, received.path, body.fileName);
      } catch (e) {
        await discardSource(received.path);
        throw e;
      }
      const row = await createJob({
        jobKey: key,
        seriesId,
        kind: t.kind,
        number: t.number,
        sourceLanguage: source,
        targetLanguage: series.language,
        engine: await deps.engine(),
        origin: "upload",
        sourceSha256: received.sha256,
        received: received.path,
      });
      return jobView(row);
    },

    /** Explicit retry: a new row (attempt + 1) with its own copy of the source in its own staging directory. */
    async retry(id: string): Promise<TranslationJobView> {
      const row = await byPublicId(id);
      const r = transition(factsOf(row), { type: "retry" });
      if ("refused" in r)
        throw refusal("retry", r.refused, `job ${id} is ${row.state}: only a failed or cancelled job can be retried`);
      const newest = await repo.newest(row.jobKey);
      if (newest && newest.attempt !== row.attempt)
        throw new AppError(
          "translation_not_retryable",
          `job ${id} was already retried as ${formatJobId(newest.jobKey, newest.attempt)}`,
        );
      if (!row.sourcePath)
        throw new AppError("translation_not_retryable", `job ${id} has no source archive in staging to retry from`);
      const attempt = r.next.attempt;
      const sourcePath = await copySource(ctx.config, row.sourcePath, row.jobKey, attempt).catch((e: unknown) => {
        throw new AppError(
          "translation_not_retryable",
          `the source archive of job ${id} is gone from staging (${(e as NodeJS.ErrnoException).code ?? "error"})`,
        );
      });
      try {
        const created = await repo.create({
          jobKey: row.jobKey,
          attempt,
          seriesId: row.seriesId,
          kind: row.kind === "chapter" ? "chapter" : "volume",
          number: row.number,
          sourceLanguage: row.sourceLanguage,
          targetLanguage: row.targetLanguage,
          engine: await deps.engine(),
          origin: row.origin as NewTranslationJob["origin"],
          sourceMappingId: row.sourceMappingId,
          sourcePath,
          sourceSha256: row.sourceSha256,
        });
        kick();
        announce(ctx, created);
        return jobView(created);
      } catch (e) {
        if ((e as { code?: string }).code === "P2002")
          throw new AppError("translation_not_retryable", `job ${id} was already retried`);
        await discardSource(sourcePath);
        throw e;
      }
    },

    /** Cancel: cancelling with a durable DELETE pending (the worker sends it), or straight to cancelled when never sent. */
    async cancel(id: string): Promise<TranslationJobView> {
      const { row, refused } = await apply(await byPublicId(id), { type: "cancel" });
      if (refused) throw refusal("cancel", refused, `job ${id} is ${row.state}: it can no longer be cancelled`);
      kick();
      return jobView(row);
    },

    /** The series' destination changed: active jobs of the old language are cancelled (imported files stay). */
    async onDestinationChanged(seriesId: number, newLanguage: string): Promise<number> {
      let n = 0;
      for (const row of await repo.inStates([...ACTIVE_STATES, "paused"], { seriesId })) {
        if ((await apply(row, { type: "destination_changed", newLanguage })).refused === null) n += 1;
      }
      if (n > 0) kick();
      return n;
    },

    /** A toggle went off (globally, or for one series): active jobs pause; running requests may finish. */
    async pauseAll(reason: PausedReason, seriesId?: number): Promise<number> {
      let n = 0;
      for (const row of await repo.inStates([...ACTIVE_STATES, "paused"], seriesId === undefined ? {} : { seriesId })) {
        if ((await apply(row, { type: reason })).refused === null) n += 1;
      }
      return n;
    },

    /** Both toggles are on again: jobs paused by a toggle resume where they were (not those a native release paused). */
    async resumeAll(seriesId?: number): Promise<number> {
      let n = 0;
      for (const row of await repo.inStates(["paused"], seriesId === undefined ? {} : { seriesId })) {
        if ((await apply(row, { type: "toggle_on" })).refused === null) n += 1;
      }
      if (n > 0) kick();
      return n;
    },

    /** After a Wanted pass: each job meets its slot's native situation (domain/translation-native.ts). */
    async followNative(
      seriesId: number,
      situationOf: (kind: "volume" | "chapter", number: string) => NativeSituation,
      enabled: boolean,
    ): Promise<{ paused: number; resumed: number }> {
      const out = { paused: 0, resumed: 0 };
      for (const row of await repo.inStates([...ACTIVE_STATES, "paused"], { seriesId })) {
        const kind = row.kind === "chapter" ? "chapter" : "volume";
        const event = nativeEvent({ ...factsOf(row), origin: row.origin }, situationOf(kind, row.number), enabled);
        if (!event || (await apply(row, event)).refused !== null) continue;
        if (event.type === "native_release") out.paused += 1;
        else out.resumed += 1;
      }
      if (out.resumed > 0) kick();
      return out;
    },

    /** Creates a job whose source archive is already staged (the fallback's foreign releases). */
    async createFromStaged(
      job: Omit<NewTranslationJob, "attempt" | "sourcePath" | "engine"> & { received: string },
    ): Promise<TranslationJobView> {
      return jobView(await createJob({ ...job, engine: await deps.engine() }));
    },

    /** The worker registers its wake-up here. */
    useWorker(wake: () => void): void {
      kickWorker = wake;
    },
    apply,
    repo,
  };
  return self;
}

export type TranslationService = ReturnType<typeof translationService>;
