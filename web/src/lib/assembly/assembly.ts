/** Words of book assembly: progress steps, outcomes, and which errors call for a fresh preview. */
import { adviceFor } from "$lib/errors";
import { plural } from "$lib/format";
import type { AssemblyProgress, BookOutcome } from "./documents";

// Which errors call for a fresh preview: one list for every reviewed action (ui/preview-flow).
export { needsFreshPreview } from "$lib/ui/preview-flow.svelte";

/** "Book 5: writing chapter 3 of 8" and so on, for the progress bar's label. */
export function progressLabel(p: Pick<AssemblyProgress, "volume" | "step" | "done" | "total">): string {
  const of = p.total > 0 ? ` (${Math.min(p.done, p.total)} of ${p.total})` : "";
  switch (p.step) {
    case "hashing":
      return `Book ${p.volume}: checking the chapter files${of}`;
    case "writing":
      return `Book ${p.volume}: writing the chapters into the book${of}`;
    case "publishing":
      return `Book ${p.volume}: publishing the book and retiring its chapter files`;
    case "done":
      return `Book ${p.volume}: done`;
    case "failed":
      return `Book ${p.volume}: failed`;
    default:
      return `Book ${p.volume}: ${p.step}${of}`;
  }
}

/** The bar's fill: null (indeterminate) when the step has no count. */
export function progressCounts(p: Pick<AssemblyProgress, "step" | "done" | "total">): {
  done: number | null;
  total: number | null;
} {
  if (p.step === "done") return { done: 1, total: 1 };
  return p.total > 0 ? { done: p.done, total: p.total } : { done: null, total: null };
}

/** One book of the series action in words: ready, assembled (with where), or why it was refused. */
export function outcomeWords(b: BookOutcome): string {
  if (b.status === "ready") return "Ready to assemble";
  if (b.status === "assembled" && b.result) {
    return `Assembled: ${b.result.path}, ${plural(b.result.pageCount, "page")}; ${plural(b.result.retired.length, "chapter file")} to the recycle bin`;
  }
  if (b.status === "assembled") return "Assembled";
  const why = b.detail ?? b.code ?? "refused";
  return b.code ? `Not assembled: ${why}. ${adviceFor(b.code)}` : `Not assembled: ${why}.`;
}

/**
 * The refusals a series preview with nothing to assemble reports (409 `assembly_nothing_to_do`
 * carries them in its extensions), as the outcomes a preview lists; null for any other error.
 */
export function refusalsOf(error: unknown): BookOutcome[] | null {
  const first = (error as { graphQLErrors?: { extensions?: Record<string, unknown> }[] } | null)?.graphQLErrors?.[0];
  if (first?.extensions?.code !== "assembly_nothing_to_do") return null;
  const books = Array.isArray(first.extensions.books) ? first.extensions.books : [];
  return books.map((raw) => {
    const b = raw as { volume?: unknown; code?: unknown; detail?: unknown };
    return {
      volume: String(b.volume ?? ""),
      status: "refused",
      code: typeof b.code === "string" ? b.code : null,
      detail: typeof b.detail === "string" ? b.detail : null,
      result: null,
    } as BookOutcome;
  });
}
