/**
 * Finds tesseract models on this machine, never on the network (tesseract.js without a local
 * langPath downloads from a CDN and crashes the process when that fails: STACK.md). Directories, in
 * order: TESSDATA_DIR (one or more, `:`-separated), the Debian tessdata folders of tesseract 5 and 4.
 * English alone may also come from the bundled @tesseract.js-data/eng package.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { debianPackageOf, missingModelMessage, ocrModels, ocrPlan } from "../domain/ocr-models.ts";
import { LocalTranslationError } from "./types.ts";

export interface ResolvedModel {
  name: string;
  /** Directory holding `<name>.traineddata` (or `.gz` when gzip). */
  langPath: string;
  gzip: boolean;
}

export interface TessdataOptions {
  /** Directories to search instead of the default list (tests). */
  dirs?: readonly string[];
  /** Use the bundled English model when no directory has eng (default true). */
  bundledEnglish?: boolean;
}

export const SYSTEM_TESSDATA_DIRS = [
  "/usr/share/tesseract-ocr/5/tessdata",
  "/usr/share/tesseract-ocr/4.00/tessdata",
] as const;

export function tessdataDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const fromEnv = (env.TESSDATA_DIR ?? "").split(":").filter((d) => d.trim().length > 0);
  return [...fromEnv, ...SYSTEM_TESSDATA_DIRS];
}

function bundledEnglishDir(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve("@tesseract.js-data/eng/package.json");
    const dir = path.join(path.dirname(pkg), "4.0.0_best_int");
    return existsSync(path.join(dir, "eng.traineddata.gz")) ? dir : null;
  } catch {
    return null;
  }
}

/** Where one model is, or null. */
export function findModel(model: string, options: TessdataOptions = {}): ResolvedModel | null {
  for (const dir of options.dirs ?? tessdataDirs()) {
    if (existsSync(path.join(dir, `${model}.traineddata`))) return { name: model, langPath: dir, gzip: false };
  }
  if (model === "eng" && (options.bundledEnglish ?? true)) {
    const dir = bundledEnglishDir();
    if (dir) return { name: model, langPath: dir, gzip: true };
  }
  return null;
}

/** The models a language needs that this machine lacks, each with its Debian package. */
export function missingModels(
  language: string,
  options: TessdataOptions = {},
): { model: string; debianPackage: string; message: string }[] {
  const models = ocrModels(language);
  if (models.length === 0) {
    return [{ model: "", debianPackage: "", message: `No OCR model is known for the source language "${language}"` }];
  }
  return models
    .filter((m) => findModel(m, options) === null)
    .map((m) => ({ model: m, debianPackage: debianPackageOf(m), message: missingModelMessage(m, language) }));
}

/**
 * The models of a language (horizontal first, then vertical when the language has one), or
 * LocalTranslationError("ocr_model_missing") naming every Debian package to install.
 */
export function resolveModels(
  language: string,
  options: TessdataOptions = {},
): { horizontal: ResolvedModel; vertical: ResolvedModel | null; models: ResolvedModel[] } {
  const missing = missingModels(language, options);
  if (missing.length > 0)
    throw new LocalTranslationError("ocr_model_missing", missing.map((m) => m.message).join("; "));
  const p = ocrPlan(language)!;
  const horizontal = findModel(p.horizontal, options)!;
  const vertical = p.vertical ? findModel(p.vertical, options) : null;
  return { horizontal, vertical, models: [horizontal, ...(vertical ? [vertical] : [])] };
}
