/**
 * The local translation path (docs/rules.md, "Local translation"): the pieces the local engine composes, as
 * interfaces so each can be built and tested on its own and the engine can run them in order:
 *
 *   page image ─findTextRegions→ regions ─OcrPool.read→ recognised text ─ChatTranslator→ translations
 *     ─(domain/translation-validation)→ released regions ─letterPage→ lettered page image
 *
 * Used by the service's worker (engine "local") and by the reference processor's built-in engine.
 */
import type { TranslationReceiptJson } from "../domain/local-translation.ts";

/** A rectangle on the page, in pixels of the page image. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A place on a page that holds text: a speech bubble (white blob with ink inside) or a caption. */
export interface TextRegion extends Box {
  kind: "bubble" | "caption";
  /** Vertical writing (tall glyph column layout), e.g. Japanese in bubbles. */
  vertical: boolean;
  /**
   * Optional mask of the region inside its box (1 = inside), row-major, width × height; absent
   * means the whole box. Outside the mask the crop is painted white before OCR.
   */
  mask?: Uint8Array;
}

/** A region whose text OCR read with enough confidence, in the expected script. */
export interface RecognisedRegion extends TextRegion {
  text: string;
  /** tesseract's confidence, 0–100. */
  confidence: number;
}

/** A failure the local path explains to the operator (job error `code` + actionable message). */
export class LocalTranslationError extends Error {
  constructor(
    readonly code: LocalErrorCode,
    message: string,
    /** A connection problem worth retrying with the same job (the provider was unreachable, 5xx, 429). */
    readonly transient = false,
  ) {
    super(message);
  }
}

export type LocalErrorCode =
  /** No tesseract model for a source language: the message names the Debian package. */
  | "ocr_model_missing"
  /** No sans-serif system font to letter with: the message names the Debian package. */
  | "font_missing"
  /** AI base URL, model or key missing in the translation settings. */
  | "ai_not_configured"
  /** The language identifier cannot confirm the destination (its pages could never pass validation). */
  | "target_script_unsupported"
  /** The language identifier cannot confirm the source language (the book's source could never be verified). */
  | "source_language_unsupported"
  /** The provider refused the request (4xx), answered garbage, or could not be reached. */
  | "ai_request_failed"
  /** The provider's answer lacks, repeats or adds region indexes. */
  | "ai_answer_malformed"
  /** No page of the source had a text region OCR could read. */
  | "no_text_found"
  /** Worker validation refused a page (the message names the page and the reason codes). */
  | "validation_failed"
  /** The source archive could not be read (hardened reader refusal). */
  | "source_unreadable"
  /** Pause or cancel stopped the work between pages (not an error shown to users). */
  | "interrupted";

/** What OCR needs: models resolved from the system tessdata folder (never the network). */
export interface OcrPool {
  /**
   * Reads the regions of one page image with the model(s) for `language` (ISO 639-1, e.g. "ja").
   * Each region is cropped with the outside masked white, binarised, scaled so glyphs are ~32 px and
   * padded, then read with one warm worker per model. Low-confidence regions and regions whose text
   * is not in the source's script are dropped.
   */
  read(
    page: Buffer,
    regions: readonly TextRegion[],
    language: string,
    signal?: AbortSignal,
  ): Promise<RecognisedRegion[]>;
  /** Terminates the warm workers. */
  close(): Promise<void>;
}

/** The chat-style AI provider settings of a job (OpenAI-compatible; base includes `/v1`). */
export interface AiSettings {
  baseUrl: string;
  model: string;
  apiKey: string;
}

export interface ChatTranslation {
  /** One translation per input text, same order, markers and think-tags stripped. */
  translations: string[];
  /** The model the provider says answered (falls back to the requested model). */
  model: string;
}

/** Translates one page's texts in one request; aborts with `signal`; throws LocalTranslationError. */
export type ChatTranslator = (
  ai: AiSettings,
  request: { sourceLanguage: string; targetLanguage: string; texts: readonly string[] },
  signal?: AbortSignal,
) => Promise<ChatTranslation>;

/** One translated region to letter onto the page. */
export interface LetteringItem {
  region: Box;
  text: string;
  /** The region's shape inside its box (TextRegion.mask): only it is filled white, the text keeps inside. */
  mask?: Uint8Array;
}

/**
 * Fills each region white and sets its text in the sans-serif font, wrapped, with the largest size
 * that fits. Returns an image of the same width, height and format as `page`.
 */
export type PageLetterer = (
  page: Buffer,
  items: readonly LetteringItem[],
  /** The font file, and the family of the face to use in it (a collection holds several). */
  options: { fontFile: string; fontFamily?: string },
) => Promise<Buffer>;

/** One job for the local engine (the service's worker and the reference processor's built-in engine). */
export interface LocalJob {
  /** For logs only. */
  jobId: string;
  /** Path of the source CBZ (read with the hardened archive reader). */
  source: string;
  sourceSha256: string;
  /** Resolved ISO codes (never `original`). */
  sourceLanguage: string;
  targetLanguage: string;
  ai: AiSettings;
  /**
   * The job's checkpoint folder; kept across attempts so an explicit retry reuses it. The engine
   * keys its content by the job's identity and regenerates what does not match.
   */
  checkpointDir: string;
  /** Where the result ZIP (pages + translation.json, protocol v1 "Result") is written atomically. */
  output: string;
  signal?: AbortSignal;
  onProgress?: (pagesDone: number, pagesTotal: number) => void;
}

/** What a finished local job produced: the receipt written as translation.json. */
export interface LocalResult {
  receipt: TranslationReceiptJson;
  /** Pages read from checkpoints instead of being processed again. */
  pagesFromCheckpoints: number;
}

/** translation.json as protocol v1 defines it (the pure book verdict builds it). */
export type { TranslationReceiptJson };

export interface LocalEngine {
  /** Runs one job to its result ZIP; throws LocalTranslationError (code "interrupted" when aborted). */
  run(job: LocalJob): Promise<LocalResult>;
  close(): Promise<void>;
}
