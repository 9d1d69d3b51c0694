/**
 * The local translation engine (docs/rules.md, "Local translation"): a source CBZ in, a protocol v1 result
 * ZIP out (the same page names and geometry, lettered pages, translation.json). Per page:
 * turn it upright (EXIF orientation) → find text regions → OCR with the source language's model →
 * one chat request for the page's regions → worker validation → lettering → turned back →
 * checkpoint. Validation: each region's own checks (markers, echoes, scripts) and the page's pooled
 * language (domain/local-translation judgePage) decide whether the page is asked again; a page too
 * short to judge is lettered and checkpointed, and waits for the book's pooled language. The book's
 * verdict and receipt come from the pure domain/local-translation bookVerdict; when the book's pool
 * condemns the pages that waited, their checkpoints are removed so that a retry asks again.
 *
 * Prerequisites are checked before any page is touched; each missing one is an actionable error
 * naming the Debian package or setting. Pause/cancel abort the signal: the engine stops between
 * pages and the provider request in flight is aborted; completed pages stay checkpointed, so a
 * restart or an explicit retry continues where it stopped (the unfinished page may repeat).
 */
import sharp from "sharp";
import { bookVerdict, judgePage, type CheckedPage, type PageVerdict } from "../domain/local-translation.ts";
import { canConfirm, type LanguageIdentifier } from "../domain/translation-language.ts";
import { baseCode, languageScripts } from "../domain/translation-scripts.ts";
import { checkRegion } from "../domain/translation-validation.ts";
import {
  ArchiveError,
  openArchive,
  sharpInputOptions,
  type ArchiveHandle,
  type ArchiveLimits,
} from "../library/archive-reader.ts";
import { writeResultZip } from "./atomic-files.ts";
import { openCheckpoints, type CheckpointRegion, type Checkpoints, type PageRecord } from "./checkpoints.ts";
import { translatePage } from "./chat-client.ts";
import { fontFor, type LetteringFont } from "./fonts.ts";
import { loadLanguageIdentifier } from "./language-id.ts";
import { letterPage } from "./lettering.ts";
import { createOcrPool } from "./ocr.ts";
import { findRegions, restoreOrientation, uprightPage } from "./page-image.ts";
import { missingModels } from "./tessdata.ts";
import {
  LocalTranslationError,
  type ChatTranslator,
  type LocalEngine,
  type LocalJob,
  type LocalResult,
  type OcrPool,
  type PageLetterer,
  type TextRegion,
} from "./types.ts";

/** Bump when OCR or rendering changes in a way that makes old checkpoints wrong. */
export const OCR_SETTINGS = "tesseract.js-7 lstm dpi300 block/vert-block exif-upright border-bubbles v2";
export const RENDER_SETTINGS = "sans-serif per-language fit-to-box exif-restored pooled-language v2";
/** A page whose validation fails is asked once more before the job fails (providers are not deterministic). */
const PAGE_ATTEMPTS = 2;

export interface LocalEngineDeps {
  ocr: OcrPool;
  findRegions: (page: Buffer) => Promise<TextRegion[]>;
  translate: ChatTranslator;
  letter: PageLetterer;
  /** The lettering font of a destination language (throws font_missing). */
  font: (language: string) => Promise<LetteringFont>;
  missingModels: (language: string) => { model: string; debianPackage: string; message: string }[];
  /** The language identifier of the checks (loaded on first use). */
  identifier: () => Promise<LanguageIdentifier>;
}

export interface LocalEngineOptions {
  archiveLimits?: Partial<ArchiveLimits>;
  deps?: Partial<LocalEngineDeps>;
  log?: (message: string) => void;
}

const interrupted = () => new LocalTranslationError("interrupted", "The translation was paused or cancelled");

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw interrupted();
}

/** What a job needs, found by checkPrerequisites. */
export interface JobTools {
  font: LetteringFont;
  identifier: LanguageIdentifier;
}

/** The prerequisites of one job, each missing one an actionable error (checked before any work). */
export async function checkPrerequisites(
  job: Pick<LocalJob, "sourceLanguage" | "targetLanguage" | "ai">,
  deps: Pick<LocalEngineDeps, "font" | "missingModels" | "identifier">,
): Promise<JobTools> {
  const identifier = await deps.identifier();
  const target = baseCode(job.targetLanguage);
  // A destination whose pages could never be confirmed is refused before any page is sent.
  if (!languageScripts(target) || !canConfirm(target, identifier)) {
    const known = [...identifier.languages].filter((l) => languageScripts(l)).sort();
    throw new LocalTranslationError(
      "target_script_unsupported",
      `The local path checks destinations with its language identifier, which knows ${known.join(", ")}; ${job.targetLanguage} needs an external processor (Settings → Translation → processor URL)`,
    );
  }
  const missing = deps.missingModels(job.sourceLanguage);
  if (missing.length > 0) {
    throw new LocalTranslationError(
      "ocr_model_missing",
      `No OCR model for ${job.sourceLanguage}: ${missing.map((m) => m.message).join("; ")}`,
    );
  }
  if (!canConfirm(job.sourceLanguage, identifier)) {
    throw new LocalTranslationError(
      "source_language_unsupported",
      `The language identifier cannot confirm ${job.sourceLanguage} text, so the book's source language could never be verified; use an external processor for this source`,
    );
  }
  if (!job.ai.baseUrl || !job.ai.model || !job.ai.apiKey) {
    throw new LocalTranslationError(
      "ai_not_configured",
      "Set the AI provider's base URL, model and key in Settings → Translation",
    );
  }
  return { font: await deps.font(target), identifier };
}

async function sameGeometry(a: Buffer, b: Buffer): Promise<boolean> {
  const [ma, mb] = await Promise.all([
    sharp(a, sharpInputOptions()).metadata(),
    sharp(b, sharpInputOptions()).metadata(),
  ]);
  return ma.width === mb.width && ma.height === mb.height;
}

export function createLocalEngine(options: LocalEngineOptions = {}): LocalEngine {
  const given = options.deps ?? {};
  const deps: LocalEngineDeps = {
    ocr: given.ocr ?? createOcrPool(),
    findRegions: given.findRegions ?? findRegions,
    translate: given.translate ?? translatePage,
    letter: given.letter ?? letterPage,
    font: given.font ?? fontFor,
    missingModels: given.missingModels ?? missingModels,
    identifier: given.identifier ?? loadLanguageIdentifier,
  };
  const log = options.log ?? (() => undefined);

  const checked = (name: string, texts: string[], translations: string[], results: CheckpointRegion["result"][]) =>
    ({ name, sources: texts, translations, results }) satisfies CheckedPage;

  /**
   * Reads, translates, validates and letters one page; the record is what the checkpoint keeps.
   * The page is turned upright first (EXIF orientation), so regions, OCR and lettering see it as a
   * reader does; the lettered page is turned back and keeps its orientation tag, its stored size
   * and its format.
   */
  async function processPage(
    job: LocalJob,
    tools: JobTools,
    index: number,
    name: string,
    page: Buffer,
  ): Promise<{ record: Omit<PageRecord, "version" | "imageSha256">; image: Buffer }> {
    const upright = await uprightPage(page);
    const regions = await deps.findRegions(upright.image);
    throwIfAborted(job.signal);
    const read = regions.length > 0 ? await deps.ocr.read(upright.image, regions, job.sourceLanguage, job.signal) : [];
    throwIfAborted(job.signal);
    if (read.length === 0) return { record: { index, name, model: null, regions: [], language: null }, image: page };
    const texts = read.map((r) => r.text);
    let verdict: PageVerdict | null = null;
    for (let attempt = 1; attempt <= PAGE_ATTEMPTS; attempt++) {
      const answer = await deps.translate(
        job.ai,
        { sourceLanguage: job.sourceLanguage, targetLanguage: job.targetLanguage, texts },
        job.signal,
      );
      throwIfAborted(job.signal);
      const results = read.map((r, k) =>
        checkRegion(
          {
            source: r.text,
            translation: answer.translations[k] ?? "",
            sourceLanguage: job.sourceLanguage,
            targetLanguage: job.targetLanguage,
          },
          tools.identifier,
        ),
      );
      // Region checks and the page's own pool; a page too short to judge waits for the book's pool.
      verdict = judgePage(checked(name, texts, answer.translations, results), { ...job, identifier: tools.identifier });
      if (verdict.status === "refused" || verdict.status === "empty") {
        const codes = verdict.status === "refused" ? verdict.codes.join(", ") : "no regions";
        log(`translation ${job.jobId}: page ${name} refused by validation (${codes}), attempt ${attempt}`);
        continue;
      }
      // Accepted echoes (English kept as is) keep their original lettering.
      const items = read.flatMap((r, k) =>
        results[k]?.verdict === "echo_accepted"
          ? []
          : [
              {
                region: { x: r.x, y: r.y, width: r.width, height: r.height },
                text: answer.translations[k] ?? "",
                mask: r.mask,
              },
            ],
      );
      const lettered = await deps.letter(upright.image, items, {
        fontFile: tools.font.file,
        fontFamily: tools.font.family,
      });
      const image = await restoreOrientation(lettered, upright.orientation, page);
      if (!(await sameGeometry(page, image)))
        throw new LocalTranslationError("validation_failed", `Lettering changed the size of page ${name}`);
      const kept: CheckpointRegion[] = read.map((r, k) => ({
        box: { x: r.x, y: r.y, width: r.width, height: r.height },
        kind: r.kind,
        vertical: r.vertical,
        confidence: r.confidence,
        source: r.text,
        translation: answer.translations[k] ?? "",
        result: results[k]!,
      }));
      return {
        record: {
          index,
          name,
          model: answer.model,
          regions: kept,
          // Which pool decides the page's language: its own text, or (too short) the book's.
          language: { pool: verdict.pool, target: verdict.target },
        },
        image,
      };
    }
    const codes = verdict?.status === "refused" ? [...new Set(verdict.codes)].join(", ") : "no regions";
    throw new LocalTranslationError(
      "validation_failed",
      `Page ${name} did not pass validation (${codes}); nothing was imported`,
    );
  }

  async function pages(
    job: LocalJob,
    archive: ArchiveHandle,
    checkpoints: Checkpoints,
    tools: JobTools,
  ): Promise<{ checked: CheckedPage[]; images: string[]; models: string[]; fromCheckpoints: number }> {
    const out: CheckedPage[] = [];
    const images: string[] = [];
    const models: string[] = [];
    let fromCheckpoints = 0;
    const total = archive.pages.length;
    job.onProgress?.(0, total);
    for (const [index, entry] of archive.pages.entries()) {
      throwIfAborted(job.signal);
      let record = (await checkpoints.read(index, entry.name))?.record ?? null;
      if (record) fromCheckpoints++;
      else {
        const done = await processPage(job, tools, index, entry.name, await archive.readPage(index));
        record = await checkpoints.write(done.record, done.image);
      }
      images.push(checkpoints.imagePath(record));
      if (record.model) models.push(record.model);
      out.push(
        checked(
          entry.name,
          record.regions.map((r) => r.source),
          record.regions.map((r) => r.translation),
          record.regions.map((r) => r.result),
        ),
      );
      job.onProgress?.(index + 1, total);
    }
    return { checked: out, images, models, fromCheckpoints };
  }

  return {
    async run(job: LocalJob): Promise<LocalResult> {
      throwIfAborted(job.signal);
      const tools = await checkPrerequisites(job, deps);
      let archive: ArchiveHandle;
      try {
        archive = await openArchive(job.source, options.archiveLimits);
      } catch (e) {
        if (e instanceof ArchiveError)
          throw new LocalTranslationError("source_unreadable", `The source archive cannot be read: ${e.message}`);
        throw e;
      }
      try {
        const checkpoints = await openCheckpoints(job.checkpointDir, {
          sourceSha256: job.sourceSha256,
          sourceLanguage: job.sourceLanguage,
          targetLanguage: job.targetLanguage,
          aiBaseUrl: job.ai.baseUrl,
          model: job.ai.model,
          ocrSettings: OCR_SETTINGS,
          renderSettings: `${RENDER_SETTINGS} ${tools.identifier.name}`,
        });
        const { checked: book, images, models, fromCheckpoints } = await pages(job, archive, checkpoints, tools);
        const verdict = bookVerdict({
          sourceSha256: job.sourceSha256,
          sourceLanguage: job.sourceLanguage,
          targetLanguage: job.targetLanguage,
          identifier: tools.identifier,
          model: models[0] ?? job.ai.model,
          pages: book,
        });
        if (!verdict.ok) {
          // Answers the book's pool condemned are asked again on retry; the others stay checkpointed.
          for (const i of verdict.retryPages) await checkpoints.remove(i);
          throw new LocalTranslationError(
            verdict.code === "language_not_confirmed" ? "validation_failed" : verdict.code,
            verdict.message,
          );
        }
        throwIfAborted(job.signal);
        await writeResultZip(
          job.output,
          archive.pages.map((p, i) => ({ name: p.name, data: { file: images[i]! } })),
          verdict.receipt,
        );
        return { receipt: verdict.receipt, pagesFromCheckpoints: fromCheckpoints };
      } catch (e) {
        if (e instanceof ArchiveError)
          throw new LocalTranslationError("source_unreadable", `The source archive cannot be read: ${e.message}`);
        // Whatever an aborted step threw (an aborted provider request, say), it is the interruption.
        if (job.signal?.aborted) throw interrupted();
        throw e;
      } finally {
        await archive.close();
      }
    },
    close: () => deps.ocr.close(),
  };
}
