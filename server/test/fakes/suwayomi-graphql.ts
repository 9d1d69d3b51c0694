/**
 * The GraphQL side of the Suwayomi-Server stand-in (suwayomi-server.ts serves it over HTTP with
 * Suwayomi's auth): the catalogue's types, a schema shaped like Suwayomi's (field, argument and input
 * names from its `graphql` package: types/SourceType.kt, MangaType.kt, ChapterType.kt; mutations/
 * SourceMutation.kt, MangaMutation.kt, ChapterMutation.kt, UserMutation.kt; queries/SourceQuery.kt),
 * and the resolvers answering from a live catalogue.
 */
import { buildSchema, GraphQLError, Kind, type GraphQLScalarType, type GraphQLSchema, type ValueNode } from "graphql";

export interface FakeSource {
  id: string;
  name: string;
  lang: string;
}

export interface FakePage {
  bytes: Buffer;
  /** Default image/jpeg. */
  contentType?: string;
  /** Answers `failStatus` (default 500) this many times, then the bytes. Decremented per GET. */
  failTimes?: number;
  failStatus?: number;
  /** Waits this long before answering (a slow page). */
  delayMs?: number;
  /** Answers only once this settles (a page held until the test lets it go). */
  hold?: Promise<unknown>;
  /** Sends only the first half of the bytes with the full Content-Length, then cuts the connection. */
  truncate?: boolean;
  /** Listed by fetchChapterPages as this absolute URL (another origin) instead of the Suwayomi path. */
  foreignUrl?: string;
}

export interface FakeChapter {
  id: number;
  name: string;
  /** Suwayomi's float; −1 = unrecognised. */
  chapterNumber: number;
  scanlator: string | null;
  /** ms since epoch. */
  uploadDate: number;
  pages: FakePage[];
  /** false: pageCount is −1 until fetchChapterPages ran for it (as Suwayomi does). Default true. */
  pageCountKnown: boolean;
  /**
   * Failures of the source site behind Suwayomi, one per fetchChapterPages call, e.g. "HTTP error 503"
   * (tachiyomi's HttpException / awaitSuccess) or "timeout" (OkHttp): answered as Suwayomi does, a
   * GraphQL error beside a null field with HTTP 200 — graphql-java's "Exception while fetching data
   * (/fetchChapterPages) : <message>".
   */
  sourceErrors?: string[];
  /** Set by the server once fetchChapterPages ran. */
  pagesFetched?: boolean;
}

export interface FakeWork {
  id: number;
  title: string;
  source: FakeSource;
  /** The source's cover URL; answered as Suwayomi's relative proxy path `/api/v1/manga/{id}/thumbnail`. */
  thumbnailUrl: string | null;
  /**
   * Failures of the source site, one per chapter-list refresh. fetchMangaAndChapters (2.3) catches
   * them and answers the list it already had (its database) WITH the error (MangaMutation.kt:
   * DataFetcherResult with data and `error.toGraphQLError()`); fetchChapters before 2.3 answers null
   * and the error (asDataFetcherResult).
   */
  chapterListErrors?: string[];
  chapters: FakeChapter[];
}

const SDL = /* GraphQL */ `
  scalar LongString
  enum FetchSourceMangaType {
    SEARCH
    POPULAR
    LATEST
  }
  input SourceConditionInput {
    id: LongString
    lang: String
    name: String
    isNsfw: Boolean
  }
  type SourceType {
    id: LongString!
    name: String!
    lang: String!
    displayName: String!
  }
  type SourceNodeList {
    nodes: [SourceType!]!
    totalCount: Int!
  }
  type MangaType {
    id: Int!
    title: String!
    thumbnailUrl: String
    sourceId: LongString!
    source: SourceType
    url: String!
  }
  type ChapterType {
    id: Int!
    name: String!
    url: String!
    uploadDate: LongString!
    chapterNumber: Float!
    scanlator: String
    sourceOrder: Int!
    pageCount: Int!
    mangaId: Int!
  }
  input FetchSourceMangaInput {
    clientMutationId: String
    source: LongString!
    type: FetchSourceMangaType!
    page: Int!
    query: String
  }
  type FetchSourceMangaPayload {
    clientMutationId: String
    mangas: [MangaType!]!
    hasNextPage: Boolean!
  }
  input FetchChaptersInput {
    clientMutationId: String
    mangaId: Int!
  }
  type FetchChaptersPayload {
    clientMutationId: String
    chapters: [ChapterType!]!
  }
  input FetchChapterPagesInput {
    clientMutationId: String
    chapterId: Int!
    format: String
  }
  type FetchChapterPagesPayload {
    clientMutationId: String
    chapter: ChapterType!
    pages: [String!]!
  }
  type Query {
    sources(condition: SourceConditionInput): SourceNodeList!
  }
  input LoginInput {
    clientMutationId: String
    username: String!
    password: String!
  }
  type LoginPayload {
    clientMutationId: String
    accessToken: String!
    refreshToken: String!
  }
  input RefreshTokenInput {
    clientMutationId: String
    refreshToken: String!
  }
  type RefreshTokenPayload {
    clientMutationId: String
    accessToken: String!
  }
  type Mutation {
    login(input: LoginInput!): LoginPayload!
    refreshToken(input: RefreshTokenInput!): RefreshTokenPayload!
    fetchSourceManga(input: FetchSourceMangaInput!): FetchSourceMangaPayload
    fetchChapters(input: FetchChaptersInput!): FetchChaptersPayload
    fetchChapterPages(input: FetchChapterPagesInput!): FetchChapterPagesPayload
  }
`;

/**
 * What Suwayomi 2.3 added (MangaMutation.kt, "Extension API 1.6"): one call refreshing the manga and
 * its chapters, its errors beside the data. Before 2.3 only `fetchChapters(input: {mangaId})` exists
 * (ChapterMutation.kt; kept, deprecated, in 2.3).
 */
const SDL_V2_3 = /* GraphQL */ `
  input FetchMangaAndChaptersInput {
    clientMutationId: String
    id: Int!
    fetchManga: Boolean!
    fetchChapters: Boolean!
  }
  type FetchMangaAndChaptersPayload {
    clientMutationId: String
    manga: MangaType!
    chapters: [ChapterType!]!
  }
  extend type Mutation {
    fetchMangaAndChapters(input: FetchMangaAndChaptersInput!): FetchMangaAndChaptersPayload
  }
`;

const PAGE_SIZE = 20;

function pagePath(work: FakeWork, sourceOrder: number, i: number): string {
  return `/api/v1/manga/${work.id}/chapter/${sourceOrder}/page/${i}`;
}

/**
 * The resolvers over a live catalogue. `sideErrors` collects the errors Suwayomi answers beside data
 * (graphql-js cannot return both from one resolver): the server adds them to the answer's `errors`.
 */
export function rootValue(
  state: { works: FakeWork[]; sources: FakeSource[]; version: SuwayomiSchemaVersion },
  sideErrors: { message: string; path: string[] }[],
) {
  const mangaOf = (w: FakeWork) => ({
    id: w.id,
    title: w.title,
    // Suwayomi never hands out the source's image URL: MangaType serves its own proxy path, relative
    // and without the server's subpath (MangaType.kt → MangaList.proxyThumbnailUrl).
    thumbnailUrl: w.thumbnailUrl ? `/api/v1/manga/${w.id}/thumbnail` : null,
    sourceId: w.source.id,
    source: sourceOf(w.source),
    url: `/manga/${w.id}`,
  });
  const sourceOf = (s: FakeSource) => ({ ...s, displayName: `${s.name} (${s.lang.toUpperCase()})` });
  const chapterOf = (w: FakeWork, c: FakeChapter, i: number) => ({
    id: c.id,
    name: c.name,
    url: `/chapter/${c.id}`,
    uploadDate: String(c.uploadDate),
    chapterNumber: c.chapterNumber,
    scanlator: c.scanlator,
    sourceOrder: i + 1,
    pageCount: c.pageCountKnown || c.pagesFetched ? c.pages.length : -1,
    mangaId: w.id,
  });
  const findChapter = (chapterId: number) => {
    for (const w of state.works) {
      const i = w.chapters.findIndex((c) => c.id === chapterId);
      if (i >= 0) return { w, c: w.chapters[i] as FakeChapter, i };
    }
    throw new Error(`chapter ${chapterId} not found`);
  };
  return {
    sources: ({ condition }: { condition?: { lang?: string; id?: string } }) => {
      const nodes = state.sources
        .filter(
          (s) =>
            (condition?.lang === undefined || s.lang === condition.lang) &&
            (condition?.id === undefined || s.id === condition.id),
        )
        .map(sourceOf);
      return { nodes, totalCount: nodes.length };
    },
    fetchSourceManga: ({
      input,
    }: {
      input: { clientMutationId?: string; source: string; page: number; query?: string };
    }) => {
      if (!state.sources.some((s) => s.id === input.source)) throw new Error(`source ${input.source} not found`);
      const q = (input.query ?? "").toLowerCase();
      const all = state.works.filter((w) => w.source.id === input.source && w.title.toLowerCase().includes(q));
      const start = (Math.max(1, input.page) - 1) * PAGE_SIZE;
      return {
        clientMutationId: input.clientMutationId,
        mangas: all.slice(start, start + PAGE_SIZE).map(mangaOf),
        hasNextPage: start + PAGE_SIZE < all.length,
      };
    },
    fetchMangaAndChapters: ({ input }: { input: { clientMutationId?: string; id: number } }) => {
      const w = state.works.find((x) => x.id === input.id);
      if (!w) throw new Error(`manga ${input.id} not found`);
      const sourceError = w.chapterListErrors?.shift();
      if (sourceError) sideErrors.push({ message: sourceError, path: ["fetchMangaAndChapters"] });
      return {
        clientMutationId: input.clientMutationId,
        manga: mangaOf(w),
        chapters: w.chapters.map((c, i) => chapterOf(w, c, i)),
      };
    },
    fetchChapters: ({ input }: { input: { clientMutationId?: string; mangaId: number } }) => {
      const w = state.works.find((x) => x.id === input.mangaId);
      if (!w) throw new Error(`manga ${input.mangaId} not found`);
      const sourceError = w.chapterListErrors?.shift();
      if (sourceError) throw new Error(sourceError);
      return { clientMutationId: input.clientMutationId, chapters: w.chapters.map((c, i) => chapterOf(w, c, i)) };
    },
    fetchChapterPages: ({ input }: { input: { clientMutationId?: string; chapterId: number } }) => {
      const { w, c, i } = findChapter(input.chapterId);
      const sourceError = c.sourceErrors?.shift();
      // 2.3 lets the exception reach graphql-java, which words it so; before, asDataFetcherResult passes the bare message.
      if (sourceError)
        throw new Error(
          state.version === "v2.2"
            ? sourceError
            : `Exception while fetching data (/fetchChapterPages) : ${sourceError}`,
        );
      c.pagesFetched = true;
      const pages = c.pages.map((p, k) => p.foreignUrl ?? pagePath(w, i + 1, k));
      return { clientMutationId: input.clientMutationId, chapter: chapterOf(w, c, i), pages };
    },
  };
}
export type SuwayomiSchemaVersion = "v2.2" | "v2.3";

/** LongString as Suwayomi coerces it (server/primitives/LongAsString.kt): a decimal string in, a string out. */
function longString(v: unknown): string {
  if (typeof v !== "string" || !/^-?\d{1,19}$/.test(v))
    throw new GraphQLError(`LongString: expected a decimal String, got ${typeof v}`);
  return v;
}

/** The schema of a Suwayomi release: "v2.2" (and before) has no fetchMangaAndChapters. */
export function suwayomiSchema(version: SuwayomiSchemaVersion): GraphQLSchema {
  const schema = buildSchema(version === "v2.2" ? SDL : SDL + SDL_V2_3);
  // buildSchema gives a scalar that takes anything; Suwayomi's refuses a JSON number.
  Object.assign(schema.getType("LongString") as GraphQLScalarType, {
    serialize: (v: unknown) => String(v),
    parseValue: longString,
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError(`LongString: expected a String literal, got ${ast.kind}`);
      return longString(ast.value);
    },
  });
  return schema;
}
