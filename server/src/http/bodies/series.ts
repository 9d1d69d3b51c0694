/** REST bodies of series (snake_case JSON) parsed into the series service's typed inputs. */
import {
  PLAN_WORDINGS,
  SERIES_FORMS,
  SERIES_STATUSES,
  type SeriesCreateInput,
  type SeriesFields,
} from "../../services/series/series-service.ts";
import {
  asObject,
  optionalBoolean,
  optionalCount,
  optionalEnum,
  optionalLanguage,
  optionalLanguageList,
  optionalString,
} from "../../services/input.ts";

/** The series fields of a JSON object (POST and PATCH /api/manga, a linked series' creation). */
export function seriesFieldsOf(o: Record<string, unknown>): SeriesFields {
  const fields: SeriesFields = {
    title: optionalString(o, "title", 300),
    language: optionalLanguage(o, "language"),
    originalLanguage: o.original_language === null ? null : optionalLanguage(o, "original_language"),
    status: optionalEnum(o, "status", SERIES_STATUSES),
    knownBookCount: optionalCount(o, "known_book_count"),
    editionBookCount: optionalCount(o, "edition_book_count"),
    webtoon: optionalBoolean(o, "webtoon"),
    planWording: optionalEnum(o, "plan_wording", PLAN_WORDINGS),
    monitored: optionalBoolean(o, "monitored"),
    assembleBooksAutomatically: optionalBoolean(o, "assemble_books_automatically"),
    translationFallbackEnabled: optionalBoolean(o, "translation_fallback_enabled"),
    formOverride: o.form_override === null ? null : optionalEnum(o, "form_override", SERIES_FORMS),
    translationSourceLanguages: optionalLanguageList(o, "translation_source_languages"),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as SeriesFields;
}

/** PATCH /api/manga/{id} */
export function seriesPatchBody(body: unknown): SeriesFields {
  return seriesFieldsOf(asObject(body));
}

/** POST /api/manga: the fields and `folder`. */
export function seriesCreateBody(body: unknown): SeriesCreateInput {
  const o = asObject(body);
  return { ...seriesFieldsOf(o), folder: optionalString(o, "folder", 300) };
}
