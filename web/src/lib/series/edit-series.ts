/**
 * The Edit series dialog's draft: the series' fields as the dialog's boxes hold them, and the
 * `updateSeries` input of only what changed. Every rule (which values are allowed, which form the
 * series takes) is the service's: a refusal names its field in `extensions.field`, and the dialog
 * shows the service's message next to that field.
 */
import type { ResultOf, Schema, VariablesOf } from "$lib/gql";
import type { SERIES_SETTINGS, UPDATE_SERIES } from "./api";

export type SeriesSettings = NonNullable<ResultOf<typeof SERIES_SETTINGS>["series"]>;
export type SeriesInput = VariablesOf<typeof UPDATE_SERIES>["input"];
/** The form choice: AUTOMATIC clears the override (the service decides from the series' facts). */
export type FormChoice = "AUTOMATIC" | Schema<"SeriesForm">;

export interface SeriesDraft {
  title: string;
  language: string;
  /** Empty: not known. */
  originalLanguage: string;
  status: Schema<"SeriesStatus">;
  /** Text of the count box; empty: not known. */
  knownBookCount: string;
  editionBookCount: string;
  webtoon: boolean;
  monitored: boolean;
  assembleBooksAutomatically: boolean;
  form: FormChoice;
}

export type DraftField = keyof SeriesDraft;

export function draftOf(s: SeriesSettings): SeriesDraft {
  return {
    title: s.title,
    language: s.language,
    originalLanguage: s.originalLanguage ?? "",
    status: s.status,
    knownBookCount: s.knownBookCount === null ? "" : String(s.knownBookCount),
    editionBookCount: s.editionBookCount === null ? "" : String(s.editionBookCount),
    webtoon: s.webtoon,
    monitored: s.monitored,
    assembleBooksAutomatically: s.assembleBooksAutomatically,
    form: s.formOverride ?? "AUTOMATIC",
  };
}

const NOT_A_NUMBER = "Enter a whole number, or leave the box empty if it is not known.";
const TOO_LARGE = "That number is too large.";
/** GraphQL's Int is 32 bits: a larger number cannot even be sent. */
const INT_MAX = 2 ** 31 - 1;

/**
 * A count box's text as the API's Int: empty is null. Only what GraphQL can carry is checked here;
 * which numbers are allowed is the service's to say.
 */
function countOf(text: string): { value: number | null } | { problem: string } {
  const t = text.trim();
  if (t === "") return { value: null };
  if (!/^-?\d+$/.test(t)) return { problem: NOT_A_NUMBER };
  const value = Number(t);
  return Math.abs(value) > INT_MAX ? { problem: TOO_LARGE } : { value };
}

export interface DraftChanges {
  /** Only the fields that differ from the series as loaded. */
  input: SeriesInput;
  changed: number;
  /** Boxes whose text cannot travel as the API's type (nothing is sent while any is here). */
  problems: Partial<Record<DraftField, string>>;
}

export function changesOf(s: SeriesSettings, d: SeriesDraft): DraftChanges {
  const input: SeriesInput = {};
  const problems: Partial<Record<DraftField, string>> = {};
  if (d.title !== s.title) input.title = d.title;
  const language = d.language.trim();
  if (language !== s.language) input.language = language;
  const original = d.originalLanguage.trim() || null;
  if (original !== s.originalLanguage) input.originalLanguage = original;
  if (d.status !== s.status) input.status = d.status;
  for (const key of ["knownBookCount", "editionBookCount"] as const) {
    const count = countOf(d[key]);
    if ("problem" in count) problems[key] = count.problem;
    else if (count.value !== s[key]) input[key] = count.value;
  }
  if (d.webtoon !== s.webtoon) input.webtoon = d.webtoon;
  if (d.monitored !== s.monitored) input.monitored = d.monitored;
  if (d.assembleBooksAutomatically !== s.assembleBooksAutomatically)
    input.assembleBooksAutomatically = d.assembleBooksAutomatically;
  const override = d.form === "AUTOMATIC" ? null : d.form;
  if (override !== s.formOverride) input.formOverride = override;
  return { input, changed: Object.keys(input).length, problems };
}

/** The service names fields in the REST spelling (`known_book_count`); a text check names its path. */
const FIELDS: Record<string, DraftField> = {
  title: "title",
  language: "language",
  original_language: "originalLanguage",
  status: "status",
  known_book_count: "knownBookCount",
  edition_book_count: "editionBookCount",
  webtoon: "webtoon",
  monitored: "monitored",
  assemble_books_automatically: "assembleBooksAutomatically",
  form_override: "form",
};

/**
 * The dialog field a refusal is about, from its `extensions.field` ("known_book_count", or a path
 * such as "variables.input.title" from the check of every string a request carries); null when
 * the error names none of the dialog's fields.
 */
export function refusedField(error: unknown): { field: DraftField; message: string } | null {
  const first = (error as { graphQLErrors?: { message: string; extensions?: Record<string, unknown> }[] } | null)
    ?.graphQLErrors?.[0];
  const named = first?.extensions?.field;
  if (!first || typeof named !== "string") return null;
  const last = named.split(".").pop() ?? "";
  const snake = last.replace(/\[\d+\]$/, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const field = FIELDS[snake];
  return field ? { field, message: first.message } : null;
}
