/**
 * In-process locks by name ("path:Alpha/x.cbz", "file:12"): operations on the same file run one
 * after the other, operations on different files run side by side.
 */
export interface KeyedLock {
  /** Runs `fn` holding every key. Keys are taken in sorted order so two callers never deadlock. */
  run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T>;
  /** Keys currently held or waited for (for tests). */
  readonly size: number;
}

export function createKeyedLock(): KeyedLock {
  /** The tail of each key's queue: resolves when the last holder releases it. */
  const tails = new Map<string, Promise<void>>();

  async function acquire(key: string): Promise<() => void> {
    const previous = tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    tails.set(key, tail);
    await previous;
    return () => {
      release();
      // The last one out forgets the key, so the map does not grow with every path ever seen.
      if (tails.get(key) === tail) tails.delete(key);
    };
  }

  return {
    async run(keys, fn) {
      const releases: (() => void)[] = [];
      try {
        for (const key of [...new Set(keys)].sort()) releases.push(await acquire(key));
        return await fn();
      } finally {
        for (const release of releases.reverse()) release();
      }
    },
    get size() {
      return tails.size;
    },
  };
}
