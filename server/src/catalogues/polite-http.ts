/**
 * HTTP to one public catalogue, politely: one request at a time at most every `minIntervalMs`
 * (every request of the catalogue takes the next free slot, also the retries and the covers), a
 * 429's Retry-After (MangaDex: X-RateLimit-Retry-After) holds the whole catalogue back, transient
 * failures (429, 5xx, connection errors, timeouts) are retried with exponential back-off, and
 * answers are cached for a while. A catalogue asking to wait longer than `retryCapMs` is not waited
 * on: the call fails at once (the operator's request would otherwise hang for minutes) and that
 * host is not asked again before the time it named.
 *
 * Nothing but what the caller puts in the URL or body leaves the service: no cookies, no keys,
 * no Referer; a fixed User-Agent with the product's version (MangaDex asks every client to send one).
 *
 * Written here rather than taken from a library: the whole of it is a slot counter, a loop and a
 * Map, and the limiter must also honour Retry-After across callers, which the small limiter
 * packages do not.
 */
import { PRODUCT_VERSION } from "../config.ts";

export const USER_AGENT = `manga-library/${PRODUCT_VERSION} (self-hosted library service)`;

/** Why a catalogue call failed: `not_found` is the catalogue saying the id does not exist. */
export type CatalogueFailure = "failed" | "not_found";

export class CatalogueError extends Error {
  constructor(
    readonly catalogue: string,
    readonly kind: CatalogueFailure,
    message: string,
    /** The catalogue's HTTP status, when it answered. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export interface PoliteHttpOptions {
  /** Catalogue name, for messages. */
  name: string;
  /** The catalogue as the API names it ("mangadex"), carried by its errors. */
  catalogue: string;
  /** Shortest time between two requests to this catalogue. */
  minIntervalMs: number;
  /** Retries after the first attempt for transient failures. Default 3. */
  retries?: number;
  /** Back-off base: base × 2^n before retry n (a larger Retry-After wins). */
  retryBaseMs: number;
  /**
   * Longest back-off, and the longest wait a 429 or 5xx may ask for and still be waited out within
   * one call; a longer one fails the call at once. Default 10 s.
   */
  retryCapMs?: number;
  /** Per request. Default 20 s. */
  timeoutMs?: number;
  /** How long an answer is served from the cache. Default 10 minutes. */
  cacheTtlMs?: number;
  /** Entries kept in the cache. Default 300. */
  cacheEntries?: number;
  /** Largest JSON answer read. Default 16 MiB (a long series' aggregate is a few MB). */
  maxJsonBytes?: number;
}

export type CacheMode = "use" | "refresh";

export interface JsonRequest {
  method?: "GET" | "POST";
  /** Sent as JSON. */
  body?: unknown;
  /** "use" answers from the cache when fresh; "refresh" always asks and stores the answer. */
  cache?: CacheMode;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Longest a catalogue's "come back later" is kept; a larger figure is taken as this. */
const MAX_BLOCK_MS = 60 * 60_000;

/** Seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * MangaDex's `X-RateLimit-Retry-After`: the Unix time, in seconds, its rate-limit window ends (its
 * 429s carry this, not Retry-After); null when absent or unreadable.
 */
export function rateLimitRetryAtMs(header: string | null, now = Date.now()): number | null {
  const text = header?.trim() ?? "";
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  return Math.max(0, Math.round(Number(text) * 1000) - now);
}

/**
 * The catalogue's own words in an error answer, when it has any: MangaDex's `errors[].detail` (or
 * `title`), AniList's GraphQL `errors[].message`, MangaUpdates' `reason`. Read from at most 8 KiB.
 */
async function upstreamReason(res: Response, catalogue: string): Promise<string | null> {
  try {
    const body = JSON.parse((await readCapped(res, 8192, "error", catalogue)).toString("utf8")) as unknown;
    const record = (v: unknown) =>
      typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    const errors = record(body).errors;
    const first = record(Array.isArray(errors) ? errors[0] : null);
    const reason = [first.detail, first.title, first.message, record(body).reason].find(
      (x): x is string => typeof x === "string" && x.trim() !== "",
    );
    // Kept short and on one line: it becomes part of the problem's detail.
    return reason ? reason.replace(/\s+/g, " ").trim().slice(0, 300) : null;
  } catch {
    return null;
  }
}

/** How long a failed answer asks to be left alone (Retry-After, or MangaDex's header on a 429). */
function askedWaitMs(res: Response): number | null {
  const waits = [retryAfterMs(res.headers.get("retry-after"))];
  if (res.status === 429) waits.push(rateLimitRetryAtMs(res.headers.get("x-ratelimit-retry-after")));
  const known = waits.filter((w): w is number => w !== null);
  return known.length ? Math.max(...known) : null;
}

async function readCapped(res: Response, max: number, what: string, catalogue: string): Promise<Buffer> {
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    throw new CatalogueError(catalogue, "failed", `${what} is larger than ${max} bytes`, res.status);
  }
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new CatalogueError(catalogue, "failed", `${what} is larger than ${max} bytes`, res.status);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

export class PoliteHttp {
  readonly name: string;
  readonly catalogue: string;
  private readonly o: Required<Omit<PoliteHttpOptions, "name" | "catalogue">>;
  private nextSlot = 0;
  private lastSent = 0;
  private readonly cache = new Map<string, { at: number; value: unknown }>();
  /** Origin → the time before which it asked not to be sent anything (a wait too long to take). */
  private readonly blocked = new Map<string, number>();
  /** Requests sent (attempts included), for the status shown in the settings. */
  sent = 0;

  constructor(options: PoliteHttpOptions) {
    this.name = options.name;
    this.catalogue = options.catalogue;
    this.o = {
      minIntervalMs: options.minIntervalMs,
      retries: options.retries ?? 3,
      retryBaseMs: options.retryBaseMs,
      retryCapMs: options.retryCapMs ?? 10_000,
      timeoutMs: options.timeoutMs ?? 20_000,
      cacheTtlMs: options.cacheTtlMs ?? 10 * 60_000,
      cacheEntries: options.cacheEntries ?? 300,
      maxJsonBytes: options.maxJsonBytes ?? 16 * 1024 ** 2,
    };
  }

  get minIntervalMs(): number {
    return this.o.minIntervalMs;
  }

  /** Waits for this request's slot. Slots are handed out in call order, so callers never crowd. */
  private async slot(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.nextSlot);
    this.nextSlot = at + this.o.minIntervalMs;
    if (at > now) await sleep(at - now);
    // A timer may fire a little early or a caller may resume late: measured from the last send.
    const since = Date.now() - this.lastSent;
    if (since < this.o.minIntervalMs) await sleep(this.o.minIntervalMs - since);
    this.lastSent = Date.now();
  }

  /** Nothing is sent to this catalogue before `ms` from now (Retry-After, back-off). */
  private holdFor(ms: number): void {
    this.nextSlot = Math.max(this.nextSlot, Date.now() + Math.min(ms, this.o.retryCapMs));
  }

  /**
   * One request with the retries: answers the Response of a success (2xx), throws CatalogueError
   * otherwise (404 and 410 → not_found at once; other 4xx at once; 429/5xx/network after retries).
   */
  private async send(url: string, init: RequestInit, what: string): Promise<Response> {
    let last = "";
    let lastStatus: number | null = null;
    const origin = new URL(url).origin;
    for (let attempt = 0; attempt <= this.o.retries; attempt++) {
      const left = (this.blocked.get(origin) ?? 0) - Date.now();
      if (left > 0)
        throw new CatalogueError(
          this.catalogue,
          "failed",
          `${what}: the catalogue answered 429 (too many requests) and asked not to be sent anything for another ${Math.ceil(left / 1000)} s`,
          429,
        );
      await this.slot();
      this.sent += 1;
      let res: Response;
      try {
        res = await fetch(url, {
          ...init,
          redirect: init.redirect ?? "error",
          credentials: "omit",
          referrerPolicy: "no-referrer",
          signal: AbortSignal.timeout(this.o.timeoutMs),
        });
      } catch (e) {
        last = `${what}: ${(e as Error).name === "TimeoutError" ? "timed out" : (e as Error).message}`;
        lastStatus = null;
        this.holdFor(this.o.retryBaseMs * 2 ** attempt);
        continue;
      }
      if (res.ok) return res;
      const reason = await upstreamReason(res, this.catalogue);
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 404 || res.status === 410)
        throw new CatalogueError(this.catalogue, "not_found", `${what}: the catalogue has no such entry`, res.status);
      const answered = `${what}: the catalogue answered ${res.status}${reason ? `: ${reason}` : ""}`;
      if (res.status !== 429 && res.status < 500)
        throw new CatalogueError(this.catalogue, "failed", answered, res.status);
      last = res.status === 429 && !reason ? `${answered} (too many requests)` : answered;
      lastStatus = res.status;
      const asked = askedWaitMs(res);
      if (asked !== null && asked > this.o.retryCapMs) {
        this.blocked.set(origin, Date.now() + Math.min(asked, MAX_BLOCK_MS));
        throw new CatalogueError(
          this.catalogue,
          "failed",
          `${last}; it asks to wait ${Math.ceil(asked / 1000)} s, longer than a request waits: not asked again before then`,
          res.status,
        );
      }
      this.holdFor(Math.max(this.o.retryBaseMs * 2 ** attempt, asked ?? 0));
    }
    throw new CatalogueError(
      this.catalogue,
      "failed",
      `${last} (gave up after ${this.o.retries + 1} attempts)`,
      lastStatus,
    );
  }

  private remember(key: string, value: unknown): void {
    this.cache.delete(key);
    this.cache.set(key, { at: Date.now(), value });
    while (this.cache.size > this.o.cacheEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  /** A JSON answer (cached by method, URL and body). */
  async json(url: string, request: JsonRequest = {}): Promise<unknown> {
    const method = request.method ?? "GET";
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const key = `${method} ${url} ${body ?? ""}`;
    const cached = this.cache.get(key);
    if (request.cache !== "refresh" && cached && Date.now() - cached.at < this.o.cacheTtlMs) return cached.value;
    const headers: Record<string, string> = { accept: "application/json", "user-agent": USER_AGENT };
    if (body !== undefined) headers["content-type"] = "application/json";
    const what = `${this.name} ${method} ${new URL(url).pathname}`;
    const res = await this.send(url, { method, headers, body }, what);
    const bytes = await readCapped(res, this.o.maxJsonBytes, what, this.catalogue);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch {
      throw new CatalogueError(this.catalogue, "failed", `${what}: the answer is not JSON`, res.status);
    }
    this.remember(key, value);
    return value;
  }

  /** Raw bytes (a cover image), redirects followed, at most `maxBytes`. Not cached (covers are stored). */
  async bytes(url: string, maxBytes: number): Promise<{ bytes: Buffer; contentType: string | null }> {
    const what = `${this.name} cover`;
    const res = await this.send(
      url,
      { method: "GET", headers: { accept: "image/*", "user-agent": USER_AGENT }, redirect: "follow" },
      what,
    );
    return {
      bytes: await readCapped(res, maxBytes, what, this.catalogue),
      contentType: res.headers.get("content-type"),
    };
  }

  clearCache(): void {
    this.cache.clear();
  }
}
