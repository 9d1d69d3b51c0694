/**
 * Pure helpers of the verified-books screen: the state of a book in words, digests, and the
 * chapter list of the proof form (comma-separated exact decimals). Whether a proof applies is
 * decided by the server on every read; this only words what it says.
 */
import type { ResultOf, Schema } from "$lib/gql";
import type { BOOK_FIELDS } from "./queries";

export type ProofStatus = Schema<"ProofStatus">;

export type BookProof = NonNullable<VerifiedBook["proof"]>;

export type VerifiedBook = ResultOf<typeof BOOK_FIELDS>;

export type BookStateKey = "verified" | "stale" | "suspect" | "sound";

export interface BookState {
  key: BookStateKey;
  label: string;
  tone: "good" | "warn" | "bad" | "none";
  /** One sentence on what it means for the book. */
  detail: string;
}

/** What the server's suspect reasons mean, in one sentence each. */
export function suspectExplanation(reason: string): string {
  switch (reason) {
    case "hand import":
      return "It was imported by hand, so nothing shows which chapters it holds.";
    case "machine translation":
      return "It is a machine translation, so nothing shows which chapters it holds.";
    case "oversized pack":
      return "It has far more pages than the edition's books: it may be another edition or several books in one file.";
    default:
      return `The service doubts it (${reason}).`;
  }
}

export function proofStatusLabel(status: ProofStatus): string {
  switch (status) {
    case "APPLIES":
      return "The proof applies";
    case "DIGEST_CHANGED":
      return "The book's content changed since the proof";
    case "MAP_CHANGED":
      return "The book's map entry changed since the proof";
    default:
      return String(status);
  }
}

/** Verified, proof no longer applies, suspect, or without doubt. */
export function bookState(book: Pick<VerifiedBook, "verified" | "suspectReason" | "proof">): BookState {
  if (book.verified && book.proof) {
    return {
      key: "verified",
      label: "Verified",
      tone: "good",
      detail: "A proof applies: the book covers the chapters its map entry names.",
    };
  }
  if (book.proof && book.proof.status !== "APPLIES") {
    const why = proofStatusLabel(book.proof.status);
    const then = book.suspectReason ? " Until a new proof, the book covers no chapter." : "";
    return { key: "stale", label: "Proof no longer applies", tone: "warn", detail: `${why}.${then}` };
  }
  if (book.suspectReason) {
    return {
      key: "suspect",
      label: `Suspect: ${book.suspectReason}`,
      tone: "bad",
      detail: `${suspectExplanation(book.suspectReason)} It covers no chapter until a proof says what it holds.`,
    };
  }
  return {
    key: "sound",
    label: "No doubt",
    tone: "none",
    detail: "The service trusts this book; a proof adds nothing to it.",
  };
}

/** A book that needs the person's attention: suspect, or carrying a proof (applying or not). */
export function needsAttention(book: Pick<VerifiedBook, "suspectReason" | "proof">): boolean {
  return book.suspectReason !== null || book.proof !== null;
}

/** "sha256:52ba02278e49…" — the algorithm and the first 12 hex digits. */
export function shortDigest(digest: string): string {
  const [algo, hex] = digest.includes(":") ? digest.split(":", 2) : ["sha256", digest];
  const value = hex ?? "";
  return `${algo}:${value.length > 12 ? `${value.slice(0, 12)}…` : value}`;
}

const LABEL = /^(\d+)(?:\.(\d+))?$/;

/** Canonical exact decimal ("007" → "7", "10.50" → "10.5"), or null when not a number. */
export function canonicalLabel(text: string): string | null {
  const m = LABEL.exec(text.trim());
  if (!m) return null;
  const int = (m[1] ?? "0").replace(/^0+(?=\d)/, "");
  const frac = (m[2] ?? "").replace(/0+$/, "");
  return frac ? `${int}.${frac}` : int;
}

export type ChapterListResult = { ok: true; chapters: string[] } | { ok: false; error: string };

/**
 * The proof form's chapter field: comma-separated exact decimals ("1, 2, 3.5"). Each chapter once;
 * the order is the person's (the server compares sets). Never parsed into floats.
 */
export function parseChapterList(text: string): ChapterListResult {
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length === 0)
    return { ok: false, error: "List the book's chapters, separated by commas (for example 1, 2, 3)." };
  const seen = new Set<string>();
  const chapters: string[] = [];
  for (const part of parts) {
    const label = canonicalLabel(part);
    if (label === null)
      return { ok: false, error: `“${part}” is not a chapter number: use exact decimals such as 12 or 12.5.` };
    if (seen.has(label)) return { ok: false, error: `Chapter ${label} is listed twice.` };
    seen.add(label);
    chapters.push(label);
  }
  return { ok: true, chapters };
}

export function formatChapterList(chapters: readonly string[]): string {
  return chapters.join(", ");
}

/**
 * A short reading of a chapter list: runs of consecutive whole chapters become ranges
 * ("1–8, 10.5"). Display only; the list keeps its order.
 */
export function chapterSummary(chapters: readonly string[]): string {
  const out: string[] = [];
  let start: string | null = null;
  let prev: number | null = null;
  let prevLabel: string | null = null;
  const flush = () => {
    if (start === null || prevLabel === null) return;
    out.push(start === prevLabel ? start : `${start}–${prevLabel}`);
    start = null;
    prevLabel = null;
    prev = null;
  };
  for (const c of chapters) {
    const whole = /^\d+$/.test(c) && c.length < 15 ? Number(c) : null;
    if (whole !== null && prev !== null && whole === prev + 1) {
      prev = whole;
      prevLabel = c;
      continue;
    }
    flush();
    if (whole === null) {
      out.push(c);
    } else {
      start = c;
      prevLabel = c;
      prev = whole;
    }
  }
  flush();
  return out.join(", ");
}

/** An optional http(s) URL: "" is fine, anything else must parse as one. */
export function sourceUrlProblem(text: string): string | null {
  const value = text.trim();
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return null;
  } catch {
    /* falls through */
  }
  return "The source must be a web address starting with http:// or https://.";
}

/** The digest field: "sha256:" and 64 hex digits (the form the service lists and expects). */
export function digestProblem(text: string): string | null {
  return /^sha256:[0-9a-f]{64}$/i.test(text.trim())
    ? null
    : "The digest is “sha256:” followed by 64 hexadecimal digits, as listed for the book.";
}
