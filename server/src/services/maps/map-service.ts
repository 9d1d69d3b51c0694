import { AppError } from "../../errors.ts";
import { buildCoverageIndex, previewMapChange, type MapChangePreview } from "../../domain/coverage.ts";
import { catalogueSuggestions, validateOperatorEntries, type CatalogueSuggestion } from "../../domain/map-trust.ts";
import {
  bookStartsOf,
  editorKnownChapters,
  entriesFromBookStarts,
  type BookStart,
  type BookStartsResult,
} from "../../domain/map-editor.ts";
import { seriesForm } from "../../domain/series-form.ts";
import { compareLabels } from "../../domain/labels.ts";
import type { MapEntryFacts, MapSourceFacts, MapState, SeriesSnapshot } from "../../domain/types.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import type { AppContext } from "../context.ts";
import { boundariesLock } from "../series/boundaries-lock.ts";
import { asEntries, asLabel, asObject, asRevision, checkString } from "../input.ts";

function sortedEntries(entries: MapEntryFacts[]): MapEntryFacts[] {
  return [...entries]
    .map((e) => ({ volume: e.volume, chapters: [...e.chapters].sort(compareLabels) }))
    .sort((a, b) => compareLabels(a.volume, b.volume));
}

function entriesOf(sources: MapSourceFacts[], kind: MapSourceFacts["kind"]): MapEntryFacts[] {
  return sortedEntries(sources.filter((s) => s.kind === kind).flatMap((s) => s.entries));
}

export interface MapView {
  seriesId: number;
  revision: number;
  state: MapState;
  entries: MapEntryFacts[];
  /** The start of each operator book (its smallest chapter), for the map editor. */
  bookStarts: BookStart[];
  readings: MapEntryFacts[];
  suggestions: CatalogueSuggestion[];
  conflicts: { chapter: string; books: string[] }[];
}

/** The map editor's plan from book starts: the entries to save and, without problems, their coverage change. */
export interface BookStartsPlan {
  revision: number;
  entries: MapEntryFacts[];
  problems: { code: string; message: string; volume: string | null }[];
  warnings: BookStartsResult["warnings"];
  lastEnd: string | null;
  lastEndReason: BookStartsResult["lastEnd"]["reason"];
  /** Null when there are problems (nothing to preview). */
  preview: MapChangePreview | null;
}

/** `starts: [{ volume, start }]` as strings (labels are judged by the rule core, which reports them as problems). */
export function asBookStarts(v: unknown): BookStart[] {
  if (!Array.isArray(v))
    throw new AppError("bad_request", "starts must be an array of { volume, start }", { field: "starts" });
  if (v.length > 5000) throw new AppError("bad_request", "starts has too many books", { field: "starts" });
  if (v.length === 0)
    throw new AppError("book_starts_empty", "give the start of at least one book (to remove the map, delete it)", {
      field: "starts",
    });
  return v.map((raw, i) => {
    const o = asObject(raw, `starts[${i}]`);
    if (typeof o.volume !== "string" || typeof o.start !== "string") {
      throw new AppError(
        "invalid_label",
        `starts[${i}] must have the book and its first chapter as exact decimal strings`,
        { field: `starts[${i}]` },
      );
    }
    return { volume: o.volume, start: o.start };
  });
}

/** One book of a map: exact decimal labels as strings ("7", "10.5"); no chapter = unknown. */
export interface MapEntryInput {
  volume: string;
  chapters: readonly string[];
}

/** Saving the operator map: the revision read with it and every entry. */
export interface MapSaveInput {
  revision: number;
  entries: readonly MapEntryInput[];
}

/** Removing the operator map, bound to the revision read with it. */
export interface MapRevisionInput {
  revision: number;
}

/** The map editor's book starts, bound to the revision; `lastEnd` is the last book's last chapter, if known. */
export interface BookStartsInput {
  revision: number;
  starts: readonly BookStart[];
  lastEnd?: string | null;
}

/** A catalogue or official suggestion ("catalogue:<name>", "official:<name>"). */
export interface SuggestionInput {
  source: string;
  entries: readonly MapEntryInput[];
  /** The document as submitted, kept verbatim with the suggestion (default: source and entries). */
  raw?: string;
}

export type MapChangeResult =
  { dryRun: true; revision: number; preview: MapChangePreview } | { dryRun: false; map: MapView };

function preview(snapshot: SeriesSnapshot, entries: MapEntryFacts[] | null): MapChangePreview {
  return previewMapChange(snapshot, entries, { form: seriesForm(snapshot.series) });
}

/** The operator map, the readings and the suggestions of one series, as the map endpoints show them. */
export function mapService(ctx: AppContext) {
  const { repos } = ctx;
  const boundaries = boundariesLock(ctx);

  async function requireSeries(id: number) {
    const row = await repos.series.get(id);
    if (!row) throw new AppError("series_not_found", `series ${id} does not exist`);
    return row;
  }

  async function view(id: number): Promise<MapView> {
    const snapshot = await loadSnapshot(ctx.db, id);
    if (!snapshot) throw new AppError("series_not_found", `series ${id} does not exist`);
    const sources = snapshot.mapSources;
    const operator = sources.find((s) => s.kind === "operator");
    const operatorEntries = entriesOf(sources, "operator");
    // The same index the units view uses, so the map state shown here is the one that decides.
    const { map } = buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series) });
    return {
      seriesId: id,
      revision: operator?.revision ?? 0,
      state: map.state,
      entries: operatorEntries,
      bookStarts: bookStartsOf(operatorEntries),
      readings: entriesOf(sources, "reading"),
      suggestions: catalogueSuggestions(sources, operatorEntries),
      conflicts: [...map.conflicts.entries()].map(([chapter, books]) => ({ chapter, books })),
    };
  }

  function validate(entries: MapEntryFacts[]): void {
    const problems = validateOperatorEntries(entries);
    if (problems.length > 0) {
      throw new AppError("invalid_map", problems.map((p) => p.message).join("; "), { problems });
    }
  }

  async function checkRevision(id: number, revision: number): Promise<void> {
    const current = await repos.maps.operatorRevision(id);
    if (current !== revision) {
      throw new AppError(
        "map_revision_stale",
        `the map is at revision ${current}, not ${revision}: reload it and review again`,
        {
          current_revision: current,
        },
      );
    }
  }

  /** Mapped books and chapters become slots: the operator has told us they exist. */
  async function ensureSlots(id: number, entries: MapEntryFacts[], monitored: boolean): Promise<void> {
    await repos.slots.ensureVolumes(
      id,
      entries.map((e) => e.volume),
      monitored,
    );
    await repos.slots.ensureChapters(
      id,
      entries.flatMap((e) => e.chapters.map((number) => ({ number }))),
      monitored,
    );
  }

  return {
    view: async (id: number) => {
      await requireSeries(id);
      return view(id);
    },

    /** PUT …/chapter-map: with dryRun, the coverage change it would make; otherwise saves at `revision`. */
    async replace(id: number, input: MapSaveInput, dryRun: boolean): Promise<MapChangeResult> {
      const series = await requireSeries(id);
      const revision = asRevision(input.revision);
      const entries = sortedEntries(asEntries(input.entries));
      validate(entries);
      await checkRevision(id, revision);
      if (dryRun) {
        const snapshot = await loadSnapshot(ctx.db, id);
        if (!snapshot) throw new AppError("series_not_found");
        return { dryRun: true, revision, preview: preview(snapshot, entries) };
      }
      const next = await boundaries(id, () => repos.maps.replaceOperator(id, revision, entries));
      if (next === null) await checkRevision(id, revision);
      await ensureSlots(id, entries, series.monitored);
      ctx.events.publish("map_changed", id);
      return { dryRun: false, map: await view(id) };
    },

    /** DELETE …/chapter-map: removes the operator entries only (readings and suggestions stay). */
    async remove(id: number, input: MapRevisionInput, dryRun: boolean): Promise<MapChangeResult> {
      await requireSeries(id);
      const revision = asRevision(input.revision);
      await checkRevision(id, revision);
      if (dryRun) {
        const snapshot = await loadSnapshot(ctx.db, id);
        if (!snapshot) throw new AppError("series_not_found");
        return { dryRun: true, revision, preview: preview(snapshot, null) };
      }
      const next = await boundaries(id, () => repos.maps.replaceOperator(id, revision, null));
      if (next === null) await checkRevision(id, revision);
      ctx.events.publish("map_changed", id);
      return { dryRun: false, map: await view(id) };
    },

    /**
     * POST …/chapter-map/book-starts/preview (GraphQL previewBookStarts): the map editor's input, the
     * start of each book, as operator entries (domain/map-editor.ts decides the implied ends from the
     * known chapters — slots and files —, the work's status and its book count, edition count first)
     * and the coverage change saving them would make. Bound to the revision like a save; nothing is saved.
     */
    async previewBookStarts(id: number, input: BookStartsInput): Promise<BookStartsPlan> {
      await requireSeries(id);
      const revision = asRevision(input.revision);
      const starts = asBookStarts(input.starts);
      const lastEnd = input.lastEnd ?? null;
      await checkRevision(id, revision);
      const snapshot = await loadSnapshot(ctx.db, id);
      if (!snapshot) throw new AppError("series_not_found");
      const known = editorKnownChapters(snapshot);
      const s = snapshot.series;
      const r = entriesFromBookStarts(starts, known, {
        lastEnd,
        finished: s.status === "finished",
        bookCount: s.editionBookCount ?? s.knownBookCount,
        saved: snapshot.mapSources.find((m) => m.kind === "operator")?.entries ?? [],
      });
      const problems: BookStartsPlan["problems"] = r.problems.map((p) => ({
        code: p.code,
        message: p.message,
        volume: p.volume ?? null,
      }));
      // The entries must also pass what a save checks (e.g. the number of books).
      if (problems.length === 0)
        problems.push(
          ...validateOperatorEntries(r.entries).map((p) => ({
            code: p.code,
            message: p.message,
            volume: p.volume ?? null,
          })),
        );
      const ok = problems.length === 0;
      const entries = ok ? sortedEntries(r.entries) : [];
      return {
        revision,
        entries,
        problems,
        warnings: r.warnings,
        lastEnd: r.lastEnd.chapter,
        lastEndReason: r.lastEnd.reason,
        preview: ok ? preview(snapshot, entries) : null,
      };
    },

    /** POST …/chapter-map/readings: one book's chapters, submitted from the book-reading interface. */
    async addReading(id: number, input: MapEntryInput) {
      const series = await requireSeries(id);
      const volume = asLabel(input.volume, "volume");
      const [entry] = asEntries([input], "reading");
      if (!entry || entry.chapters.length === 0) {
        throw new AppError("invalid_map", "a reading lists the chapters the book holds (at least one)");
      }
      const reading = sortedEntries([{ volume, chapters: entry.chapters }])[0] as MapEntryFacts;
      validate([reading]);
      // The clash check and the write in one turn with assemblies (and other map changes).
      await boundaries(id, async () => {
        const sources = await repos.maps.sources(id);
        const clashes: string[] = [];
        for (const s of sources) {
          if (s.kind !== "operator" && s.kind !== "reading") continue;
          for (const e of s.entries) {
            if (compareLabels(e.volume, volume) === 0) continue;
            for (const c of reading.chapters)
              if (e.chapters.some((x) => compareLabels(x, c) === 0)) clashes.push(`${c} (vol ${e.volume})`);
          }
        }
        if (clashes.length > 0) {
          throw new AppError(
            "reading_conflicts_with_map",
            `these chapters already belong to another book in the registered map: ${clashes.join(", ")}`,
            { chapters: clashes },
          );
        }
        await repos.maps.upsertReading(id, reading);
      });
      await ensureSlots(id, [reading], series.monitored);
      ctx.events.publish("map_changed", id);
      return view(id);
    },

    /** POST …/chapter-map/suggestions: catalogue/official data, kept verbatim as a suggestion only. */
    async addSuggestion(id: number, input: SuggestionInput) {
      await requireSeries(id);
      const source = checkString(input.source, "source", 120) ?? "";
      const m = /^(catalogue|official):[\w.\- ]{1,100}$/.exec(source);
      if (!m) {
        throw new AppError("suggestion_source_invalid", 'source must be "catalogue:<name>" or "official:<name>"', {
          field: "source",
        });
      }
      const entries = asEntries(input.entries);
      const raw = input.raw ?? JSON.stringify({ source: input.source, entries: input.entries });
      await repos.maps.replaceSuggestion(id, m[1] as "catalogue" | "official", source, raw, entries);
      ctx.events.publish("map_changed", id);
      return view(id);
    },
  };
}

export type MapService = ReturnType<typeof mapService>;
