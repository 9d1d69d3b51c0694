/**
 * Book assembly (docs/rules.md, "Assembly"; services/confirmation.ts): the preview plans a
 * book (domain/assembly.ts) and signs its boundaries and source files (ids, sha256, size, mtime);
 * the confirm re-plans, answers 409 with the code that says what changed, builds the archive in the
 * staging folder (library/assembler.ts) and publishes it with its provenance, retiring the chapter
 * files through the recycle bin in the same recoverable sequence (library/publish.ts).
 * The series action previews every book that is not owned and assembles the ready ones, one
 * outcome per book.
 */
import { rm } from "node:fs/promises";
import { requireNoActiveDownload } from "../acquisition/download-service.ts";
import { stateDirs } from "../../config.ts";
import { planAssembly, volumeTag, type AssemblyPlan, type AssemblyRefusal } from "../../domain/assembly.ts";
import { buildCoverageIndex } from "../../domain/coverage.ts";
import { languageInSeries } from "../../domain/file-language.ts";
import { parseLabel, type Label } from "../../domain/labels.ts";
import { seriesForm } from "../../domain/series-form.ts";
import type { AssembledFromV1, SeriesSnapshot } from "../../domain/types.ts";
import { AppError, isAppError, type ErrorCode } from "../../errors.ts";
import { buildBook } from "../../library/assembler.ts";
import type { PublishInput, PublishResult } from "../../library/publication.ts";
import { fileIdentities, type FileIdentity } from "../../repositories/audit-repo.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import { canonicalJson, createConfirmations } from "../confirmation.ts";
import { releaseRepo } from "../../repositories/release-repo.ts";
import type { AppContext } from "../context.ts";
import { boundariesLock } from "../series/boundaries-lock.ts";

export const ASSEMBLY_KINDS = { book: "assembly.book", series: "assembly.series" } as const;

/** The part of the publication module assembly needs. */
export interface Publisher {
  publish(input: PublishInput): Promise<PublishResult>;
}

/** What a preview signs for one book: its boundaries and its source files as they are now. */
export interface BookBinding {
  volume: Label;
  chapters: Label[];
  files: FileIdentity[];
}

export interface AssemblyPreview {
  volume: Label;
  fileName: string;
  /** Library path the book will get (or the next free "name (2).cbz"). */
  path: string;
  chapters: { number: Label; fileIds: number[] }[];
  files: { id: number; path: string; sha256: string; size: number }[];
  confirmation: string;
  expiresAt: string;
}

export interface AssemblyResult {
  volume: Label;
  fileId: number;
  path: string;
  sha256: string;
  pageCount: number;
  retired: { fileId: number; recycleEntryId: number; from: string; binPath: string }[];
}

/** One book of a series action: ready (preview) / assembled (confirm) / refused with its code. */
export interface BookOutcome {
  volume: Label;
  status: "ready" | "assembled" | "refused";
  code: ErrorCode | null;
  detail: string | null;
  result: AssemblyResult | null;
}

export interface SeriesAssemblyPreview {
  seriesId: number;
  books: BookOutcome[];
  /** Signs the ready books only; null when none is ready. */
  confirmation: string | null;
  expiresAt: string | null;
}

export interface SeriesAssemblyResult {
  seriesId: number;
  books: BookOutcome[];
  /** Books still not owned: preview the series again for a fresh look at them. */
  remaining: Label[];
}

/** Provenance as stored: AssembledFromV1 (what coverage reads) plus what a person reads. */
export interface AssemblyProvenance extends AssembledFromV1 {
  series: string;
  language: string;
  fileName: string;
  pageCount: number;
  pages: { chapter: Label; firstPage: number; pages: number }[];
  sources: {
    fileId: number;
    chapter: Label;
    part: number | null;
    releaseId: number | null;
    provider: string | null;
    sourceId: string | null;
    language: string | null;
  }[];
}

function volumeOf(v: unknown): Label {
  const l = typeof v === "string" ? parseLabel(v) : null;
  if (l === null) throw new AppError("invalid_label", `volume ${JSON.stringify(v)} is not an exact decimal number`);
  return l;
}

export function assemblyService(ctx: AppContext, publication: Publisher) {
  const { db } = ctx;
  const confirmations = createConfirmations(ctx.secrets);
  const exclusive = boundariesLock(ctx);

  async function load(seriesId: number) {
    const snapshot = await loadSnapshot(db, seriesId);
    if (!snapshot) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    const index = buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series), estimates: false });
    const { releaseOf } = await releasesOf(db, seriesId);
    const sourceOf = new Map<number, string>();
    for (const [fileId, r] of releaseOf)
      if (r.sourceMappingId !== null) sourceOf.set(fileId, `mapping:${r.sourceMappingId}`);
    return { snapshot, index, releaseOf, sourceOf };
  }

  type Loaded = Awaited<ReturnType<typeof load>>;

  function plan(loaded: Loaded, volume: Label): AssemblyPlan {
    const d = planAssembly(loaded.snapshot, loaded.index, volume, loaded.sourceOf);
    if (!d.ok)
      throw new AppError(d.code satisfies AssemblyRefusal, d.detail, d.chapters ? { chapters: d.chapters } : {});
    return d.plan;
  }

  /**
   * The files the plan would read, as a preview binds them; refused like the confirm (409
   * assembly_changed_files) when one is not on disk as recorded: a dry run checks what it would use.
   */
  async function binding(p: AssemblyPlan): Promise<BookBinding> {
    const files = await fileIdentities(db, ctx.config.libraryRoot, p.fileIds);
    const changed = offRecord(files, p.fileIds);
    if (changed.length > 0)
      throw new AppError(
        "assembly_changed_files",
        `chapter files ${changed.join(", ")} of book ${p.volume} are not on disk as recorded: rescan the library`,
        { file_ids: changed },
      );
    return { volume: p.volume, chapters: p.chapters.map((c) => c.number), files };
  }

  const requireNoDownload = (seriesId: number) => requireNoActiveDownload(ctx, seriesId);

  async function folderOf(seriesId: number): Promise<string> {
    const s = await ctx.repos.series.get(seriesId);
    if (!s) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    return s.folder;
  }

  async function preview(
    seriesId: number,
    volume: Label,
  ): Promise<{ preview: Omit<AssemblyPreview, "confirmation" | "expiresAt">; bound: BookBinding }> {
    const loaded = await load(seriesId);
    const p = plan(loaded, volume);
    const bound = await binding(p);
    const folder = await folderOf(seriesId);
    return {
      bound,
      preview: {
        volume: p.volume,
        fileName: p.fileName,
        path: `${folder}/${p.fileName}`,
        chapters: p.chapters.map((c) => ({ number: c.number, fileIds: c.sources.map((s) => s.fileId) })),
        files: bound.files.map((f) => ({ id: f.id, path: f.path, sha256: f.sha256, size: Number(f.size) })),
      },
    };
  }

  /** The book as signed, if nothing it binds changed: re-plan, compare, build, publish. */
  async function assembleBound(seriesId: number, signed: BookBinding): Promise<AssemblyResult> {
    const progress = (step: string, done: number, total: number) =>
      ctx.events.publishAssembly({ seriesId, volume: signed.volume, step, done, total });
    await requireNoDownload(seriesId);
    const loaded = await load(seriesId);
    const p = plan(loaded, signed.volume);
    const now = await binding(p);
    if (now.chapters.join(",") !== signed.chapters.join(",")) {
      throw new AppError(
        "snapshot_stale",
        `the boundaries of book ${signed.volume} changed since the preview: preview again`,
        { chapters: now.chapters },
      );
    }
    const changed = fileChanges(signed.files, now.files);
    if (changed.length > 0)
      throw new AppError(
        "assembly_changed_files",
        `chapter files ${changed.join(", ")} changed since the preview: preview again`,
        { file_ids: changed },
      );
    const { snapshot } = loaded;
    const folder = await folderOf(seriesId);
    try {
      const built = await buildBook({
        plan: p,
        libraryRoot: ctx.config.libraryRoot,
        staging: stateDirs(ctx.config).staging,
        limits: ctx.config.archiveLimits,
        comicInfo: assemblyComicInfo(snapshot, p, sourceNotes(snapshot, p, loaded)),
        onProgress: progress,
      });
      const provenance = provenanceOf(snapshot, p, built, loaded);
      progress("publishing", 0, 1);
      let published: PublishResult;
      try {
        published = await publication.publish({
          seriesId,
          stagedPath: built.stagedPath,
          targetRelPath: `${folder}/${p.fileName}`,
          file: {
            kind: "book",
            volume: p.volume,
            chapter: null,
            chapterEnd: null,
            part: null,
            pageCount: built.pageCount,
            language: p.language,
            origin: "assembled",
            tagSource: "comicinfo",
          },
          release: {
            kind: "volume",
            volume: p.volume,
            chapter: null,
            part: null,
            language: p.language,
            assembledFrom: JSON.stringify(provenance),
          },
          retireAfter: { fileIds: p.fileIds, reason: `assembled into v${volumeTag(p.volume)}` },
        });
      } catch (e) {
        // Refused before the journal: the staged file is still ours to drop.
        await rm(built.stagedPath, { force: true });
        throw e;
      }
      progress("done", 1, 1);
      return {
        volume: p.volume,
        fileId: published.fileId,
        path: published.path,
        sha256: published.sha256,
        pageCount: built.pageCount,
        retired: published.retired ?? [],
      };
    } catch (e) {
      progress("failed", 0, 0);
      throw e;
    }
  }

  async function seriesPreview(seriesId: number): Promise<{ books: BookOutcome[]; bound: BookBinding[] }> {
    const loaded = await load(seriesId);
    const books: BookOutcome[] = [];
    const bound: BookBinding[] = [];
    for (const b of loaded.index.books) {
      if (b.owned) continue;
      const d = planAssembly(loaded.snapshot, loaded.index, b.number, loaded.sourceOf);
      if (!d.ok) {
        books.push({ volume: b.number, status: "refused", code: d.code, detail: d.detail, result: null });
        continue;
      }
      try {
        bound.push(await binding(d.plan));
      } catch (e) {
        if (!isAppError(e) || e.code !== "assembly_changed_files") throw e;
        books.push({ volume: b.number, status: "refused", code: e.code, detail: e.message, result: null });
        continue;
      }
      books.push({ volume: b.number, status: "ready", code: null, detail: null, result: null });
    }
    return { books, bound };
  }

  return {
    /** POST …/volumes/{volume}/assemble?dry_run=true: the plan and its confirmation. */
    async preview(seriesId: number, volumeText: unknown): Promise<AssemblyPreview> {
      const { preview: view, bound } = await preview(seriesId, volumeOf(volumeText));
      const { token, expiresAt } = confirmations.sign(ASSEMBLY_KINDS.book, seriesId, bound);
      return { ...view, confirmation: token, expiresAt: expiresAt.toISOString() };
    },

    /** POST …/volumes/{volume}/assemble?dry_run=false with `{ confirmation }`. */
    async assemble(seriesId: number, volumeText: unknown, token: unknown): Promise<AssemblyResult> {
      const volume = volumeOf(volumeText);
      await folderOf(seriesId);
      const signed = confirmations.verify<BookBinding>(token, ASSEMBLY_KINDS.book, seriesId);
      if (signed.volume !== volume)
        throw new AppError("confirmation_invalid", `the confirmation is for book ${signed.volume}, not ${volume}`);
      return exclusive(seriesId, () => assembleBound(seriesId, signed));
    },

    /** Every book not owned, ready or refused, without a confirmation (the automatic monitor's view). */
    async readiness(seriesId: number): Promise<BookOutcome[]> {
      return (await seriesPreview(seriesId)).books;
    },

    /**
     * POST /api/manga/{id}/assemble?dry_run=true: every book not owned, ready or refused; 409
     * assembly_nothing_to_do (with the refusals) when no book is ready.
     */
    async previewSeries(seriesId: number): Promise<SeriesAssemblyPreview> {
      const { books, bound } = await seriesPreview(seriesId);
      if (bound.length === 0)
        throw new AppError(
          "assembly_nothing_to_do",
          books.length === 0
            ? "every book of the series is owned: there is nothing to assemble"
            : `no book can be assembled now (${books.length} refused)`,
          { books: books.map((b) => ({ volume: b.volume, code: b.code, detail: b.detail })) },
        );
      const { token, expiresAt } = confirmations.sign(ASSEMBLY_KINDS.series, seriesId, { books: bound });
      return { seriesId, books, confirmation: token, expiresAt: expiresAt.toISOString() };
    },

    /** POST /api/manga/{id}/assemble?dry_run=false: the signed ready books, one outcome each. */
    async assembleSeries(seriesId: number, token: unknown): Promise<SeriesAssemblyResult> {
      await folderOf(seriesId);
      const signed = confirmations.verify<{ books: BookBinding[] }>(token, ASSEMBLY_KINDS.series, seriesId);
      return exclusive(seriesId, async () => {
        const books: BookOutcome[] = [];
        for (const b of signed.books) {
          try {
            const result = await assembleBound(seriesId, b);
            books.push({ volume: b.volume, status: "assembled", code: null, detail: null, result });
          } catch (e) {
            // One book's refusal does not stop the others; anything unexpected does.
            if (!isAppError(e) || e.status >= 500) throw e;
            books.push({ volume: b.volume, status: "refused", code: e.code, detail: e.message, result: null });
          }
        }
        const loaded = await load(seriesId);
        const remaining = loaded.index.books.filter((b) => !b.owned).map((b) => b.number);
        return { seriesId, books, remaining };
      });
    },
  };
}

/** Ids of planned files that are not active and on disk with their recorded size and mtime. */
function offRecord(files: FileIdentity[], ids: readonly number[]): number[] {
  const byId = new Map(files.map((f) => [f.id, f]));
  return ids
    .filter((id) => {
      const f = byId.get(id);
      return !f || f.state !== "active" || f.disk === null || f.disk.size !== f.size || f.disk.mtimeMs !== f.mtimeMs;
    })
    .sort((a, b) => a - b);
}

/** Ids of bound files whose record or bytes on disk differ (or that are gone). */
function fileChanges(signed: FileIdentity[], now: FileIdentity[]): number[] {
  const current = new Map(now.map((f) => [f.id, f]));
  const key = (f: FileIdentity) => canonicalJson([f.path, f.sha256, f.size, f.mtimeMs, f.state, f.disk]);
  const out = signed
    .filter((f) => {
      const c = current.get(f.id);
      return !c || key(c) !== key(f);
    })
    .map((f) => f.id);
  const signedIds = new Set(signed.map((f) => f.id));
  for (const f of now) if (!signedIds.has(f.id)) out.push(f.id);
  return out.sort((a, b) => a - b);
}

/** The volume-level ComicInfo fields of a planned book (the builder adds PageCount, LanguageISO, Pages). */
export function assemblyComicInfo(snapshot: SeriesSnapshot, p: AssemblyPlan, notes?: SourceNotes) {
  const s = snapshot.series;
  const whole = /^\d+$/.test(p.volume) && Number(p.volume) <= 2147483647;
  const count = s.editionBookCount ?? s.knownBookCount;
  return {
    Title: `${s.title} v${volumeTag(p.volume)}`,
    Series: s.title,
    // Kavita reads Number as a chapter: a volume archive writes Volume only (an xs:int, so a
    // decimal volume keeps its number in Title and Notes).
    ...(count !== null ? { Count: count } : {}),
    ...(whole ? { Volume: Number(p.volume) } : {}),
    // The provenance a reader of the archive alone can see: chapters, chapter files, sources, languages.
    Notes: [
      `Assembled by the library service as book ${p.volume} from chapters ${p.chapters.map((c) => c.number).join(", ")}.`,
      `Chapter files: ${p.chapters.flatMap((c) => c.sources.map((s) => s.path.slice(s.path.lastIndexOf("/") + 1))).join(", ")}.`,
      ...(notes ? [`Sources: ${notes.providers.join("; ")}.`, `Languages: ${notes.languages.join(", ")}.`] : []),
    ].join("\n"),
    Manga: s.webtoon ? ("Yes" as const) : ("YesAndRightToLeft" as const),
  };
}

type FiledRelease = Awaited<ReturnType<ReturnType<typeof releaseRepo>["filedOfSeries"]>>[number];

export interface ReleasesOf {
  /** The first release recorded for each file of the series. */
  releaseOf: Map<number, FiledRelease>;
}

/** The releases of the series' files, as the assembly reads their sources. */
export async function releasesOf(db: AppContext["db"], seriesId: number): Promise<ReleasesOf> {
  const releases = await releaseRepo(db).filedOfSeries(seriesId);
  const releaseOf = new Map<number, FiledRelease>();
  for (const r of releases) if (r.fileId !== null && !releaseOf.has(r.fileId)) releaseOf.set(r.fileId, r);
  return { releaseOf };
}

/** Each source file's release, provider and language. */
function sourcesOf(snapshot: SeriesSnapshot, p: AssemblyPlan, loaded: ReleasesOf) {
  const files = new Map(snapshot.files.map((f) => [f.id, f]));
  return p.chapters.flatMap((c) =>
    c.sources.map((s) => {
      const r = loaded.releaseOf.get(s.fileId);
      return {
        fileId: s.fileId,
        chapter: c.number,
        part: s.part,
        releaseId: r?.id ?? null,
        provider: r?.provider?.name ?? null,
        sourceId: r?.sourceMapping?.sourceId ?? null,
        // A file without a language of its own (no LanguageISO) is in the series' language, as the scan reads it.
        language: languageInSeries(
          files.get(s.fileId)?.language ?? r?.language ?? snapshot.series.language,
          snapshot.series.language,
        ),
      };
    }),
  );
}

export interface SourceNotes {
  /** "<provider> <source id>" of each source, or "local files". */
  providers: string[];
  languages: string[];
}

/** The source and language notes of a book, for its provenance and its ComicInfo. */
export function sourceNotes(snapshot: SeriesSnapshot, p: AssemblyPlan, loaded: ReleasesOf): SourceNotes {
  const sources = sourcesOf(snapshot, p, loaded);
  return {
    providers: [
      ...new Set(
        sources.map((s) => (s.provider ? `${s.provider}${s.sourceId ? ` ${s.sourceId}` : ""}` : "local files")),
      ),
    ],
    languages: [...new Set(sources.map((s) => s.language))],
  };
}

function provenanceOf(
  snapshot: SeriesSnapshot,
  p: AssemblyPlan,
  built: { pageCount: number; chapters: { number: Label; firstPage: number; pages: number }[] },
  loaded: ReleasesOf,
): AssemblyProvenance {
  const sources = sourcesOf(snapshot, p, loaded);
  const { providers, languages } = sourceNotes(snapshot, p, loaded);
  return {
    version: 1,
    volume: p.volume,
    chapters: p.chapters.map((c) => c.number),
    sourceReleaseIds: [...new Set(sources.map((s) => s.releaseId).filter((id): id is number => id !== null))],
    files: p.chapters.flatMap((c) => c.sources.map((s) => ({ id: s.fileId, path: s.path, sha256: s.sha256 }))),
    notes: [`sources: ${providers.join("; ")}`, `languages: ${languages.join(", ")}`],
    series: snapshot.series.title,
    language: p.language,
    fileName: p.fileName,
    pageCount: built.pageCount,
    pages: built.chapters.map((c) => ({ chapter: c.number, firstPage: c.firstPage, pages: c.pages })),
    sources,
  };
}

export type AssemblyService = ReturnType<typeof assemblyService>;
