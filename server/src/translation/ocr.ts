/**
 * Local OCR with tesseract.js (docs/rules.md, "Local translation"). One warm worker per model and page
 * segmentation, created on first use and reused; a worker runs one job at a time, so each has a
 * queue. Models come from the system tessdata folders only (translation/tessdata.ts).
 *
 * Dropped regions: confidence under MIN_OCR_CONFIDENCE, empty text, and text whose script is not
 * one of the source language's (e.g. Latin read with the Japanese model in a bubble of English).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { createWorker, OEM, PSM, type Worker } from "tesseract.js";
import { debianPackageOf, ocrPlan } from "../domain/ocr-models.ts";
import { detectScript } from "../domain/translation-validation.ts";
import { cropGrayForOcr, decodeGray } from "./page-image.ts";
import { resolveModels, type ResolvedModel, type TessdataOptions } from "./tessdata.ts";
import { LocalTranslationError, type OcrPool, type RecognisedRegion, type TextRegion } from "./types.ts";

/**
 * tesseract's page confidence (0–100) below which a region is dropped. Clean lettering reads at
 * 90–96; Japanese read with the English model scores ~64, so the bar is 75.
 */
export const MIN_OCR_CONFIDENCE = 75;

export interface OcrPoolOptions {
  tessdata?: TessdataOptions;
  minConfidence?: number;
}

export interface CropReading {
  text: string;
  confidence: number;
}

export interface LocalOcrPool extends OcrPool {
  /** Reads one prepared crop (PNG) with a model; vertical uses single-block vertical segmentation. */
  recognise(crop: Buffer, model: ResolvedModel, vertical: boolean): Promise<CropReading>;
  /** Starts (or returns) the warm worker for a model, e.g. to time worker start apart from reading. */
  warm(model: ResolvedModel, vertical: boolean): Promise<void>;
}

interface Slot {
  worker: Promise<Worker>;
  tail: Promise<unknown>;
}

const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}ー々〆〇、。！？「」『』（）…・";
const CJK_GAP = new RegExp(`(?<=[${CJK}])\\s+(?=[${CJK}])`, "gu");

/**
 * Tidies tesseract's text: CJK languages lose the spaces (and line breaks between columns) that
 * tesseract puts between characters; every language gets its whitespace collapsed to single spaces.
 * Hangul keeps word spaces (Korean separates words), only line breaks inside a word go.
 */
export function normaliseOcrText(text: string, language: string): string {
  let t = text.normalize("NFC").replace(/\r/g, "");
  const plan = ocrPlan(language);
  if (plan && plan.scripts.some((s) => s === "japanese" || s === "han")) t = t.replace(CJK_GAP, "");
  return t.replace(/\s+/gu, " ").trim();
}

export function createOcrPool(options: OcrPoolOptions = {}): LocalOcrPool {
  const slots = new Map<string, Slot>();
  const minConfidence = options.minConfidence ?? MIN_OCR_CONFIDENCE;
  let closed = false;

  function slotFor(model: ResolvedModel, vertical: boolean): Slot {
    if (closed) throw new Error("OCR pool closed");
    const key = `${model.langPath}\0${model.name}\0${vertical ? "v" : "h"}`;
    let slot = slots.get(key);
    if (!slot) {
      // Checked again here: tesseract.js fetches a missing file from a CDN (never allowed).
      const file = path.join(model.langPath, `${model.name}.traineddata${model.gzip ? ".gz" : ""}`);
      if (!existsSync(file)) {
        throw new LocalTranslationError(
          "ocr_model_missing",
          `Install the Debian package ${debianPackageOf(model.name)} (OCR model ${model.name}: ${file} not found)`,
        );
      }
      const worker = (async () => {
        const w = await createWorker(model.name, OEM.LSTM_ONLY, {
          langPath: model.langPath,
          gzip: model.gzip,
          cacheMethod: "none",
          errorHandler: () => undefined, // errors reach the awaiting promise; not an unhandled crash
        });
        await w.setParameters({
          tessedit_pageseg_mode: vertical ? PSM.SINGLE_BLOCK_VERT_TEXT : PSM.SINGLE_BLOCK,
          user_defined_dpi: "300",
        });
        return w;
      })();
      worker.catch(() => slots.delete(key)); // a failed start is retried by the next use
      slot = { worker, tail: Promise.resolve() };
      slots.set(key, slot);
    }
    return slot;
  }

  async function recognise(crop: Buffer, model: ResolvedModel, vertical: boolean): Promise<CropReading> {
    const slot = slotFor(model, vertical);
    const job = slot.tail.then(async () => {
      const w = await slot.worker;
      const { data } = await w.recognize(crop);
      return { text: data.text, confidence: data.confidence };
    });
    slot.tail = job.catch(() => undefined);
    return job;
  }

  return {
    recognise,
    async warm(model, vertical) {
      await slotFor(model, vertical).worker;
    },
    async read(
      page: Buffer,
      regions: readonly TextRegion[],
      language: string,
      signal?: AbortSignal,
    ): Promise<RecognisedRegion[]> {
      const models = resolveModels(language, options.tessdata);
      const scripts = ocrPlan(language)!.scripts;
      const gray = await decodeGray(page);
      const out: RecognisedRegion[] = [];
      for (const region of regions) {
        if (signal?.aborted)
          throw new LocalTranslationError("interrupted", "OCR stopped: the job was paused or cancelled");
        const vertical = region.vertical && models.vertical !== null;
        const crop = await cropGrayForOcr(gray, region);
        const reading = await recognise(crop, vertical ? models.vertical! : models.horizontal, vertical);
        const text = normaliseOcrText(reading.text, language);
        if (text.length === 0 || reading.confidence < minConfidence) continue;
        if (!scripts.includes(detectScript(text))) continue;
        out.push({ ...region, text, confidence: reading.confidence });
      }
      return out;
    },
    async close() {
      closed = true;
      const all = [...slots.values()];
      slots.clear();
      await Promise.all(all.map(async (s) => (await s.worker.catch(() => null))?.terminate()));
    },
  };
}

/** Reads one prepared crop with a pool's warm worker (the benchmark's entry point). */
export function recogniseCrop(
  pool: LocalOcrPool,
  crop: Buffer,
  model: ResolvedModel,
  vertical: boolean,
): Promise<CropReading> {
  return pool.recognise(crop, model, vertical);
}
