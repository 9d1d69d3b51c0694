/**
 * The pure decision of a library rescan, in two phases so that hashing (the expensive part) happens
 * only where it is needed:
 *   1. needsHash(known, found) → the paths whose sha256 the caller must compute;
 *   2. diffScan(known, foundWithHashes) → unchanged / changed / moved / added / removed.
 * A file whose size and mtime are unchanged is unchanged without hashing. Paths are compared
 * exactly (relative to the library root, forward slashes, as the walker produced them).
 */

/** An active file of the database. Size and mtime may arrive as BigInt straight from the rows. */
export interface KnownFile {
  id: number;
  path: string;
  size: number | bigint;
  mtimeMs: number | bigint;
  sha256: string;
}

/** What the walk found on disk; sha256 present only where it was computed (or already known). */
export interface FoundFile {
  path: string;
  size: number | bigint;
  mtimeMs: number | bigint;
  sha256?: string | undefined;
}

/** A found file with its sha256; the caller's own object type is kept (number or BigInt stats). */
export type HashedFile<F extends FoundFile = FoundFile> = F & { sha256: string };

export type ChangedFile<F extends FoundFile = FoundFile> = HashedFile<F> & {
  id: number;
  /** False when only the mtime moved (touched, copied back): the archive need not be read again. */
  contentChanged: boolean;
};

export interface MovedFile<F extends FoundFile = FoundFile> {
  id: number;
  from: string;
  to: string;
  size: F["size"];
  mtimeMs: F["mtimeMs"];
  sha256: string;
}

export interface ScanDiff<F extends FoundFile = FoundFile> {
  unchanged: { id: number; path: string }[];
  changed: ChangedFile<F>[];
  moved: MovedFile<F>[];
  added: HashedFile<F>[];
  /** Ids of known files that vanished and did not reappear elsewhere. */
  removed: number[];
}

/** Exact for every real size and millisecond mtime (< 2^53), whatever mix of number and BigInt. */
const sameValue = (a: number | bigint, b: number | bigint): boolean => Number(a) === Number(b);
const sameStat = (k: KnownFile, f: FoundFile): boolean => sameValue(k.size, f.size) && sameValue(k.mtimeMs, f.mtimeMs);
const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * Later duplicates of a path are ignored: the walk yields each path once, and a database holding
 * two active rows for one path keeps the first here (the other is reported removed).
 */
function indexByPath<T extends { path: string }>(rows: readonly T[]): { map: Map<string, T>; extra: T[] } {
  const map = new Map<string, T>();
  const extra: T[] = [];
  for (const r of rows) {
    if (map.has(r.path)) extra.push(r);
    else map.set(r.path, r);
  }
  return { map, extra };
}

/**
 * Paths whose sha256 must be computed: new paths (to recognise moves and to record them) and known
 * paths whose size or mtime changed. Found entries that already carry a sha256 are not asked for.
 * In the order of `found`, each path once.
 */
export function needsHash(known: readonly KnownFile[], found: readonly FoundFile[]): string[] {
  const knownByPath = indexByPath(known).map;
  const out: string[] = [];
  const seen = new Set<string>();
  for (const f of found) {
    if (seen.has(f.path)) continue;
    seen.add(f.path);
    if (f.sha256) continue;
    const k = knownByPath.get(f.path);
    if (!k || !sameStat(k, f)) out.push(f.path);
  }
  return out;
}

function hashOf(f: FoundFile): string {
  if (!f.sha256) throw new Error(`diffScan: no sha256 for ${JSON.stringify(f.path)} (needsHash asked for it)`);
  return f.sha256;
}

/**
 * The rescan decision. Every path needsHash returned must carry its sha256 (an Error otherwise: the
 * two phases were not followed). A vanished known file whose sha256 and size reappear at a new path
 * is moved (mtime is not compared: a copy across disks changes it). Moves pair one-to-one: vanished
 * and new files with the same content are paired in path order, the rest are removed or added.
 * Only new paths are move targets; content reappearing at a known path is a change of that path.
 * Every list is sorted by path (removed: by the vanished path), so the result is deterministic.
 */
export function diffScan<F extends FoundFile>(known: readonly KnownFile[], found: readonly F[]): ScanDiff<F> {
  const { map: knownByPath, extra: duplicateRows } = indexByPath(known);
  const foundByPath = indexByPath(found).map;
  const diff: ScanDiff<F> = { unchanged: [], changed: [], moved: [], added: [], removed: [] };

  const fresh: HashedFile<F>[] = [];
  for (const f of foundByPath.values()) {
    const k = knownByPath.get(f.path);
    if (!k) {
      fresh.push({ ...f, sha256: hashOf(f) });
    } else if (sameStat(k, f)) {
      diff.unchanged.push({ id: k.id, path: k.path });
    } else {
      const sha256 = hashOf(f);
      const contentChanged = sha256 !== k.sha256 || !sameValue(k.size, f.size);
      diff.changed.push({ ...f, sha256, id: k.id, contentChanged });
    }
  }
  const vanished = [...knownByPath.values()].filter((k) => !foundByPath.has(k.path));

  // Pair by content: same sha256 and same size, each side in path order.
  const key = (sha256: string, size: number | bigint) => `${sha256}\u0000${String(size)}`;
  const targets = new Map<string, HashedFile<F>[]>();
  for (const f of [...fresh].sort(byPath)) {
    const list = targets.get(key(f.sha256, f.size)) ?? [];
    list.push(f);
    targets.set(key(f.sha256, f.size), list);
  }
  const claimed = new Set<HashedFile<F>>();
  for (const k of [...vanished].sort(byPath)) {
    const to = targets.get(key(k.sha256, k.size))?.shift();
    if (to) {
      claimed.add(to);
      diff.moved.push({ id: k.id, from: k.path, to: to.path, size: to.size, mtimeMs: to.mtimeMs, sha256: to.sha256 });
    } else {
      diff.removed.push(k.id);
    }
  }
  diff.removed.push(...duplicateRows.map((r) => r.id));
  diff.added = fresh.filter((f) => !claimed.has(f)).sort(byPath);
  diff.unchanged.sort(byPath);
  diff.changed.sort(byPath);
  diff.moved.sort((a, b) => byPath({ path: a.to }, { path: b.to }));
  return diff;
}

/**
 * The series folder of a path relative to the library root: its first segment (a series is a
 * folder directly under the root). Null for a file lying at the root itself, an empty path, or a
 * first segment that is "." or "..". Accepts "/" and "\" and ignores a leading "./" or "/".
 */
export function seriesFolderOf(relativePath: string): string | null {
  const segments = relativePath.split(/[/\\]+/).filter((s, i) => !(i === 0 && (s === "" || s === ".")));
  if (segments.length < 2) return null;
  const first = segments[0] ?? "";
  return first === "" || first === "." || first === ".." ? null : first;
}

/**
 * Natural order for page names: digit runs compare by value ("page2" < "page10"), the rest
 * case-insensitively. Equal values with different zero padding put the shorter run first
 * ("p2" < "p02"); remaining ties fall back to the raw code units ("P2" < "p2"), so the order is
 * total and a sort gives the same result whatever the input order. No Number(): page names may
 * hold digit runs beyond 2^53.
 */
export function naturalCompare(a: string, b: string): number {
  const ra = a.toLowerCase().match(/\d+|\D+/g) ?? [];
  const rb = b.toLowerCase().match(/\d+|\D+/g) ?? [];
  let padding = 0;
  const n = Math.min(ra.length, rb.length);
  for (let i = 0; i < n; i++) {
    const x = ra[i] ?? "";
    const y = rb[i] ?? "";
    if (x === y) continue;
    const digits = /^\d/.test(x) && /^\d/.test(y);
    if (!digits) return x < y ? -1 : 1;
    const vx = x.replace(/^0+(?=\d)/, "");
    const vy = y.replace(/^0+(?=\d)/, "");
    if (vx.length !== vy.length) return vx.length - vy.length;
    if (vx !== vy) return vx < vy ? -1 : 1;
    if (padding === 0) padding = x.length - y.length; // decided only if nothing else differs
  }
  if (ra.length !== rb.length) return ra.length - rb.length;
  if (padding !== 0) return padding;
  return a < b ? -1 : a > b ? 1 : 0;
}
