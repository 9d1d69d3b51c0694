/**
 * A Suwayomi-Server stand-in for tests: a real node:http server on 127.0.0.1 (free port) that
 * executes real GraphQL (graphql-js against a schema shaped like Suwayomi's) at `POST /api/graphql`
 * and serves page bytes at `GET /api/v1/manga/{mangaId}/chapter/{sourceOrder}/page/{i}` (i from 0).
 * Shapes from Suwayomi-Server's source: its GraphQL types, queries and mutations (the `graphql`
 * package; schema and resolvers in suwayomi-graphql.ts) and the page route of its REST API v1.
 *
 * Usage:
 *   const works = [fakeWork({ id: 1, title: "Blue Harbor", chapters: [
 *     fakeChapter({ chapterNumber: 1, name: "Ch.1", pages: await drawnChapter(8, 1) }),
 *     fakeChapter({ chapterNumber: 4.5, name: "Vol.2 Ch.4.5", scanlator: "Team A", pages: … }),
 *   ] })];
 *   const fake = await startFakeSuwayomi({ works, auth: { username: "u", password: "p" } });
 *   fake.url          // "http://127.0.0.1:PORT" (no trailing slash) — the provider's base URL
 *   fake.requests     // ["POST /api/graphql fetchChapterPages", "GET /api/v1/manga/1/chapter/2/page/0", …]
 *   fake.setFailure({ target: "graphql" | "pages", status: 500, times: 2 })  // next 2 answers 500
 *   fake.setFailure(null)
 *   await fake.close()
 *
 * What it answers (only what the provider uses; the field names are Suwayomi's):
 * - `sources(condition: {lang}) { nodes { id name lang displayName } }` — ids are LongString (strings;
 *   the default source id is above 2^53 on purpose).
 * - `fetchSourceManga(input: {source, type: SEARCH, page, query}) { mangas { id title thumbnailUrl
 *   sourceId } hasNextPage }` — case-insensitive substring match on the title, 20 per page.
 * - `fetchMangaAndChapters(input: {id, fetchManga, fetchChapters}) { manga { … } chapters { id name url
 *   uploadDate chapterNumber scanlator sourceOrder pageCount mangaId } }` — uploadDate is a LongString
 *   of ms; pageCount is −1 for a chapter with `pageCountKnown: false` until its pages were fetched.
 *   Only with `schema: "v2.3"` (the default); `fetchChapters(input: {mangaId}) { chapters { … } }` always.
 * - `fetchChapterPages(input: {chapterId}) { chapter { id pageCount } pages }` — page paths; a page
 *   with `foreignUrl` is listed as that absolute URL instead (the provider must refuse it).
 * - Auth, when `auth` is given, in Suwayomi's modes (shapes from Suwayomi-Server's JavalinSetup.kt,
 *   UserType.kt, graphql/mutations/UserMutation.kt and global/impl/util/Jwt.kt):
 *   - `mode: "basic"` (the default): 401 + `WWW-Authenticate: Basic` without the header.
 *   - `mode: "simple_login"`: `POST /login.html` with form fields `user` and `pass` answers 303 with a
 *     `JSESSIONID` cookie, or 200 and the login page again when refused. Without a valid session an API
 *     call is a Visitor: GraphQL answers 200 with the error "Exception while fetching data (/field) :
 *     Unauthorized", a page GET 401. `expireSessions()` forgets every session (Suwayomi keeps them
 *     30 min in memory).
 *   - `mode: "ui_login"`: the GraphQL mutations `login(input: {username, password}) { accessToken
 *     refreshToken }` and `refreshToken(input: {refreshToken}) { accessToken }`; HS256 JWTs with
 *     `token_type` access/refresh, `aud`, `exp` (access `accessTtlMs`, default 5 min; refresh
 *     `refreshTtlMs`, default 60 days) on the fake's clock `now`; `Authorization: Bearer <access>` on
 *     every other call, refused as above. `revokeAccessTokens()` makes every issued access token invalid.
 *   `logins` and `refreshes` count the successful ones.
 *
 * The catalogue is live: tests may mutate `works` (add/remove/renumber chapters) after start and the
 * next request sees it. Chapter ids are assigned by fakeChapter (global counter from 1000) unless given;
 * sourceOrder is the chapter's 1-based position in its work's array (oldest first, like Suwayomi).
 *
 * Page helpers (deterministic, from server/src/library/test-pages.ts): drawnChapter, chapterWithBlackCards
 * (e.g. 4 of 25 = 16 % → degraded; 3 of 20 = 15 % → not, the rule is "strictly above 15 %"),
 * stripFragmentChapter (a paged chapter with strip slices), truncatedPage, flakyPage (500 k times then
 * OK), slowPage (delay), heldPage (answers once a promise settles), foreignPage (path on another origin).
 */
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { graphql, type GraphQLSchema } from "graphql";
import { blackCard, drawnPages, stripSlices } from "../../src/library/test-pages.ts";
import {
  rootValue,
  suwayomiSchema,
  type FakeChapter,
  type FakePage,
  type FakeSource,
  type FakeWork,
  type SuwayomiSchemaVersion,
} from "./suwayomi-graphql.ts";

export type { FakeChapter, FakePage, FakeSource, FakeWork };

export type FakeFailure = { target: "graphql" | "pages"; status: number; times: number } | null;

export interface FakeSuwayomi {
  /** Base URL, no trailing slash. */
  url: string;
  port: number;
  /**
   * "METHOD path" per request; GraphQL requests add the first root field ("POST /api/graphql sources");
   * refused ones end in " 401", unknown paths in " 404".
   */
  requests: string[];
  works: FakeWork[];
  sources: FakeSource[];
  /** Successful logins (simple or UI) and token refreshes. */
  logins: number;
  refreshes: number;
  expireSessions(): void;
  revokeAccessTokens(): void;
  setFailure(failure: FakeFailure): void;
  close(): Promise<void>;
}

export const DEFAULT_SOURCE: FakeSource = { id: "2499283573021220255", name: "MangaDex", lang: "en" };

let nextChapterId = 1000;

export function fakeChapter(c: Partial<FakeChapter> & { chapterNumber: number; pages: FakePage[] }): FakeChapter {
  return {
    id: c.id ?? nextChapterId++,
    name: c.name ?? (c.chapterNumber < 0 ? "Extra" : `Chapter ${c.chapterNumber}`),
    chapterNumber: c.chapterNumber,
    scanlator: c.scanlator ?? null,
    uploadDate: c.uploadDate ?? Date.UTC(2024, 0, 1) + Math.max(0, c.chapterNumber) * 86_400_000,
    pages: c.pages,
    pageCountKnown: c.pageCountKnown ?? true,
    ...(c.sourceErrors ? { sourceErrors: [...c.sourceErrors] } : {}),
  };
}

export function fakeWork(w: Partial<FakeWork> & { id: number; title: string }): FakeWork {
  return { source: DEFAULT_SOURCE, thumbnailUrl: null, chapters: [], ...w };
}

const PAGE_PATH = /^\/api\/v1\/manga\/(\d+)\/chapter\/(\d+)\/page\/(\d+)$/;

const jpeg = (bytes: Buffer): FakePage => ({ bytes, contentType: "image/jpeg" });

/** `count` drawn pages. */
export async function drawnChapter(count: number, seed = 1): Promise<FakePage[]> {
  return (await drawnPages(count, seed, { width: 400, height: 580 })).map(jpeg);
}

/** `total` pages of which the last `cards` are black cards (4/25 = 16 %, 3/20 = 15 %). */
export async function chapterWithBlackCards(total: number, cards: number, seed = 1): Promise<FakePage[]> {
  const drawn = await drawnChapter(total - cards, seed);
  const black = await Promise.all(
    Array.from({ length: cards }, (_, i) => blackCard(seed + 100 + i, "noisy", { width: 400, height: 580 })),
  );
  return [...drawn, ...black.map(jpeg)];
}

/**
 * A paged chapter whose middle is a tall strip served as `slices` slices (aspect 3.0 each). The strip
 * rule reads the chapter's median aspect: degraded when slices outnumber the drawn pages (2 drawn + 5).
 */
export async function stripFragmentChapter(drawn: number, slices: number, seed = 1): Promise<FakePage[]> {
  const pages = await drawnChapter(drawn, seed);
  const strip = (await stripSlices(seed + 50, slices, { width: 400, height: 400 * slices * 3 })).map(jpeg);
  const half = Math.floor(pages.length / 2);
  return [...pages.slice(0, half), ...strip, ...pages.slice(half)];
}

export const truncatedPage = (page: FakePage): FakePage => ({ ...page, truncate: true });
export const flakyPage = (page: FakePage, failTimes: number, failStatus = 500): FakePage => ({
  ...page,
  failTimes,
  failStatus,
});
export const slowPage = (page: FakePage, delayMs: number): FakePage => ({ ...page, delayMs });
export const heldPage = (page: FakePage, hold: Promise<unknown>): FakePage => ({ ...page, hold });
export const foreignPage = (page: FakePage, foreignUrl: string): FakePage => ({ ...page, foreignUrl });

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export interface FakeAuth {
  username: string;
  password: string;
  mode?: "basic" | "simple_login" | "ui_login";
  accessTtlMs?: number;
  refreshTtlMs?: number;
  /** The clock tokens are issued and checked by. Default Date.now. */
  now?: () => number;
}

const AUDIENCE = "suwayomi-server-api";

/** HS256 JWTs as Suwayomi's Jwt.kt makes them (issuer, audience, token_type, exp in seconds). */
function jwtIssuer(now: () => number) {
  let key = randomBytes(32);
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const sign = (data: string) => createHmac("sha256", key).update(data).digest("base64url");
  return {
    issue(type: "access" | "refresh", ttlMs: number): string {
      const head = b64({ alg: "HS256", typ: "JWT" });
      const body = b64({
        iss: "suwayomi-server",
        aud: AUDIENCE,
        token_type: type,
        exp: Math.floor((now() + ttlMs) / 1000),
      });
      return `${head}.${body}.${sign(`${head}.${body}`)}`;
    },
    verify(token: string | undefined, type: "access" | "refresh"): boolean {
      const [head, body, sig] = (token ?? "").split(".");
      if (!head || !body || !sig || sign(`${head}.${body}`) !== sig) return false;
      const c = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as {
        token_type: string;
        exp: number;
        aud: string;
      };
      return c.token_type === type && c.aud === AUDIENCE && c.exp * 1000 > now();
    },
    /** A new signing key: every token issued so far is refused. */
    rotate(): void {
      key = randomBytes(32);
    },
  };
}

export async function startFakeSuwayomi(options: {
  works: FakeWork[];
  /** The schema of this Suwayomi release; "v2.2" (and before) has no fetchMangaAndChapters. Default "v2.3". */
  schema?: SuwayomiSchemaVersion;
  sources?: FakeSource[];
  auth?: FakeAuth;
}): Promise<FakeSuwayomi> {
  const works = options.works;
  const sources = options.sources ?? [
    ...new Map([DEFAULT_SOURCE, ...works.map((w) => w.source)].map((s) => [s.id, s])).values(),
  ];
  const schema: GraphQLSchema = suwayomiSchema(options.schema ?? "v2.3");
  const requests: string[] = [];
  let failure: FakeFailure = null;
  const auth = options.auth;
  const mode = auth ? (auth.mode ?? "basic") : null;
  const expectedAuth =
    auth && mode === "basic" ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` : null;
  const now = auth?.now ?? Date.now;
  const jwt = jwtIssuer(now);
  const sessions = new Set<string>();
  // A separate signer for access tokens, so revoking them leaves refresh tokens valid.
  const accessJwt = jwtIssuer(now);
  const counts = { logins: 0, refreshes: 0 };
  const sessionOf = (req: http.IncomingMessage) =>
    /(?:^|;\s*)JSESSIONID=([^;]+)/.exec(req.headers.cookie ?? "")?.[1] ?? null;
  const bearer = (req: http.IncomingMessage) => /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  /** Is the caller an admin (logged in) for API calls? */
  const authorised = (req: http.IncomingMessage) =>
    mode === "simple_login"
      ? sessions.has(sessionOf(req) ?? "")
      : mode === "ui_login"
        ? accessJwt.verify(bearer(req), "access")
        : true;

  const takeFailure = (target: "graphql" | "pages"): number | null => {
    if (!failure || failure.target !== target || failure.times <= 0) return null;
    failure.times--;
    return failure.status;
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (expectedAuth && req.headers.authorization !== expectedAuth) {
        requests.push(`${req.method} ${url.pathname} 401`);
        res.writeHead(401, { "WWW-Authenticate": "Basic", "Content-Type": "text/plain" }).end("Unauthorized");
        return;
      }
      if (mode === "simple_login" && url.pathname === "/login.html") {
        if (req.method === "POST") {
          const form = new URLSearchParams(await readBody(req));
          if (form.get("user") === auth!.username && form.get("pass") === auth!.password) {
            const id = randomBytes(12).toString("hex");
            sessions.add(id);
            counts.logins++;
            requests.push("POST /login.html 303");
            res.writeHead(303, { Location: "/", "Set-Cookie": `JSESSIONID=${id}; Path=/; HttpOnly` }).end();
            return;
          }
          requests.push("POST /login.html 200");
        }
        res
          .writeHead(200, { "Content-Type": "text/html" })
          .end("<html><body>Invalid username or password</body></html>");
        return;
      }
      if (req.method === "POST" && url.pathname === "/api/graphql") {
        const raw = await readBody(req);
        let body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
        try {
          body = JSON.parse(raw) as typeof body;
        } catch {
          res.writeHead(400, { "Content-Type": "text/plain" }).end("bad json");
          return;
        }
        const field = /\{\s*(\w+)/.exec(body.query ?? "")?.[1] ?? "?";
        const open = mode === "ui_login" && (field === "login" || field === "refreshToken");
        if (!open && !authorised(req)) {
          requests.push(`POST /api/graphql ${field} unauthorized`);
          res.writeHead(200, { "Content-Type": "application/json" }).end(
            JSON.stringify({
              data: null,
              errors: [{ message: `Exception while fetching data (/${field}) : Unauthorized`, path: [field] }],
            }),
          );
          return;
        }
        requests.push(`POST /api/graphql ${field}`);
        const status = takeFailure("graphql");
        if (status !== null) {
          res.writeHead(status, { "Content-Type": "text/plain" }).end(`failure ${status}`);
          return;
        }
        const sideErrors: { message: string; path: string[] }[] = [];
        const result = await graphql({
          schema,
          source: body.query ?? "",
          variableValues: body.variables,
          operationName: body.operationName,
          rootValue: {
            ...rootValue({ works, sources, version: options.schema ?? "v2.3" }, sideErrors),
            login: ({ input }: { input: { username: string; password: string } }) => {
              if (accessJwt.verify(bearer(req), "access")) throw new Error("Cannot login while already logged-in");
              if (input.username !== auth?.username || input.password !== auth?.password)
                throw new Error("Incorrect username or password.");
              counts.logins++;
              return {
                accessToken: accessJwt.issue("access", auth.accessTtlMs ?? 5 * 60_000),
                refreshToken: jwt.issue("refresh", auth.refreshTtlMs ?? 60 * 86_400_000),
              };
            },
            refreshToken: ({ input }: { input: { refreshToken: string } }) => {
              if (!jwt.verify(input.refreshToken, "refresh")) throw new Error("The token has expired");
              counts.refreshes++;
              return { accessToken: accessJwt.issue("access", auth?.accessTtlMs ?? 5 * 60_000) };
            },
          },
        });
        const answer =
          sideErrors.length > 0 ? { ...result, errors: [...(result.errors ?? []), ...sideErrors] } : result;
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(answer));
        return;
      }
      const m = req.method === "GET" ? PAGE_PATH.exec(url.pathname) : null;
      if (m && !authorised(req)) {
        requests.push(`GET ${url.pathname} 401`);
        res.writeHead(401, { "Content-Type": "text/plain" }).end("Unauthorized");
        return;
      }
      if (m) {
        requests.push(`GET ${url.pathname}`);
        const work = works.find((w) => w.id === Number(m[1]));
        const chapter = work?.chapters[Number(m[2]) - 1];
        const page = chapter?.pages[Number(m[3])];
        if (!page) {
          res.writeHead(404, { "Content-Type": "text/plain" }).end("no such page");
          return;
        }
        if (page.delayMs) await new Promise((r) => setTimeout(r, page.delayMs));
        if (page.hold) await page.hold;
        const status = takeFailure("pages");
        if (status !== null) {
          res.writeHead(status, { "Content-Type": "text/plain" }).end(`failure ${status}`);
          return;
        }
        if (page.failTimes && page.failTimes > 0) {
          page.failTimes--;
          res.writeHead(page.failStatus ?? 500, { "Content-Type": "text/plain" }).end("page failure");
          return;
        }
        if (page.truncate) {
          res.writeHead(200, {
            "Content-Type": page.contentType ?? "image/jpeg",
            "Content-Length": String(page.bytes.length),
          });
          res.write(page.bytes.subarray(0, Math.floor(page.bytes.length / 2)), () => res.destroy());
          return;
        }
        res
          .writeHead(200, {
            "Content-Type": page.contentType ?? "image/jpeg",
            "Content-Length": String(page.bytes.length),
          })
          .end(page.bytes);
        return;
      }
      requests.push(`${req.method} ${url.pathname} 404`);
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    works,
    sources,
    get logins() {
      return counts.logins;
    },
    get refreshes() {
      return counts.refreshes;
    },
    expireSessions() {
      sessions.clear();
    },
    revokeAccessTokens() {
      accessJwt.rotate();
    },
    setFailure(f) {
      failure = f ? { ...f } : null;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
