/**
 * The form of a series page: a list of books or a list of chapters, never both (docs/rules.md, "Series form").
 *
 * Order of the rules (the first that applies decides):
 * 0. `formOverride`: an operator who set the form explicitly wins over every rule below. The rules
 *    only read the work's facts, and the operator knows things they cannot (a webtoon with a finished
 *    print edition, a running work kept as books).
 * 1. A running work is chapters: it has no settled division into books yet.
 * 2. A webtoon is chapters: it is published by episode and its books only divide them.
 * 3. A work without a book count is chapters: there is nothing to list the books against.
 * 4. A finished or paused work with a book count is books (paused: the author stopped, so the books
 *    that exist are the edition worth showing).
 *
 * The book count is `editionBookCount` when set, else `knownBookCount`: the managed edition is what
 * the page lists, so a differently sized edition (12 Viz books against 18 tankobon) replaces the
 * catalogue count for the form decision too: the explicit edition field wins when set.
 */
import type { SeriesFacts, SeriesForm } from "./types.ts";

export type FormRule = "override" | "running" | "webtoon" | "no_book_count" | "book_count";

export interface FormDecision {
  form: SeriesForm;
  rule: FormRule;
  /** One line the series page can show next to the form. */
  reason: string;
  /** The book count the decision used (edition count first); null = unknown. */
  bookCount: number | null;
}

/** A usable count: a positive whole number. 0, negatives and fractions mean "not known". */
function positiveCount(value: number | null): number | null {
  return value !== null && Number.isInteger(value) && value > 0 ? value : null;
}

/** Books of the managed edition: the edition override when set, else the work's known count. */
export function effectiveBookCount(series: Pick<SeriesFacts, "knownBookCount" | "editionBookCount">): number | null {
  return positiveCount(series.editionBookCount) ?? positiveCount(series.knownBookCount);
}

export function seriesFormDecision(series: SeriesFacts): FormDecision {
  const bookCount = effectiveBookCount(series);
  const decide = (form: SeriesForm, rule: FormRule, reason: string): FormDecision => ({
    form,
    rule,
    reason,
    bookCount,
  });
  if (series.formOverride !== null)
    return decide(series.formOverride, "override", `set by the operator: ${series.formOverride}`);
  if (series.status === "running") return decide("chapters", "running", "running series: chapters until it ends");
  if (series.webtoon) return decide("chapters", "webtoon", "webtoon: no certain division into books");
  if (bookCount === null) return decide("chapters", "no_book_count", "no known book count");
  const edition = positiveCount(series.editionBookCount) !== null ? " (managed edition)" : "";
  return decide("books", "book_count", `${series.status} series with ${bookCount} books${edition}`);
}

export function seriesForm(series: SeriesFacts): SeriesForm {
  return seriesFormDecision(series).form;
}
