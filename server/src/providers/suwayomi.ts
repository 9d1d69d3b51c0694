/**
 * The Suwayomi sources as providers (the connection itself is suwayomi-client.ts).
 *
 * One SuwayomiProvider is bound to ONE Suwayomi source (e.g. "MangaDex", lang "en"): the registry
 * keeps one Provider row per source id (`suwayomi:<sourceId>`), so priority and health are per source.
 * All share one SuwayomiClient (the connection).
 *
 * Numbers: Suwayomi's chapterNumber is a Kotlin Float (often serialised with float noise, 10.1 →
 * 10.100000381469727). The label is the chapter name's own number when it agrees with the float
 * (exact text), else the shortest decimal (≤ 4 places) that rounds to the same float32/double, −1
 * (or any negative) is unnumbered (null). Volumes come only from the name ("Vol.2 Ch.10"); a part
 * only when the name states it for the same chapter number ("Ch.10.1 part 2").
 */
import { parseFileName } from "../domain/filename.ts";
import { compareLabels, parseLabel, type Label } from "../domain/labels.ts";
import {
  ProviderError,
  type ChapterPages,
  type FetchedPage,
  type ProviderChapter,
  type ProviderWork,
  type SourceProvider,
} from "./provider.ts";
import { SuwayomiGraphQLError, type SuwayomiClient, type SuwayomiSource } from "./suwayomi-client.ts";

/** Search pages read per query (20 results each on Suwayomi). */
const SEARCH_PAGES = 2;

export function suwayomiProviderName(sourceId: string): string {
  return `suwayomi:${sourceId}`;
}

/** Shortest decimal (≤ 4 places) equal to x as a double or as a float32; null for negative/NaN. */
export function floatLabel(x: number): Label | null {
  if (!Number.isFinite(x) || x < 0) return null;
  for (let d = 0; d <= 4; d++) {
    const s = x.toFixed(d);
    const v = Number(s);
    if (Math.abs(v - x) < 1e-9 * Math.max(1, x) || Math.fround(v) === Math.fround(x)) return parseLabel(s);
  }
  return parseLabel(x.toFixed(4));
}

/** The numbering a Suwayomi chapter carries: number from the float (name's text when it agrees), volume and part from the name. */
export function chapterNumbering(
  chapterNumber: number,
  name: string,
): { number: Label | null; volume: Label | null; part: number | null } {
  const fromFloat = floatLabel(chapterNumber);
  const parsed = parseFileName(name);
  const nameChapter = parsed.chapterEnd === null ? parsed.chapter : null;
  const agrees =
    fromFloat !== null &&
    nameChapter !== null &&
    Math.abs(Number(nameChapter) - chapterNumber) < 1e-4 * Math.max(1, chapterNumber);
  const number = agrees ? nameChapter : fromFloat;
  const volume = parsed.volumeEnd === null ? parsed.volume : null;
  const part = number !== null && nameChapter !== null && compareLabels(nameChapter, number) === 0 ? parsed.part : null;
  return { number, volume, part };
}

interface RawManga {
  id: number | string;
  title: string;
  thumbnailUrl: string | null;
}
interface RawChapter {
  id: number | string;
  name: string;
  uploadDate: string | number | null;
  chapterNumber: number;
  scanlator: string | null;
  pageCount: number;
  mangaId?: number | string;
}

const MANGA_FIELDS = "id title thumbnailUrl";
const CHAPTER_FIELDS = "id name uploadDate chapterNumber scanlator sourceOrder pageCount mangaId";

function intId(text: string, what: string): number {
  if (!/^\d{1,15}$/.test(text))
    throw new ProviderError(`not a Suwayomi ${what} id: ${JSON.stringify(text.slice(0, 50))}`, false);
  return Number(text);
}

function uploadDate(v: string | number | null): Date | null {
  const ms = Number(v ?? 0);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms) : null;
}

export class SuwayomiProvider implements SourceProvider {
  readonly kind = "suwayomi" as const;
  readonly name: string;

  constructor(
    readonly client: SuwayomiClient,
    readonly source: SuwayomiSource,
  ) {
    this.name = suwayomiProviderName(source.id);
  }

  async search(title: string, options: { language?: string; signal?: AbortSignal } = {}): Promise<ProviderWork[]> {
    if (options.language && options.language !== this.source.lang) return [];
    const out: ProviderWork[] = [];
    for (let page = 1; page <= SEARCH_PAGES; page++) {
      const data = await this.client.gql<{ fetchSourceManga: { mangas: RawManga[]; hasNextPage: boolean } | null }>(
        `mutation Search($input: FetchSourceMangaInput!) { fetchSourceManga(input: $input) { mangas { ${MANGA_FIELDS} } hasNextPage } }`,
        { input: { source: this.source.id, type: "SEARCH", page, query: title } },
        options.signal,
      );
      const answer = data.fetchSourceManga;
      if (!answer) break;
      for (const m of answer.mangas)
        out.push({
          sourceId: String(m.id),
          title: m.title,
          language: this.source.lang,
          sourceName: this.source.name,
          thumbnailUrl: this.thumbnail(m.thumbnailUrl),
        });
      if (!answer.hasNextPage) break;
    }
    return out;
  }

  /**
   * Suwayomi answers its own proxy path (`/api/v1/manga/{id}/thumbnail`, relative and without a
   * subpath); relative to our service it would mean nothing, so it is made absolute on the Suwayomi base.
   */
  private thumbnail(p: string | null): string | null {
    if (!p) return null;
    try {
      return this.client.resolve(p).href;
    } catch {
      return null;
    }
  }

  async listChapters(sourceId: string, options: { signal?: AbortSignal } = {}): Promise<ProviderChapter[]> {
    const id = intId(sourceId, "manga");
    let chapters: RawChapter[] | undefined;
    if (!this.client.legacyChapterFetch) {
      try {
        const data = await this.client.gql<{ fetchMangaAndChapters: { chapters: RawChapter[] } | null }>(
          `mutation Chapters($input: FetchMangaAndChaptersInput!) { fetchMangaAndChapters(input: $input) { manga { ${MANGA_FIELDS} } chapters { ${CHAPTER_FIELDS} } } }`,
          { input: { id, fetchManga: true, fetchChapters: true } },
          options.signal,
        );
        chapters = data.fetchMangaAndChapters?.chapters;
      } catch (e) {
        // Suwayomi before 2.3 refuses the whole document: it knows only fetchChapters.
        if (!(
          e instanceof SuwayomiGraphQLError &&
          e.refusedRequest &&
          e.messages.some((m) => /fetchMangaAndChapters/i.test(m))
        ))
          throw e;
        chapters = await this.fetchChapters(id, options.signal);
        this.client.legacyChapterFetch = true;
      }
    } else chapters = await this.fetchChapters(id, options.signal);
    if (!Array.isArray(chapters)) throw new ProviderError("Suwayomi answered no chapter list", false);
    return chapters.map((c) => ({
      externalId: String(c.id),
      ...chapterNumbering(c.chapterNumber, c.name),
      name: c.name,
      scanlator: c.scanlator?.trim() ? c.scanlator.trim() : null,
      language: this.source.lang,
      uploadedAt: uploadDate(c.uploadDate),
      pageCount: c.pageCount >= 0 ? c.pageCount : null,
    }));
  }

  /** The chapter list through `fetchChapters` (every Suwayomi 2.x; deprecated from 2.3 on). */
  private async fetchChapters(mangaId: number, signal: AbortSignal | undefined): Promise<RawChapter[] | undefined> {
    const data = await this.client.gql<{ fetchChapters: { chapters: RawChapter[] } | null }>(
      `mutation Chapters($input: FetchChaptersInput!) { fetchChapters(input: $input) { chapters { ${CHAPTER_FIELDS} } } }`,
      { input: { mangaId } },
      signal,
    );
    return data.fetchChapters?.chapters;
  }

  async pages(sourceId: string, externalId: string, options: { signal?: AbortSignal } = {}): Promise<ChapterPages> {
    const data = await this.client.gql<{
      fetchChapterPages: { chapter?: { mangaId: number | string } | null; pages: string[] } | null;
    }>(
      "mutation Pages($input: FetchChapterPagesInput!) { fetchChapterPages(input: $input) { chapter { id mangaId pageCount } pages } }",
      { input: { chapterId: intId(externalId, "chapter") } },
      options.signal,
    );
    const answer = data.fetchChapterPages;
    if (!answer || !Array.isArray(answer.pages)) throw new ProviderError("Suwayomi answered no page list", false);
    // Every Suwayomi answers the chapter asked for; an answer without it is taken as that chapter.
    if (answer.chapter && String(answer.chapter.mangaId) !== sourceId)
      throw new ProviderError(
        `chapter ${externalId} belongs to manga ${answer.chapter.mangaId}, not ${sourceId}`,
        false,
      );
    const paths = answer.pages;
    // Checked up front too, so a chapter with a foreign page fails before any byte is fetched.
    for (const p of paths) {
      const url = (() => {
        try {
          return this.client.resolve(p);
        } catch {
          return null;
        }
      })();
      if (!url || url.origin !== this.client.base.origin)
        throw new ProviderError(`refused: a page of chapter ${externalId} is not on the Suwayomi origin`, false);
    }
    return {
      count: paths.length,
      fetch: async (index: number, signal?: AbortSignal): Promise<FetchedPage> => {
        const p = paths[index - 1];
        if (p === undefined) throw new ProviderError(`page ${index} out of range 1..${paths.length}`, false);
        const { bytes, release, contentType } = await this.client.page(p, signal);
        return { index, bytes, contentType, release };
      },
    };
  }
}
