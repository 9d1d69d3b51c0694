import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors.ts";
import { comicInfoLanguage, parseComicInfo, numberingFromSources } from "../domain/comicinfo.ts";
import { parseFileName } from "../domain/filename.ts";
import { expandRange, type Label } from "../domain/labels.ts";
import { diffScan, needsHash, seriesFolderOf } from "../domain/scan-diff.ts";
import { readArchiveIndex, sha256File } from "../library/archive-index.ts";
import type { FileCreate } from "../repositories/file-repo.ts";
import type { AppContext } from "./context.ts";

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

/** Relative paths (forward slashes) of every archive under the library root, one folder per series. */
async function walk(
  root: string,
): Promise<{ folders: string[]; files: { path: string; size: number; mtimeMs: number }[] }> {
  const folders: string[] = [];
  const files: { path: string; size: number; mtimeMs: number }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    // Dot-folders hold the service's own state (staging, recycle bin) and other tools' metadata.
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    folders.push(entry.name);
    const stack = [entry.name];
    while (stack.length > 0) {
      const rel = stack.pop() as string;
      for (const child of await readdir(path.join(root, rel), { withFileTypes: true })) {
        if (child.name.startsWith(".")) continue;
        const childRel = `${rel}/${child.name}`;
        if (child.isDirectory()) stack.push(childRel);
        else if (child.isFile() && ARCHIVE_EXT.test(child.name)) {
          const st = await stat(path.join(root, childRel));
          files.push({ path: childRel, size: st.size, mtimeMs: Math.trunc(st.mtimeMs) });
        }
      }
    }
  }
  return { folders: folders.sort(), files };
}

/**
 * The library scan: records every CBZ under the library root from its zip central directory and
 * ComicInfo.xml (never decoding an image), and notices changed, moved and removed files by size,
 * mtime and sha256. Vanished files are marked missing, never deleted from the records.
 */
export function scanService(ctx: AppContext) {
  const { repos, config } = ctx;
  let running = false;

  async function describe(relPath: string, sizeMtime: { size: number; mtimeMs: number }, sha256: string) {
    const abs = path.join(config.libraryRoot, relPath);
    const index = await readArchiveIndex(abs, config.archiveLimits);
    const comicInfo = index.comicInfoXml ? parseComicInfo(index.comicInfoXml) : null;
    const numbering = numberingFromSources(
      comicInfo,
      // The folder name is the series title: a title with digits ("Mob Psycho 100") is not a chapter.
      parseFileName(path.basename(relPath), { series: seriesFolderOf(relPath) }),
    );
    return {
      row: {
        path: relPath,
        size: BigInt(sizeMtime.size),
        mtimeMs: BigInt(sizeMtime.mtimeMs),
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
  }

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
    const { folders, files } = await walk(config.libraryRoot);

    const seriesByFolder = new Map<string, { id: number; monitored: boolean }>();
    for (const s of await repos.series.list()) seriesByFolder.set(s.folder, { id: s.id, monitored: s.monitored });
    for (const folder of folders) {
      if (seriesByFolder.has(folder)) continue;
      const created = await repos.series.create({ title: folder, folder });
      seriesByFolder.set(folder, { id: created.id, monitored: created.monitored });
      result.seriesCreated += 1;
    }

    const known = await repos.files.active();
    const toHash = new Set(needsHash(known, files));
    const knownByPath = new Map(known.map((k) => [k.path, k]));
    const withHashes = [];
    for (const f of files) {
      const sha256 = toHash.has(f.path)
        ? await sha256File(path.join(config.libraryRoot, f.path))
        : knownByPath.get(f.path)?.sha256;
      withHashes.push({ ...f, sha256 });
    }
    const diff = diffScan(known, withHashes);
    result.unchanged = diff.unchanged.length;

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
    const seriesOf = (relPath: string) => {
      const folder = seriesFolderOf(relPath);
      return folder === null ? undefined : seriesByFolder.get(folder)?.id;
    };

    for (const f of diff.changed.filter((c) => !c.contentChanged)) {
      // Touched, same bytes: only the recorded mtime moves; the archive is not read again.
      await repos.files.update(f.id, { size: BigInt(f.size), mtimeMs: BigInt(f.mtimeMs) });
      result.unchanged += 1;
    }
    for (const f of [...diff.added, ...diff.changed.filter((c) => c.contentChanged)]) {
      const seriesId = seriesOf(f.path);
      if (seriesId === undefined) continue;
      try {
        const { row, numbering } = await describe(f.path, f, f.sha256 as string);
        const existing = knownByPath.get(f.path);
        if (existing) {
          // New bytes at a known path were put there by hand: a book is then a hand import (it is no
          // longer the assembly or the download the service recorded).
          await repos.files.update(existing.id, {
            ...row,
            seriesId,
            ...(row.kind === "book" ? { origin: "import" } : {}),
          });
          result.changed += 1;
        } else {
          // A book the scan finds was placed in the library by hand: a hand import (suspect).
          const origin = row.kind === "book" ? "import" : "scan";
          await repos.files.create({ ...row, seriesId, origin } satisfies FileCreate);
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
        if (knownByPath.has(f.path)) await repos.files.markMissing([(knownByPath.get(f.path) as { id: number }).id]);
      }
    }
    for (const m of diff.moved) {
      const seriesId = seriesOf(m.to);
      if (seriesId === undefined) continue;
      try {
        const { row, numbering } = await describe(m.to, m, m.sha256);
        await repos.files.update(m.id, { ...row, seriesId });
        touched.add(seriesId);
        hint(seriesId, numbering);
        result.moved += 1;
      } catch (e) {
        result.errors.push({ path: m.to, code: "archive_unreadable", message: (e as Error).message });
      }
    }
    if (diff.removed.length > 0) {
      await repos.files.markMissing(diff.removed);
      result.removed = diff.removed.length;
    }

    const monitoredById = new Map([...seriesByFolder.values()].map((s) => [s.id, s.monitored]));
    for (const [seriesId, h] of slotHints) {
      const monitored = monitoredById.get(seriesId) ?? true;
      await repos.slots.ensureVolumes(seriesId, h.volumes, monitored);
      await repos.slots.ensureChapters(seriesId, h.chapters, monitored);
    }
    // Reconciliation: stored estimates and tags derived from them never survive a scan (map trust rule 3).
    for (const { id } of seriesByFolder.values()) await repos.maps.removeEstimates(id);
    for (const id of touched) ctx.events.publish("series_changed", id);
    ctx.events.publish("scan_finished", null);
    ctx.log(
      `scan: ${result.added} added, ${result.changed} changed, ${result.moved} moved, ${result.removed} removed, ${result.errors.length} unreadable`,
    );
    return result;
  }

  return {
    async scan(): Promise<ScanResult> {
      if (running) throw new AppError("scan_in_progress");
      running = true;
      try {
        return await run();
      } finally {
        running = false;
      }
    },
  };
}

export type ScanService = ReturnType<typeof scanService>;
