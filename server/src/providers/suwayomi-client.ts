/**
 * The connection to Suwayomi-Server over its GraphQL API (`POST {base}/api/graphql`), in each of its four auth modes:
 * none; basic auth (the header on every request); simple login (a form POST to `{base}/login.html`
 * with `user` and `pass` answers 303 and a session cookie, sent on every request; a lapsed session —
 * Suwayomi keeps them 30 min in memory — is logged in again once); UI login (the GraphQL mutation
 * `login(input: {username, password}) { accessToken refreshToken }`, then `Authorization: Bearer
 * <accessToken>`; an access token close to its `exp` is renewed with `refreshToken(input:
 * {refreshToken}) { accessToken }`, a refused refresh logs in again). Unauthenticated, Suwayomi
 * answers a GraphQL error whose message ends in "Unauthorized" (HTTP 200) or, for a page, HTTP 401:
 * either makes the client authenticate again and retry once. Passwords and tokens stay in memory
 * (the password comes from the secrets file) and never enter a message.
 *
 * Pages are fetched only from the Suwayomi origin: a page path resolving elsewhere, or a redirect,
 * is refused with a non-transient ProviderError. Transient: connection errors, timeouts, 5xx, 429, and
 * a GraphQL error telling that the source's own site failed in passing (SuwayomiGraphQLError).
 */
import { readIntoPooled } from "./page-buffers.ts";
import { ProviderError } from "./provider.ts";

export type SuwayomiAuth =
  { kind: "none" } | { kind: "basic" | "simple_login" | "ui_login"; username: string; password: string };

/**
 * A passing failure of the site behind a Suwayomi source, which Suwayomi reports as a GraphQL error
 * with HTTP 200 carrying the exception's message: "HTTP error 503" (the extensions' HttpException,
 * Suwayomi's awaitSuccess), or OkHttp's I/O failures ("timeout", "Read timed out", "Failed to connect
 * to …", "Unable to resolve host …", "Connection reset").
 */
const SOURCE_TRANSIENT =
  /\bHTTP error (?:5\d\d|429|408)\b|\btime(?:d ?)?out\b|failed to connect|unable to resolve host|connection (?:reset|refused|closed)|unexpected end of stream/i;

/**
 * GraphQL errors answered with HTTP 200. `refusedRequest`: the answer carries no data at all, so the
 * server refused the document itself (e.g. a field it does not know), not one field's work. Transient
 * when a field failed because the source's site failed in passing.
 */
export class SuwayomiGraphQLError extends ProviderError {
  constructor(
    readonly messages: string[],
    readonly refusedRequest: boolean,
  ) {
    super(
      `Suwayomi GraphQL error: ${messages.join("; ").slice(0, 300)}`,
      !refusedRequest && messages.some((m) => SOURCE_TRANSIENT.test(m)),
    );
  }
}

/** Renew a UI-login access token this long before its `exp`. */
export const TOKEN_REFRESH_MARGIN_MS = 30_000;

export interface SuwayomiConnection {
  /** e.g. "http://127.0.0.1:4567" (a path prefix is kept: "http://host/suwayomi"). */
  baseUrl: string;
  auth: SuwayomiAuth;
  /** Per request (GraphQL call or one page GET). Default 30 s. */
  timeoutMs?: number;
  /** Largest page accepted. Default 64 MiB. */
  maxPageBytes?: number;
  /** The clock token expiry is judged by (tests move it). Default Date.now. */
  now?: () => number;
}

export interface SuwayomiSource {
  id: string;
  name: string;
  lang: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_PAGE_BYTES = 64 * 1024 ** 2;

/** Is this status worth retrying? */
export function transientStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

interface GqlAnswer<T> {
  data?: T | null;
  errors?: { message: string }[];
}

/** The `exp` (ms) of a JWT, read without checking it (Suwayomi checks it); null when unreadable. */
export function jwtExpiry(token: string): number | null {
  const part = token.split(".")[1];
  if (!part) return null;
  try {
    const claims = JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as { exp?: unknown };
    return typeof claims.exp === "number" && Number.isFinite(claims.exp) ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}

const UNAUTHORIZED = /\bunauthori[sz]ed\b/i;

interface Session {
  /** simple_login: the cookie header; ui_login: the tokens. */
  cookie?: string;
  access?: string;
  accessExp?: number | null;
  refresh?: string;
}

/** The connection: GraphQL calls and page GETs with timeouts, auth and origin checks. */
export class SuwayomiClient {
  readonly base: URL;
  private readonly authHeader: string | null;
  private readonly timeoutMs: number;
  private readonly maxPageBytes: number;
  private readonly auth: SuwayomiAuth;
  private readonly now: () => number;
  /** Set once the server turned fetchMangaAndChapters down (Suwayomi before 2.3): chapters come from fetchChapters. */
  legacyChapterFetch = false;
  private session: Session | null = null;
  private authenticating: Promise<Session> | null = null;

  constructor(conn: SuwayomiConnection) {
    let base: URL;
    try {
      base = new URL(conn.baseUrl);
    } catch {
      throw new ProviderError(`Suwayomi URL is not a URL: ${JSON.stringify(conn.baseUrl)}`, false);
    }
    if (base.protocol !== "http:" && base.protocol !== "https:")
      throw new ProviderError("Suwayomi URL must be http or https", false);
    if (base.username || base.password)
      throw new ProviderError("put Suwayomi credentials in the settings, not in the URL", false);
    base.search = "";
    base.hash = "";
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.base = base;
    this.authHeader =
      conn.auth.kind === "basic"
        ? `Basic ${Buffer.from(`${conn.auth.username}:${conn.auth.password}`).toString("base64")}`
        : null;
    this.timeoutMs = conn.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxPageBytes = conn.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
    this.auth = conn.auth;
    this.now = conn.now ?? Date.now;
  }

  private get sessionAuth(): boolean {
    return this.auth.kind === "simple_login" || this.auth.kind === "ui_login";
  }

  /** The session to send: logged in (once for concurrent callers), a UI-login token renewed near its expiry. */
  private async currentSession(signal: AbortSignal | undefined): Promise<Session> {
    const s = this.session;
    if (
      s &&
      this.auth.kind === "ui_login" &&
      s.accessExp != null &&
      this.now() >= s.accessExp - TOKEN_REFRESH_MARGIN_MS
    )
      return this.authenticate(signal, s);
    return s ?? this.authenticate(signal, null);
  }

  /** Logs in (or renews a UI-login token from `stale`); one attempt at a time. */
  private authenticate(signal: AbortSignal | undefined, stale: Session | null): Promise<Session> {
    this.authenticating ??= (async () => {
      try {
        const next =
          this.auth.kind === "simple_login"
            ? await this.simpleLogin(signal)
            : ((stale?.refresh ? await this.refreshAccess(stale, signal).catch(() => null) : null) ??
              (await this.uiLogin(signal)));
        this.session = next;
        return next;
      } finally {
        this.authenticating = null;
      }
    })();
    return this.authenticating;
  }

  private loginRefused(): ProviderError {
    return new ProviderError("Suwayomi login refused: check the user name and password in the settings", false, 401);
  }

  private async simpleLogin(signal: AbortSignal | undefined): Promise<Session> {
    if (this.auth.kind === "none") throw this.loginRefused();
    const url = this.resolve("login.html");
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ user: this.auth.username, pass: this.auth.password }).toString(),
        redirect: "manual",
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      throw this.fetchFailure(e, signal, timeout);
    }
    await res.body?.cancel();
    if (res.status >= 500) throw new ProviderError(`Suwayomi login failed: HTTP ${res.status}`, true, res.status);
    // Accepted: 303 to the page asked for, with the session cookie. Refused: the login page again (200).
    const cookies = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0]!.trim())
      .filter((c) => c.includes("="));
    if (res.status < 300 || res.status >= 400 || cookies.length === 0) throw this.loginRefused();
    return { cookie: cookies.join("; ") };
  }

  private async uiLogin(signal: AbortSignal | undefined): Promise<Session> {
    if (this.auth.kind === "none") throw this.loginRefused();
    const data = await this.gqlRaw<{ login: { accessToken: string; refreshToken: string } }>(
      "mutation Login($input: LoginInput!) { login(input: $input) { accessToken refreshToken } }",
      { input: { username: this.auth.username, password: this.auth.password } },
      signal,
      null,
    ).catch((e: unknown) => {
      if (e instanceof ProviderError && !e.transient) throw this.loginRefused();
      throw e;
    });
    const { accessToken, refreshToken } = data.login;
    return { access: accessToken, accessExp: jwtExpiry(accessToken), refresh: refreshToken };
  }

  private async refreshAccess(stale: Session, signal: AbortSignal | undefined): Promise<Session> {
    const data = await this.gqlRaw<{ refreshToken: { accessToken: string } }>(
      "mutation Refresh($input: RefreshTokenInput!) { refreshToken(input: $input) { accessToken } }",
      { input: { refreshToken: stale.refresh } },
      signal,
      null,
    );
    const accessToken = data.refreshToken.accessToken;
    return { ...stale, access: accessToken, accessExp: jwtExpiry(accessToken) };
  }

  /** The session `used` was refused: renew it (a UI-login token through its refresh token) unless another call did already. */
  private renewAfterRefusal(used: Session, signal: AbortSignal | undefined): Promise<Session> {
    if (this.session !== null && this.session !== used) return this.currentSession(signal);
    this.session = null;
    return this.authenticate(signal, used);
  }

  private sessionHeaders(headers: Headers, s: Session | null): void {
    if (this.authHeader) headers.set("authorization", this.authHeader);
    if (s?.cookie) headers.set("cookie", s.cookie);
    if (s?.access) headers.set("authorization", `Bearer ${s.access}`);
  }

  /** Resolves an API path ("/api/v1/…" or "api/graphql") under the base, keeping its path prefix. */
  resolve(p: string): URL {
    if (/^[a-z][a-z0-9+.-]*:/i.test(p) || p.startsWith("//")) return new URL(p);
    return new URL(p.replace(/^\/+/, ""), this.base);
  }

  /** A request with the session (logged in first); a 401 logs in again and retries once. */
  private async request(url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<Response> {
    const first = this.sessionAuth ? await this.currentSession(signal) : null;
    try {
      return await this.send(url, init, signal, first);
    } catch (e) {
      if (!(first && e instanceof ProviderError && e.status === 401)) throw e;
      return this.send(url, init, signal, await this.renewAfterRefusal(first, signal));
    }
  }

  private async send(
    url: URL,
    init: RequestInit,
    signal: AbortSignal | undefined,
    session: Session | null,
  ): Promise<Response> {
    if (url.origin !== this.base.origin)
      throw new ProviderError(`refused: ${url.origin} is not the Suwayomi origin`, false);
    const headers = new Headers(init.headers);
    this.sessionHeaders(headers, session);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(url, { ...init, headers, signal: combined, redirect: "manual" });
    } catch (e) {
      throw this.fetchFailure(e, signal, timeout);
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new ProviderError(
        `Suwayomi answered a redirect (${res.status}); redirects are not followed`,
        false,
        res.status,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      const what = res.status === 401 || res.status === 403 ? "authentication failed" : "request failed";
      throw new ProviderError(`Suwayomi ${what}: HTTP ${res.status}`, transientStatus(res.status), res.status);
    }
    return res;
  }

  /** A caller's abort stays an abort (cancellation); a timeout or a network failure is transient. */
  private fetchFailure(e: unknown, signal: AbortSignal | undefined, timeout: AbortSignal): unknown {
    if (signal?.aborted) return signal.reason;
    if (timeout.aborted) return new ProviderError(`Suwayomi did not answer within ${this.timeoutMs} ms`, true);
    return new ProviderError(`Suwayomi unreachable: ${networkReason(e)}`, true);
  }

  /** A GraphQL call with the session; an "Unauthorized" answer logs in again and retries once. */
  async gql<T>(query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    if (!this.sessionAuth) return this.gqlRaw<T>(query, variables, signal, null);
    const first = await this.currentSession(signal);
    try {
      return await this.gqlRaw<T>(query, variables, signal, first);
    } catch (e) {
      if (!(e instanceof ProviderError && e.status === 401)) throw e;
      return this.gqlRaw<T>(query, variables, signal, await this.renewAfterRefusal(first, signal));
    }
  }

  private async gqlRaw<T>(
    query: string,
    variables: Record<string, unknown>,
    signal: AbortSignal | undefined,
    session: Session | null,
  ): Promise<T> {
    const res = await this.send(
      this.resolve("api/graphql"),
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ query, variables }),
      },
      signal,
      session,
    );
    let answer: GqlAnswer<T>;
    try {
      answer = (await res.json()) as GqlAnswer<T>;
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      throw new ProviderError(`Suwayomi answered malformed JSON: ${(e as Error).message}`, false);
    }
    if (answer.errors?.some((x) => UNAUTHORIZED.test(x.message)))
      throw new ProviderError("Suwayomi authentication failed: Unauthorized", false, 401);
    if (answer.errors?.length)
      throw new SuwayomiGraphQLError(
        answer.errors.map((x) => String(x.message)),
        answer.data == null,
      );
    if (!answer.data) throw new ProviderError("Suwayomi GraphQL answer without data", false);
    return answer.data;
  }

  async sources(lang?: string, signal?: AbortSignal): Promise<SuwayomiSource[]> {
    const data = await this.gql<{ sources: { nodes: SuwayomiSource[] } }>(
      "query Sources($condition: SourceConditionInput) { sources(condition: $condition) { nodes { id name lang } } }",
      { condition: lang ? { lang } : {} },
      signal,
    );
    return data.sources.nodes.map((s) => ({ id: String(s.id), name: s.name, lang: s.lang }));
  }

  /**
   * One page's bytes, in a reused buffer (`release` gives it back once the page is written); the
   * path must resolve on the Suwayomi origin.
   */
  async page(p: string, signal?: AbortSignal): Promise<{ bytes: Buffer; release(): void; contentType: string | null }> {
    let url: URL;
    try {
      url = this.resolve(p);
    } catch {
      throw new ProviderError(`Suwayomi listed a page that is not a URL: ${JSON.stringify(p.slice(0, 200))}`, false);
    }
    const res = await this.request(url, { method: "GET" }, signal);
    const declared = Number(res.headers.get("content-length") ?? "NaN");
    if (declared > this.maxPageBytes) {
      await res.body?.cancel();
      throw new ProviderError(`page larger than ${this.maxPageBytes} bytes`, false);
    }
    const page = await this.readCapped(res, Number.isFinite(declared) ? declared : undefined, signal);
    if (Number.isFinite(declared) && page.bytes.length !== declared) {
      page.release();
      throw new ProviderError(`page truncated: ${page.bytes.length} of ${declared} bytes`, true);
    }
    return { ...page, contentType: res.headers.get("content-type") };
  }

  /** The body, refused as soon as it passes maxPageBytes (a server without Content-Length cannot exhaust memory). */
  private async readCapped(res: Response, declared: number | undefined, signal: AbortSignal | undefined) {
    const tooLarge = () => new ProviderError(`page larger than ${this.maxPageBytes} bytes`, false);
    try {
      if (!res.body) return { bytes: Buffer.alloc(0), release: () => undefined };
      return await readIntoPooled(res.body as unknown as AsyncIterable<Uint8Array>, {
        max: this.maxPageBytes,
        declared,
        tooLarge,
      });
    } catch (e) {
      if (e instanceof ProviderError) {
        await res.body?.cancel().catch(() => undefined);
        throw e;
      }
      if (signal?.aborted) throw signal.reason;
      throw new ProviderError(`page transfer cut: ${(e as Error).message}`, true);
    }
  }
}

/** fetch says only "fetch failed"; the operator needs its cause, in words. */
function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  switch (cause?.code) {
    case "ECONNREFUSED":
      return "nothing answers at that address (connection refused)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name is not known";
    case "ECONNRESET":
      return "the connection was cut";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "the host cannot be reached";
    default:
      return typeof cause?.message === "string" && cause.message ? cause.message : (e as Error).message;
  }
}
