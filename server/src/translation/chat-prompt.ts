/**
 * The numbered-lines prompt of the chat translator (the format manga-image-translator's chat
 * translators use): building bounded requests and reading the answer back. Pure text functions.
 *
 * Bounds (why: a page's prompt must stay far below any model's context and a runaway OCR text
 * must not make a huge, expensive request):
 *   - a region's text is cut at MAX_CHARS_PER_REGION (1 000) characters; a real speech bubble holds
 *     far less, so longer text is OCR noise and only its start is worth sending;
 *   - one request carries at most MAX_CHARS_PER_REQUEST (4 000) characters of region text and at most
 *     MAX_REGIONS_PER_REQUEST (50) regions; a page beyond that is split into several requests, each
 *     numbered from 1.
 */
import { LocalTranslationError } from "./types.ts";

export interface PromptLimits {
  maxCharsPerRegion: number;
  maxCharsPerRequest: number;
  maxRegionsPerRequest: number;
}

export const DEFAULT_LIMITS: PromptLimits = {
  maxCharsPerRegion: 1_000,
  maxCharsPerRequest: 4_000,
  maxRegionsPerRequest: 50,
};

const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  ja: "Japanese",
  zh: "Chinese",
  ko: "Korean",
  en: "English",
  fr: "French",
  de: "German",
  es: "Spanish",
  it: "Italian",
  pt: "Portuguese",
  nl: "Dutch",
  pl: "Polish",
  cs: "Czech",
  sk: "Slovak",
  hu: "Hungarian",
  ro: "Romanian",
  sv: "Swedish",
  da: "Danish",
  nb: "Norwegian",
  no: "Norwegian",
  fi: "Finnish",
  tr: "Turkish",
  vi: "Vietnamese",
  id: "Indonesian",
  ms: "Malay",
  tl: "Tagalog",
  th: "Thai",
  ar: "Arabic",
  fa: "Persian",
  he: "Hebrew",
  hi: "Hindi",
  el: "Greek",
  ru: "Russian",
  uk: "Ukrainian",
  bg: "Bulgarian",
  sr: "Serbian",
  be: "Belarusian",
  mk: "Macedonian",
  kk: "Kazakh",
  hr: "Croatian",
  sl: "Slovenian",
  ca: "Catalan",
};

/** "ja" → "Japanese", "pt-BR" → "Portuguese (pt-BR)"; an unknown code stays the code. */
export function languageName(code: string): string {
  const trimmed = code.trim();
  const base = trimmed.toLowerCase().split(/[-_]/)[0] ?? "";
  const name = LANGUAGE_NAMES[base];
  if (!name) return trimmed;
  return base === trimmed.toLowerCase() ? name : `${name} (${trimmed})`;
}

export function systemPrompt(sourceLanguage: string, targetLanguage: string): string {
  const from = languageName(sourceLanguage);
  const to = languageName(targetLanguage);
  return [
    `You are a professional translator of manga. Translate the dialogue the user sends from ${from} to ${to}.`,
    `The user sends numbered lines, each starting with a marker like <|1|>; every line is the text of one speech bubble or caption.`,
    `Answer with exactly one line per input line, starting with the same marker, followed only by the ${to} translation of that line.`,
    `Keep every marker and the order; never merge, split, skip or add lines. Add no notes, explanations, quotes or code fences.`,
    `Write the whole answer in ${to}; translate names, sound effects and unclear text as well as you can.`,
  ].join("\n");
}

/** One region's text as one prompt line: layout line breaks become spaces, then the cap. */
function promptText(text: string, limits: PromptLimits): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return [...flat].slice(0, limits.maxCharsPerRegion).join("");
}

/**
 * The page's texts in consecutive batches within the bounds; each batch is the list of original
 * positions it carries (in order) and its user message.
 */
export function buildBatches(
  texts: readonly string[],
  limits: PromptLimits = DEFAULT_LIMITS,
): { positions: number[]; content: string }[] {
  const batches: { positions: number[]; lines: string[]; chars: number }[] = [];
  texts.forEach((raw, position) => {
    const text = promptText(raw, limits);
    let current = batches.at(-1);
    if (
      !current ||
      current.positions.length >= limits.maxRegionsPerRequest ||
      (current.chars + text.length > limits.maxCharsPerRequest && current.positions.length > 0)
    ) {
      current = { positions: [], lines: [], chars: 0 };
      batches.push(current);
    }
    current.positions.push(position);
    current.lines.push(`<|${current.positions.length}|> ${text}`);
    current.chars += text.length;
  });
  return batches.map((b) => ({ positions: b.positions, content: b.lines.join("\n") }));
}

/**
 * Removes reasoning the model wrote into its content: complete `<think>…</think>` blocks, a leading
 * reasoning block whose opening tag the chat template already sent (`…</think>` only), and an
 * unterminated `<think>` (the model stopped while thinking: the answer is what came before it).
 */
export function stripThinking(content: string): string {
  let out = content.replace(/<think>[\s\S]*?<\/think>/gi, "");
  const close = /<\/think>/i.exec(out);
  if (close && !/<think>/i.test(out.slice(0, close.index))) out = out.slice(close.index + close[0].length);
  const open = /<think>/i.exec(out);
  if (open) out = out.slice(0, open.index);
  return out;
}

/** A marker at the start of a line; markers elsewhere stay in the text for the worker validation. */
const LINE_MARKER = /^[ \t]*<\|[ \t]*(\d+)[ \t]*\|>/gm;

/**
 * The `count` translations of one batch answer, in index order. Text before the first marker (a
 * model's "Here is the translation:") belongs to no region and is dropped; everything after a
 * marker up to the next line marker is that region's text, trimmed, so stray markers, fences or
 * JSON inside it stay visible to the validation. Any missing, repeated or extra index is refused.
 */
export function parseNumberedAnswer(content: string, count: number): string[] {
  const text = stripThinking(content);
  const found = [...text.matchAll(LINE_MARKER)];
  const byIndex = new Map<number, string>();
  const duplicated: number[] = [];
  const unexpected: number[] = [];
  found.forEach((m, i) => {
    const index = Number(m[1]);
    const start = m.index + m[0].length;
    const end = found[i + 1]?.index ?? text.length;
    if (index < 1 || index > count) unexpected.push(index);
    else if (byIndex.has(index)) duplicated.push(index);
    else byIndex.set(index, text.slice(start, end).trim());
  });
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0 || duplicated.length > 0 || unexpected.length > 0) {
    const parts = [
      missing.length > 0 ? `missing ${missing.join(", ")}` : "",
      duplicated.length > 0 ? `repeated ${[...new Set(duplicated)].join(", ")}` : "",
      unexpected.length > 0 ? `unexpected ${[...new Set(unexpected)].join(", ")}` : "",
    ].filter(Boolean);
    throw new LocalTranslationError(
      "ai_answer_malformed",
      `The AI answer does not match the ${count} numbered lines it was sent (${parts.join("; ")}).`,
    );
  }
  return Array.from({ length: count }, (_, i) => byIndex.get(i + 1) ?? "");
}
