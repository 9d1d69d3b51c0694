/**
 * The map editor's working state: the map as loaded (bound to its revision), the user's rows,
 * the server's plan for them (asked for ~300 ms after the last edit), saving, and what happens
 * when someone else changed the map meanwhile.
 *
 * The map is fetched as a snapshot, not through liveQuery: the editor's edits are bound to the
 * revision it loaded, and only the user's "Reload" may move that revision (a live query would
 * swap it under the edits, and every preview mutation would refetch it).
 */
import { getClient } from "$lib/graphql";
import { toProblem } from "$lib/errors";
import { addRow, initialForm, sameStarts, startsFromRows, type EditorRow, type StartsInput } from "./editor";
import { askLabelOrder, type OrderLabels } from "./label-order";
import { MAP_EDITOR_QUERY, PREVIEW_BOOK_STARTS, SAVE_CHAPTER_MAP } from "./queries";
import type { BookStart, BookStartsPlan, ChapterMap, MapEditorData } from "./types";

export const PREVIEW_DELAY_MS = 300;

interface PlanFor {
  starts: BookStart[];
  lastEnd: string | null;
  revision: number;
}

export class MapEditorState {
  readonly seriesId: number;
  data = $state<MapEditorData | null>(null);
  loadError = $state<unknown>(null);
  loading = $state(true);
  /** The operator map revision the edits are bound to. */
  revision = $state(0);
  rows = $state<EditorRow[]>([]);
  lastEnd = $state("");

  plan = $state<BookStartsPlan | null>(null);
  planError = $state<unknown>(null);
  previewing = $state(false);
  saving = $state(false);
  saveError = $state<unknown>(null);
  /** Someone saved or removed the map since it was loaded. */
  stale = $state(false);
  /** After a reload over kept edits: the reloaded map, until the user keeps or discards. */
  reloaded = $state<ChapterMap | null>(null);

  /** The series' book numbers in the service's order (asked for at each load). */
  #books: string[] = [];
  #planFor: PlanFor | null = null;
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  readonly #order: OrderLabels;

  constructor(seriesId: number, order: OrderLabels = askLabelOrder) {
    this.seriesId = seriesId;
    this.#order = order;
  }

  get input(): StartsInput {
    return startsFromRows(this.rows);
  }

  get lastEndValue(): string | null {
    const t = this.lastEnd.trim();
    return t ? t : null;
  }

  /** The plan answers the rows as they are now. */
  get planCurrent(): boolean {
    const p = this.#planFor;
    return (
      this.plan !== null &&
      p !== null &&
      p.revision === this.revision &&
      p.lastEnd === this.lastEndValue &&
      sameStarts(p.starts, this.input.starts)
    );
  }

  async #fetchMap(): Promise<MapEditorData> {
    const result = await getClient()
      .query(MAP_EDITOR_QUERY, { id: this.seriesId }, { requestPolicy: "network-only" })
      .toPromise();
    if (result.error) throw result.error;
    if (!result.data) throw new Error("The map could not be loaded.");
    this.#books = (await this.#order(result.data.series?.books.map((b) => b.number) ?? [])).labels;
    return result.data;
  }

  /** First load: the rows start from the saved starts (or the known books). */
  async load(): Promise<void> {
    this.loading = true;
    this.loadError = null;
    try {
      const data = await this.#fetchMap();
      this.data = data;
      this.revision = data.chapterMap.revision;
      this.#fillFrom(data.chapterMap);
    } catch (error) {
      this.loadError = error;
    } finally {
      this.loading = false;
    }
  }

  /** "Reload the current map" after a stale save: the edits stay until the user decides. */
  async reload(): Promise<void> {
    this.loadError = null;
    try {
      const data = await this.#fetchMap();
      this.data = data;
      this.revision = data.chapterMap.revision;
      this.stale = false;
      this.saveError = null;
      this.planError = null;
      this.reloaded = data.chapterMap;
    } catch (error) {
      this.loadError = error;
    }
  }

  keepEdits(): void {
    this.reloaded = null;
  }

  #fillFrom(map: ChapterMap): void {
    const form = initialForm(map, this.#books);
    this.rows = form.rows;
    this.lastEnd = form.lastEnd;
  }

  /** Adds a row for the book after the highest one, as the service orders the rows' numbers. */
  async addBook(): Promise<void> {
    const { nextWhole } = await this.#order(this.rows.map((r) => r.volume));
    this.rows = addRow(this.rows, nextWhole);
  }

  discardEdits(): void {
    const map = this.data?.chapterMap;
    if (map) this.#fillFrom(map);
    this.reloaded = null;
  }

  /** After the operator map was removed elsewhere in the page (remove dialog). */
  replaceMap(map: ChapterMap): void {
    if (!this.data) return;
    this.data = { ...this.data, chapterMap: map };
    this.revision = map.revision;
    this.#fillFrom(map);
    this.stale = false;
  }

  #noteError(error: unknown): void {
    if (toProblem(error).code === "map_revision_stale") this.stale = true;
  }

  /** Ask for the plan after the user stops typing; call from an $effect that reads the inputs. */
  schedulePreview(): void {
    const { starts, missing } = this.input;
    const request: PlanFor = { starts, lastEnd: this.lastEndValue, revision: this.revision };
    if (this.#timer) clearTimeout(this.#timer);
    this.#seq += 1;
    if (missing.length > 0 || starts.length === 0 || this.loading) {
      this.previewing = false;
      this.plan = null;
      this.#planFor = null;
      this.planError = null;
      return;
    }
    if (this.planCurrent) {
      this.previewing = false;
      return;
    }
    this.previewing = true;
    const seq = this.#seq;
    this.#timer = setTimeout(() => void this.#preview(request, seq), PREVIEW_DELAY_MS);
  }

  async #preview(request: PlanFor, seq: number): Promise<BookStartsPlan | null> {
    const result = await getClient()
      .mutation(PREVIEW_BOOK_STARTS, {
        seriesId: this.seriesId,
        revision: request.revision,
        starts: request.starts,
        lastEnd: request.lastEnd,
      })
      .toPromise();
    // A later edit asked again meanwhile: this answer is for rows that are gone.
    if (seq !== this.#seq) return null;
    this.previewing = false;
    if (result.error || !result.data) {
      this.planError = result.error ?? new Error("The preview did not answer.");
      this.#noteError(result.error);
      return null;
    }
    this.planError = null;
    this.plan = result.data.previewBookStarts;
    this.#planFor = request;
    return this.plan;
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#seq += 1;
  }

  /** Saves the plan's entries for the rows as they are now; true when saved. */
  async save(): Promise<boolean> {
    const { starts, missing } = this.input;
    if (missing.length > 0 || starts.length === 0) return false;
    this.saving = true;
    this.saveError = null;
    try {
      if (this.#timer) clearTimeout(this.#timer);
      this.#seq += 1;
      // Always plan the exact rows being saved, so what is saved is what the preview shows.
      const plan = this.planCurrent
        ? this.plan
        : await this.#preview({ starts, lastEnd: this.lastEndValue, revision: this.revision }, this.#seq);
      if (!plan || plan.problems.length > 0) return false;
      const result = await getClient()
        .mutation(SAVE_CHAPTER_MAP, {
          seriesId: this.seriesId,
          revision: this.revision,
          entries: plan.entries.map((e) => ({ volume: e.volume, chapters: e.chapters })),
        })
        .toPromise();
      if (result.error || !result.data) {
        this.saveError = result.error ?? new Error("The map was not saved.");
        this.#noteError(result.error);
        return false;
      }
      const map = result.data.saveChapterMap;
      if (this.data) this.data = { ...this.data, chapterMap: map };
      this.revision = map.revision;
      return true;
    } finally {
      this.saving = false;
    }
  }
}
