import { stat as statWithCallback, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../errors.ts";
import { comicInfoLanguage, parseComicInfo, numberingFromSources } from "../../domain/comicinfo.ts";
import { parseLibraryPath } from "../../domain/filename.ts";
import { expandRange, type Label } from "../../domain/labels.ts";
import { diffScan, needsHash, seriesFolderOf } from "../../domain/scan-diff.ts";
import { readArchiveIndex, sha256File } from "../../library/archive-index.ts";
import type { ScannedFile } from "../../repositories/file-repo.ts";
import { stateDirs } from "../../config.ts";
import type { AppContext } from "../context.ts";
import { isSeriesFolder, requireLibraryRoot } from "../../library/library-root.ts";

export interface ScanResult {
  added: number;
  changed: number;
  moved: number;
  removed: number;
  unchanged: number;
  seriesCreated: number;
  errors: { path: string; code: string; message: string }[];
}

const ARCHIVE_EXT = /\.(cbz|zip)$/i;

/** Files read at once (hashing, indexing) and stats in flight while walking. */
const CONCURRENCY = 8;

/**
 * Runs `fn` over `items`, at most `limit` at a time; results in the order of `items`. `fn` also
 * gets the number of the worker running it (0..limit-1), to reuse that worker's buffer.
 */
async function inPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, worker: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (w: number) => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, w);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, (_, w) => worker(w)));
  return out;
}

/** sha256File's read buffer, one per worker: a fresh 1 MiB per file piles up outside the heap. */
const hashBuffers = (n: number) => Array.from({ length: n }, () => Buffer.allocUnsafe(1024 * 1024));

interface Stat {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * fs.stat through its callback: the promise API took twice the main thread's time per file
 * (91–166 ms against 36–116 ms for 20,000 files), about half of a rescan with nothing changed.
 */
const stat = (p: string): Promise<Stats> =>
  new Promise((resolve, reject) => statWithCallback(p, (e, s) => (e ? reject(e) : resolve(s))));

/** Relative paths (forward slashes) of every archive under the library root, one folder per series. */
async function walk(root: string): Promise<{ folders: string[]; files: Stat[] }> {
  const folders: string[] = [];
  const candidates: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!isSeriesFolder(entry)) continue;
    folders.push(entry.name);
    const stack = [entry.name];
    while (stack.length > 0) {
      const rel = stack.pop() as string;
      for (const child of await readdir(path.join(root, rel), { withFileTypes: true })) {
        if (child.name.startsWith(".")) continue;
        const childRel = `${rel}/${child.name}`;
        if (child.isDirectory()) stack.push(childRel);
        else if (child.isFile() && ARCHIVE_EXT.test(child.name)) candidates.push(childRel);
      }
    }
  }
  // Only the stats run in parallel: a file that vanished since its folder was read is left out.
  const stats = await inPool(candidates, CONCURRENCY * 4, async (rel) => {
    try {
      const st = await stat(path.join(root, rel));
      return { path: rel, size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
  });
  return { folders: folders.sort(), files: stats.filter((f): f is Stat => f !== null) };
}

type Described = Awaited<ReturnType<ReturnType<typeof describer>>>;

function describer(config: AppContext["config"]) {
  return async (relPath: string, sizeMtime: { size: number; mtimeMs: number }, sha256: string) => {
    const abs = path.join(config.libraryRoot, relPath);
    const index = await readArchiveIndex(abs, config.archiveLimits);
    const comicInfo = index.comicInfoXml ? parseComicInfo(index.comicInfoXml) : null;
    // The series folder's name is the title ("Mob Psycho 100" holds no chapter); folders between it
    // and the file ("Volume 03/") fill the volume or chapter the file name leaves open.
    const numbering = numberingFromSources(comicInfo, parseLibraryPath(relPath));
    return {
      row: {
        path: relPath,
        size: sizeMtime.size,
        mtimeMs: sizeMtime.mtimeMs,
        sha256,
        pageCount: index.pageCount,
        kind: numbering.kind ?? "chapter",
        volume: numbering.volume,
        chapter: numbering.chapter,
        chapterEnd: numbering.chapterEnd,
        part: numbering.part,
        tagSource: numbering.tagSource,
        // ComicInfo's LanguageISO says what the file is in; without it the file is in the series' language.
        language: comicInfoLanguage(comicInfo),
        state: "active",
      },
      numbering,
    };
  };
}

/** What reading one archive gave: its description, or the error that made it unreadable. */
type Reading = { ok: true; value: Described } | { ok: false; error: unknown };

const readingOf = (p: Promise<Described>): Promise<Reading> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/**
 * The library scan: records every CBZ under the library root from its zip central directory and
 * ComicInfo.xml (never decoding an image), and notices changed, moved and removed files by size,
 * mtime and sha256. Vanished files are marked missing, never deleted from the records.
 *
 * Incremental: a file whose size and mtime are as recorded costs one stat, and is neither read nor
 * opened; one whose mtime moved is hashed, and opened only when its bytes changed; new paths are
 * hashed and opened once each. Reads run CONCURRENCY at a time; the rows are written in bulk
 * (file-repo.ts, slot-repo.ts `ensureMany`), so a first scan of 20,000 files is a few dozen statements
 * per thousand files rather than one transaction per file.
 */
export function scanService(ctx: AppContext) {
  const { repos, config } = ctx;
  let running = false;
  const describe = describer(config);

  async function run(): Promise<ScanResult> {
    const result: ScanResult = {
      added: 0,
      changed: 0,
      moved: 0,
      removed: 0,
      unchanged: 0,
      seriesCreated: 0,
      errors: [],
    };
    // A missing library folder (an unmounted disk) is refused, not read as a library emptied.
    await requireLibraryRoot(config.libraryRoot);
    const { folders, files } = await walk(config.libraryRoot);

    const seriesByFolder = new Map<string, { id: number; monitored: boolean }>();
    const listSeries = async () => {
      for (const s of await repos.series.list()) seriesByFolder.set(s.folder, { id: s.id, monitored: s.monitored });
    };
    await listSeries();
    const newFolders = folders.filter((f) => !seriesByFolder.has(f));
    if (newFolders.length > 0) {
      await repos.series.createForFolders(newFolders);
      await listSeries();
      result.seriesCreated = newFolders.length;
    }
    const seriesOf = (relPath: string) => {
      const folder = seriesFolderOf(relPath);
      return folder === null ? undefined : seriesByFolder.get(folder)?.id;
    };

    const known = await repos.files.active();
    const knownByPath = new Map(known.map((k) => [k.path, k]));
    const toHash = needsHash(known, files);
    const statByPath = new Map(files.map((f) => [f.path, f]));
    // A new path in a series folder is read whole once: hashed, and indexed at the same time (it is
    // added or the target of a move, and both need its description).
    const early = new Map<string, Reading>();
    const hashes = new Map<string, string>();
    const buffers = hashBuffers(Math.min(CONCURRENCY, toHash.length));
    await inPool(toHash, CONCURRENCY, async (p, w) => {
      const abs = path.join(config.libraryRoot, p);
      if (!knownByPath.has(p) && seriesOf(p) !== undefined) {
        const [sha256, reading] = await Promise.all([
          sha256File(abs, buffers[w]),
          readingOf(describe(p, statByPath.get(p) as Stat, "")),
        ]);
        hashes.set(p, sha256);
        early.set(p, reading);
      } else {
        hashes.set(p, await sha256File(abs, buffers[w]));
      }
    });
    const withHashes = files.map((f) => ({ ...f, sha256: hashes.get(f.path) ?? knownByPath.get(f.path)?.sha256 }));
    const diff = diffScan(known, withHashes);
    result.unchanged = diff.unchanged.length;

    // Known paths whose bytes changed are read now; new paths were read above.
    const changedContent = diff.changed.filter((c) => c.contentChanged && seriesOf(c.path) !== undefined);
    const late = new Map<string, Reading>();
    await inPool(changedContent, CONCURRENCY, async (f) => {
      late.set(f.path, await readingOf(describe(f.path, f, f.sha256)));
    });
    const readingFor = async (p: string, sha256: string): Promise<Described> => {
      const r = late.get(p) ?? early.get(p);
      if (!r) throw new Error(`scan: ${p} was not read`);
      if (!r.ok) throw r.error;
      return { ...r.value, row: { ...r.value.row, sha256 } };
    };

    const touched = new Set<number>();
    const slotHints = new Map<
      number,
      { volumes: Label[]; chapters: { number: Label; parts: number; extra: boolean }[] }
    >();
    const hint = (seriesId: number, n: ReturnType<typeof numberingFromSources>) => {
      const h = slotHints.get(seriesId) ?? { volumes: [], chapters: [] };
      slotHints.set(seriesId, h);
      if (n.kind === "book" && n.volume) h.volumes.push(n.volume);
      if (n.chapter) {
        // "(part 1 of 3)" says the chapter has three parts: the third is missing until it is on disk.
        const parts = n.part ? Math.max(2, n.part, n.partsTotal ?? 0) : 1;
        for (const c of expandRange(n.chapter, n.chapterEnd ?? n.chapter))
          h.chapters.push({ number: c, parts, extra: n.extra });
      }
    };

    const creates: ScannedFile[] = [];
    const updates: (ScannedFile & { id: number })[] = [];
    const unreadable: number[] = [];
    const sameBytes = diff.changed.filter((c) => !c.contentChanged);
    // Touched, same bytes: only the recorded mtime moves; the archive is not read again.
    await repos.files.touch(sameBytes.map((f) => ({ id: f.id, size: Number(f.size), mtimeMs: Number(f.mtimeMs) })));
    result.unchanged += sameBytes.length;
    for (const f of [...diff.added, ...diff.changed.filter((c) => c.contentChanged)]) {
      const seriesId = seriesOf(f.path);
      if (seriesId === undefined) continue;
      try {
        const { row, numbering } = await readingFor(f.path, f.sha256);
        const existing = knownByPath.get(f.path);
        if (existing) {
          // New bytes at a known path were put there by hand: a book is then a hand import (it is no
          // longer the assembly or the download the service recorded).
          updates.push({
            ...row,
            seriesId,
            id: existing.id,
            origin: row.kind === "book" ? "import" : null,
          });
          result.changed += 1;
        } else {
          // A book the scan finds was placed in the library by hand: a hand import (suspect).
          creates.push({ ...row, seriesId, origin: row.kind === "book" ? "import" : "scan" });
          result.added += 1;
        }
        touched.add(seriesId);
        hint(seriesId, numbering);
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        result.errors.push({
          path: f.path,
          code: typeof code === "string" ? code : "archive_unreadable",
          message: (e as Error).message,
        });
        const existing = knownByPath.get(f.path);
        if (existing) unreadable.push(existing.id);
      }
    }
    for (const m of diff.moved) {
      const seriesId = seriesOf(m.to);
      if (seriesId === undefined) continue;
      try {
        const { row, numbering } = await readingFor(m.to, m.sha256);
        updates.push({ ...row, seriesId, id: m.id, origin: null });
        touched.add(seriesId);
        hint(seriesId, numbering);
        result.moved += 1;
      } catch (e) {
        result.errors.push({ path: m.to, code: "archive_unreadable", message: (e as Error).message });
      }
    }
    await repos.files.updateScanned(updates);
    await repos.files.insertScanned(creates);
    if (unreadable.length > 0) await repos.files.markMissing(unreadable);
    if (diff.removed.length > 0) {
      await repos.files.markMissing(diff.removed);
      result.removed = diff.removed.length;
    }

    const monitoredById = new Map([...seriesByFolder.values()].map((s) => [s.id, s.monitored]));
    await repos.slots.ensureMany(
      [...slotHints].map(([seriesId, h]) => ({ seriesId, monitored: monitoredById.get(seriesId) ?? true, ...h })),
    );
    // Reconciliation: stored estimates and tags derived from them never survive a scan (docs/rules.md, "Map trust" 7).
    await repos.maps.removeAllEstimates();
    for (const id of touched) ctx.events.publish("series_changed", id);
    ctx.events.publish("scan_finished", null);
    ctx.log(
      `scan: ${result.added} added, ${result.changed} changed, ${result.moved} moved, ${result.removed} removed, ${result.errors.length} unreadable`,
    );
    return result;
  }

  /** Runs `fn` in the scan's turn (409 `scan_in_progress` while a scan runs here or on another instance). */
  async function inScanTurn<T>(fn: () => Promise<T>): Promise<T> {
    if (running) throw new AppError("scan_in_progress");
    running = true;
    try {
      // One scan at a time across instances too: two would record the same new file twice.
      const turn = await ctx.cluster.turn("scan", fn, false);
      if (!turn.ran) throw new AppError("scan_in_progress");
      return turn.value;
    } finally {
      running = false;
    }
  }

  return {
    scan: (): Promise<ScanResult> => inScanTurn(run),
    /** Where the library is on the server, so a person knows where to put series folders. */
    info: (): LibraryInfo => ({
      root: ctx.config.libraryRoot,
      recycleBin: stateDirs(ctx.config).recycleBin,
      scanIntervalSeconds: ctx.config.libraryScanIntervalSeconds,
    }),
    /**
     * Runs `fn` while no scan runs, e.g. removing a series: a scan lists the series once and then
     * records files under them, so no series may go away under it.
     */
    whileNotScanning: <T>(fn: () => Promise<T>): Promise<T> => inScanTurn(fn),
  };
}

export type ScanService = ReturnType<typeof scanService>;

export interface LibraryInfo {
  /** LIBRARY_ROOT: one folder per series. */
  root: string;
  /** Where retired files go (restorable). */
  recycleBin: string;
  /** LIBRARY_SCAN_INTERVAL_SECONDS; 0 scans only when asked. */
  scanIntervalSeconds: number;
}
