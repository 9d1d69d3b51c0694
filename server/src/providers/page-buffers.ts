/**
 * Fetched page bytes read into reused buffers. A page lives for its measure and its write (tens of
 * milliseconds under load): long enough to be promoted out of V8's young generation, so a fresh
 * buffer per page stays allocated until V8's next full collection, which such buffers force after
 * about 64 MB more of them. On the downloads benchmark (48 chapters) fresh buffers took 29–32 full
 * collections a run, reused ones 9, at about 0.5 ms less CPU a page (docs/benchmarks.md).
 */

/** The smallest buffer made: one page of a usual chapter fits (the benchmark's median is 356 KB). */
const MIN_CAPACITY = 512 * 1024;
const ROUND = 64 * 1024;
/**
 * Larger buffers are not kept, and a declared length sizes the first buffer only up to this: a
 * server that declares a huge page and sends little gets a buffer as large as what it sent.
 */
const MAX_KEPT = 8 * 1024 * 1024;
/**
 * How often the free buffers are looked at: all of them go at a look with nothing taken since the
 * last one (after 30–60 s without downloads).
 */
const IDLE_MS = 30_000;

/** Bytes in a reused buffer: `release` gives the buffer back once nothing reads `bytes` any more. */
export interface PooledBytes {
  bytes: Buffer;
  release(): void;
}

export class PageBuffers {
  private free: Buffer[] = [];
  private taken = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** At most this many free buffers are kept. */
    private readonly keep = 32,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** A buffer of at least `min` bytes (its content is whatever it last held). */
  take(min: number): Buffer {
    this.taken = true;
    for (let i = this.free.length - 1; i >= 0; i--) {
      const b = this.free[i]!;
      if (b.length >= min) {
        this.free.splice(i, 1);
        return b;
      }
    }
    // Not from Node's shared pool: the buffer is reused as a whole and must own its memory.
    return Buffer.allocUnsafeSlow(Math.max(MIN_CAPACITY, Math.ceil(min / ROUND) * ROUND));
  }

  /** Gives `b` back; the caller must not read or write it afterwards. */
  give(b: Buffer): void {
    if (this.free.length >= this.keep || b.length > MAX_KEPT || this.free.includes(b)) return;
    this.free.push(b);
    this.timer ??= setInterval(() => this.trim(), this.idleMs).unref();
  }

  /** Free buffers kept now. */
  get kept(): number {
    return this.free.length;
  }

  /** Lets the free buffers go when nothing was taken since the last look (an idle service keeps none). */
  private trim(): void {
    if (this.taken) {
      this.taken = false;
      return;
    }
    this.free = [];
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** The process's pages in flight share one set. */
export const pageBuffers = new PageBuffers();

/**
 * Reads a body into a buffer from `pool`, refusing it (`tooLarge()` is thrown) as soon as it passes
 * `max` bytes. `declared` (the Content-Length, when there is one) sizes the buffer up front.
 */
export async function readIntoPooled(
  body: AsyncIterable<Uint8Array>,
  options: { max: number; declared?: number; pool?: PageBuffers; tooLarge: () => Error },
): Promise<PooledBytes> {
  const pool = options.pool ?? pageBuffers;
  const declared = options.declared;
  let buf = pool.take(
    declared !== undefined && Number.isFinite(declared) && declared >= 0 ? Math.min(declared, MAX_KEPT) : 0,
  );
  let total = 0;
  try {
    for await (const chunk of body) {
      if (total + chunk.length > options.max) throw options.tooLarge();
      if (total + chunk.length > buf.length) {
        const bigger = pool.take(Math.min(options.max, Math.max(total + chunk.length, buf.length * 2)));
        buf.copy(bigger, 0, 0, total);
        pool.give(buf);
        buf = bigger;
      }
      buf.set(chunk, total);
      total += chunk.length;
    }
  } catch (e) {
    pool.give(buf);
    throw e;
  }
  let released = false;
  const held = buf;
  return {
    bytes: held.subarray(0, total),
    release: () => {
      if (released) return;
      released = true;
      pool.give(held);
    },
  };
}
