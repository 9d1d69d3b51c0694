/** Map, map-preview and scan results in REST's snake_case (docs/api.md). Presentation only. */
import type { BookCoverageSide, ChapterCoverageSide, MapChangePreview } from "../domain/coverage.ts";
import type { MapView } from "../services/maps/map-service.ts";
import type { LibraryInfo, ScanResult } from "../services/series/scan-service.ts";

export function restMap(m: MapView) {
  return {
    series_id: m.seriesId,
    revision: m.revision,
    state: m.state,
    entries: m.entries,
    readings: m.readings,
    suggestions: m.suggestions.map((s) => ({
      source: s.name,
      kind: s.kind,
      revision: s.revision,
      entries: s.entries.map((e) => ({
        volume: e.volume,
        chapters: e.chapters,
        status: e.status,
        conflicts: e.conflicts,
        adoptable: e.adoptable,
      })),
    })),
    conflicts: m.conflicts,
  };
}

const chapterSide = (s: ChapterCoverageSide) => ({ coverage: s.coverage, book: s.book, wanted: s.wanted });
const bookSide = (s: BookCoverageSide) => ({
  coverage: s.coverage,
  covers_chapters: s.coversChapters,
  chapters: s.chapters,
  wanted: s.wanted,
});

export function restMapChange(revision: number, p: MapChangePreview) {
  return {
    dry_run: true,
    revision,
    map_before: p.mapBefore,
    map_after: p.mapAfter,
    chapters: p.chapters.map((c) => ({
      number: c.number,
      before: chapterSide(c.before),
      after: chapterSide(c.after),
      become_duplicates: c.becomeDuplicates,
      stop_duplicates: c.stopDuplicates,
    })),
    books: p.books.map((b) => ({
      number: b.number,
      before: bookSide(b.before),
      after: bookSide(b.after),
      become_duplicates: b.becomeDuplicates,
      stop_duplicates: b.stopDuplicates,
    })),
    become_duplicate_file_ids: p.becomeDuplicateFileIds,
    stop_duplicate_file_ids: p.stopDuplicateFileIds,
  };
}

export function restScan(r: ScanResult) {
  return {
    added: r.added,
    changed: r.changed,
    moved: r.moved,
    removed: r.removed,
    unchanged: r.unchanged,
    series_created: r.seriesCreated,
    errors: r.errors,
  };
}

export function restLibraryInfo(l: LibraryInfo) {
  return { root: l.root, recycle_bin: l.recycleBin, scan_interval_seconds: l.scanIntervalSeconds };
}
