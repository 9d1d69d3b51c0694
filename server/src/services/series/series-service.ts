import { mkdir } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../errors.ts";
import { wholeLabel } from "../../domain/labels.ts";
import { safeName } from "../../domain/safe-names.ts";
import { seriesForm } from "../../domain/series-form.ts";
import type { PlanWording, SeriesForm, SeriesStatus } from "../../domain/types.ts";
import { parseJsonArray, seriesFacts } from "../../repositories/mappers.ts";
import type { SeriesRow } from "../../repositories/series-repo.ts";
import type { AppContext } from "../context.ts";
import { checkBoolean, checkCount, checkEnum, checkLanguage, checkLanguageList, checkString } from "../input.ts";
import { requireLibraryFolderOf } from "../../library/library-root.ts";

export const SERIES_STATUSES = ["running", "finished", "paused"] as const satisfies readonly SeriesStatus[];
export const SERIES_FORMS = ["books", "chapters"] as const satisfies readonly SeriesForm[];
export const PLAN_WORDINGS = ["books_first", "chapters_first"] as const satisfies readonly PlanWording[];

/** The full series record, as both REST and GraphQL present it (field names differ by case only). */
export interface SeriesView {
  id: number;
  title: string;
  folder: string;
  /** Decided by the series-form rules (or the operator's override). */
  form: SeriesForm;
  formOverride: SeriesForm | null;
  language: string;
  originalLanguage: string | null;
  status: SeriesStatus;
  knownBookCount: number | null;
  editionBookCount: number | null;
  webtoon: boolean;
  planWording: PlanWording;
  monitored: boolean;
  assembleBooksAutomatically: boolean;
  translationFallbackEnabled: boolean;
  translationSourceLanguages: string[];
}

export function seriesView(row: SeriesRow): SeriesView {
  const facts = seriesFacts(row);
  return {
    id: row.id,
    title: row.title,
    folder: row.folder,
    form: seriesForm(facts),
    formOverride: facts.formOverride,
    language: row.language,
    originalLanguage: row.originalLanguage,
    status: facts.status,
    knownBookCount: row.knownBookCount,
    editionBookCount: row.editionBookCount,
    webtoon: row.webtoon,
    planWording: facts.planWording,
    monitored: row.monitored,
    assembleBooksAutomatically: row.assembleBooksAutomatically,
    translationFallbackEnabled: row.translationFallbackEnabled,
    translationSourceLanguages: parseJsonArray<string>(row.translationSourceLanguages),
  };
}

/**
 * Fields a client may set; omitted (undefined) fields are left as they are. null clears the fields
 * that may be empty (original language, book counts, form override) and is refused elsewhere.
 */
export interface SeriesFields {
  title?: string | null;
  language?: string | null;
  originalLanguage?: string | null;
  status?: SeriesStatus | null;
  knownBookCount?: number | null;
  editionBookCount?: number | null;
  webtoon?: boolean | null;
  planWording?: PlanWording | null;
  monitored?: boolean | null;
  assembleBooksAutomatically?: boolean | null;
  translationFallbackEnabled?: boolean | null;
  formOverride?: SeriesForm | null;
  translationSourceLanguages?: readonly string[] | null;
}

/** Creating a series: its fields (a title required) and, optionally, its folder (default: from the title). */
export interface SeriesCreateInput extends SeriesFields {
  folder?: string | null;
}

/** The fields' rules (errors name the fields in the REST spelling, as both APIs report them). */
function parsePatch(o: SeriesFields) {
  const formOverride = o.formOverride === null ? null : checkEnum(o.formOverride, "form_override", SERIES_FORMS);
  const translationSourceLanguages = checkLanguageList(o.translationSourceLanguages, "translation_source_languages");
  const patch = {
    // Trimmed as on create: a PATCH must not store the padding create would have dropped.
    title: checkString(o.title, "title", 300)?.trim(),
    language: checkLanguage(o.language, "language"),
    originalLanguage: o.originalLanguage === null ? null : checkLanguage(o.originalLanguage, "original_language"),
    status: checkEnum(o.status, "status", SERIES_STATUSES),
    knownBookCount: checkCount(o.knownBookCount, "known_book_count"),
    editionBookCount: checkCount(o.editionBookCount, "edition_book_count"),
    webtoon: checkBoolean(o.webtoon, "webtoon"),
    planWording: checkEnum(o.planWording, "plan_wording", PLAN_WORDINGS),
    monitored: checkBoolean(o.monitored, "monitored"),
    assembleBooksAutomatically: checkBoolean(o.assembleBooksAutomatically, "assemble_books_automatically"),
    translationFallbackEnabled: checkBoolean(o.translationFallbackEnabled, "translation_fallback_enabled"),
    form: formOverride,
    translationSourceLanguages:
      translationSourceLanguages === undefined ? undefined : JSON.stringify(translationSourceLanguages),
  };
  if (patch.title === "") throw new AppError("invalid_field", "title must not be empty", { field: "title" });
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<typeof patch>;
}

/** Told after a series changed (e.g. the translation jobs follow its language and toggle). */
export type SeriesUpdatedListener = (before: SeriesRow, after: SeriesRow) => Promise<unknown>;

export function seriesService(ctx: AppContext) {
  const { repos } = ctx;
  const updatedListeners: SeriesUpdatedListener[] = [];

  async function require(id: number): Promise<SeriesRow> {
    const row = await repos.series.get(id);
    if (!row) throw new AppError("series_not_found", `series ${id} does not exist`);
    return row;
  }

  /** Known book count brings its volume slots (1..N) along, monitored like the series. */
  async function ensureBookSlots(row: SeriesRow): Promise<void> {
    const count = row.editionBookCount ?? row.knownBookCount;
    if (!count) return;
    const numbers = Array.from({ length: count }, (_, i) => wholeLabel(i + 1));
    await repos.slots.ensureVolumes(row.id, numbers, row.monitored);
  }

  return {
    require,
    async list(): Promise<SeriesView[]> {
      return (await repos.series.list()).map(seriesView);
    },
    async get(id: number): Promise<SeriesView> {
      return seriesView(await require(id));
    },
    async create(input: SeriesCreateInput): Promise<SeriesView> {
      const title = checkString(input.title, "title", 300)?.trim();
      if (!title) throw new AppError("invalid_field", "title is required", { field: "title" });
      const folder = safeName(checkString(input.folder, "folder", 300) ?? title);
      if (await repos.series.byFolder(folder))
        throw new AppError("series_folder_taken", `the folder "${folder}" already holds a series`);
      const patch = parsePatch({ ...input, title });
      // The series folder is made, never LIBRARY_ROOT itself, nor on an empty mount point (library-root.ts).
      await requireLibraryFolderOf(ctx);
      await mkdir(path.join(ctx.config.libraryRoot, folder), { recursive: true });
      const row = await repos.series.create({ ...patch, title, folder });
      await ensureBookSlots(row);
      ctx.events.publish("series_changed", row.id);
      return seriesView(row);
    },
    async update(id: number, input: SeriesFields): Promise<SeriesView> {
      const before = await require(id);
      const patch = parsePatch(input);
      const row = await repos.series.update(id, patch);
      await ensureBookSlots(row);
      for (const listener of updatedListeners) await listener(before, row);
      ctx.events.publish("series_changed", id);
      return seriesView(row);
    },

    onUpdated(listener: SeriesUpdatedListener): void {
      updatedListeners.push(listener);
    },
  };
}

export type SeriesService = ReturnType<typeof seriesService>;
