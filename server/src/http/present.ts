/** camelCase service results → the REST JSON in snake_case (docs/api.md). Presentation only, no rules. */
import type { Unit, UnitsView } from "../domain/types.ts";
import type { SeriesView } from "../services/series/series-service.ts";
import type { RemovedSeriesView, SeriesRemovalView } from "../services/series/series-removal-service.ts";

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

/** A removed series: what it was, and how many of its recycle-bin entries stay restorable. */
export function restRemovedSeries(r: RemovedSeriesView) {
  return { id: r.id, title: r.title, folder: r.folder, removed: true, recycle_entries_kept: r.recycleEntriesKept };
}

/** Whether a series can be removed now (the removal rule's answer; the web never decides it itself). */
export function restSeriesRemoval(r: SeriesRemovalView) {
  return {
    allowed: r.allowed,
    refusal: r.refusal,
    active_files: r.activeFiles,
    busy: {
      downloads: r.busy.downloads ?? 0,
      torrent_jobs: r.busy.torrentJobs ?? 0,
      translation_jobs: r.busy.translationJobs ?? 0,
      publications: r.busy.publications ?? 0,
    },
    folder_present: r.folderPresent,
  };
}
