/**
 * The local translation engine (spec "Local processing"): a source CBZ in, a protocol v1 result
 * ZIP out (the same page names and geometry, lettered pages, translation.json). Per page:
 * find text regions → OCR with the source language's model → one chat request for the page's
 * regions → worker validation (domain/translation-validation) → lettering → checkpoint. The book's
 * verdict and receipt come from the pure domain/local-translation.
 *
 * Prerequisites are checked before any page is touched; each missing one is an actionable error
 * naming the Debian package or setting. Pause/cancel abort the signal: the engine stops between
 * pages and the provider request in flight is aborted; completed pages stay checkpointed, so a
 * restart or an explicit retry continues where it stopped (the unfinished page may repeat).
 */
import sharp from "sharp";
import { bookVerdict, pageSummary, type CheckedPage } from "../domain/local-translation.ts";
import { checkRegion, LATIN_LANGUAGES } from "../domain/translation-validation.ts";
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
import { findSansFont, supportsDestination } from "./fonts.ts";
import { letterPage } from "./lettering.ts";
import { createOcrPool } from "./ocr.ts";
import { findRegions } from "./page-image.ts";
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
export const OCR_SETTINGS = "tesseract.js-7 lstm dpi300 block/vert-block v1";
export const RENDER_SETTINGS = "sans-serif fit-to-box v1";
/** A page whose validation fails is asked once more before the job fails (providers are not deterministic). */
const PAGE_ATTEMPTS = 2;

export interface LocalEngineDeps {
  ocr: OcrPool;
  findRegions: (page: Buffer) => Promise<TextRegion[]>;
  translate: ChatTranslator;
  letter: PageLetterer;
  fontFile: () => Promise<string>;
  missingModels: (language: string) => { model: string; debianPackage: string; message: string }[];
  supportsDestination: (language: string) => boolean;
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

/** The prerequisites of one job, each missing one an actionable error (checked before any work). */
export async function checkPrerequisites(
  job: Pick<LocalJob, "sourceLanguage" | "targetLanguage" | "ai">,
  deps: Pick<LocalEngineDeps, "fontFile" | "missingModels" | "supportsDestination">,
): Promise<string> {
  if (!deps.supportsDestination(job.targetLanguage)) {
    // Latin languages the offline identifier does not know are refused too: their pages could never pass validation.
    const known = [...LATIN_LANGUAGES, "el", "ru", "uk", "bg", "sr"].join(", ");
    throw new LocalTranslationError(
      "target_script_unsupported",
      `The local path letters and checks Latin, Greek and Cyrillic destinations it can identify (${known}, …); ${job.targetLanguage} needs an external processor (Settings → Translation → processor URL)`,
    );
  }
  const missing = deps.missingModels(job.sourceLanguage);
  if (missing.length > 0) {
    throw new LocalTranslationError(
      "ocr_model_missing",
      `No OCR model for ${job.sourceLanguage}: ${missing.map((m) => m.message).join("; ")}`,
    );
  }
  if (!job.ai.baseUrl || !job.ai.model || !job.ai.apiKey) {
    throw new LocalTranslationError(
      "ai_not_configured",
      "Set the AI provider's base URL, model and key in Settings → Translation",
    );
  }
  return deps.fontFile();
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
    fontFile: given.fontFile ?? findSansFont,
    missingModels: given.missingModels ?? missingModels,
    supportsDestination: given.supportsDestination ?? supportsDestination,
  };
  const log = options.log ?? (() => undefined);

  /** Reads, translates, validates and letters one page; the record is what the checkpoint keeps. */
  async function processPage(
    job: LocalJob,
    fontFile: string,
    index: number,
    name: string,
    page: Buffer,
  ): Promise<{ record: Omit<PageRecord, "version" | "imageSha256">; image: Buffer }> {
    const regions = await deps.findRegions(page);
    throwIfAborted(job.signal);
    const read = regions.length > 0 ? await deps.ocr.read(page, regions, job.sourceLanguage, job.signal) : [];
    throwIfAborted(job.signal);
    if (read.length === 0) return { record: { index, name, model: null, regions: [] }, image: page };
    const texts = read.map((r) => r.text);
    let last: CheckedPage | null = null;
    for (let attempt = 1; attempt <= PAGE_ATTEMPTS; attempt++) {
      const answer = await deps.translate(
        job.ai,
        { sourceLanguage: job.sourceLanguage, targetLanguage: job.targetLanguage, texts },
        job.signal,
      );
      throwIfAborted(job.signal);
      const results = read.map((r, k) =>
        checkRegion({
          source: r.text,
          translation: answer.translations[k] ?? "",
          sourceLanguage: job.sourceLanguage,
          targetLanguage: job.targetLanguage,
        }),
      );
      last = { name, sources: texts, translations: answer.translations, results };
      const summary = pageSummary(last);
      if (!summary || !summary.release) {
        log(
          `translation ${job.jobId}: page ${name} refused by validation (${summary?.codes.join(", ") ?? "no regions"}), attempt ${attempt}`,
        );
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
      const image = await deps.letter(page, items, { fontFile });
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
      return { record: { index, name, model: answer.model, regions: kept }, image };
    }
    const codes = [...new Set(pageSummary(last!)?.codes ?? [])].join(", ");
    throw new LocalTranslationError(
      "validation_failed",
      `Page ${name} did not pass validation (${codes}); nothing was imported`,
    );
  }

  async function pages(
    job: LocalJob,
    archive: ArchiveHandle,
    checkpoints: Checkpoints,
    fontFile: string,
  ): Promise<{ checked: CheckedPage[]; images: string[]; models: string[]; fromCheckpoints: number }> {
    const checked: CheckedPage[] = [];
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
        const done = await processPage(job, fontFile, index, entry.name, await archive.readPage(index));
        record = await checkpoints.write(done.record, done.image);
      }
      images.push(checkpoints.imagePath(record));
      if (record.model) models.push(record.model);
      checked.push({
        name: entry.name,
        sources: record.regions.map((r) => r.source),
        translations: record.regions.map((r) => r.translation),
        results: record.regions.map((r) => r.result),
      });
      job.onProgress?.(index + 1, total);
    }
    return { checked, images, models, fromCheckpoints };
  }

  return {
    async run(job: LocalJob): Promise<LocalResult> {
      throwIfAborted(job.signal);
      const fontFile = await checkPrerequisites(job, deps);
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
          renderSettings: RENDER_SETTINGS,
        });
        const { checked, images, models, fromCheckpoints } = await pages(job, archive, checkpoints, fontFile);
        const verdict = bookVerdict({
          sourceSha256: job.sourceSha256,
          sourceLanguage: job.sourceLanguage,
          targetLanguage: job.targetLanguage,
          model: models[0] ?? job.ai.model,
          pages: checked,
        });
        if (!verdict.ok)
          throw new LocalTranslationError(
            verdict.code === "language_not_confirmed" ? "validation_failed" : verdict.code,
            verdict.message,
          );
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
