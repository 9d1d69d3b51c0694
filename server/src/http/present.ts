/** camelCase service results → the REST JSON in snake_case (docs/api.md). Presentation only, no rules. */
import type { Unit, UnitsView } from "../domain/types.ts";
import type { SeriesView } from "../services/series/series-service.ts";

export function restSeries(s: SeriesView) {
  return {
    id: s.id,
    title: s.title,
    folder: s.folder,
    form: s.form,
    form_override: s.formOverride,
    language: s.language,
    original_language: s.originalLanguage,
    monitored: s.monitored,
    status: s.status,
    known_book_count: s.knownBookCount,
    edition_book_count: s.editionBookCount,
    webtoon: s.webtoon,
    plan_wording: s.planWording,
    assemble_books_automatically: s.assembleBooksAutomatically,
    translation_fallback_enabled: s.translationFallbackEnabled,
    translation_source_languages: s.translationSourceLanguages,
  };
}

export function restUnit(u: Unit) {
  return {
    kind: u.kind,
    number: u.number,
    book: u.book,
    owned: u.owned,
    monitored: u.monitored,
    coverage: u.coverage,
    plan: u.plan,
    estimated_book: u.estimatedBook,
    page_count: u.pageCount,
    file_ids: u.fileIds,
    duplicate_file_ids: u.duplicateFileIds,
    problems: u.problems,
    extra: u.extra,
  };
}

export function restUnits(v: UnitsView) {
  return {
    series_id: v.seriesId,
    form: v.form,
    map: v.map,
    status: v.status,
    plan_wording: v.planWording,
    units: v.units.map(restUnit),
  };
}
