/**
 * What the assembly benchmark builds on: chapter CBZs in a temporary library, the real plan made
 * by the domain planner (`planAssembly` over `buildCoverageIndex` of an in-memory snapshot that
 * names those files with their real SHA-256), and the native pipeline it is compared with.
 */
import { spawn } from "node:child_process";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { planAssembly, type AssemblyPlan } from "../src/domain/assembly.ts";
import { buildCoverageIndex } from "../src/domain/coverage.ts";
import { label, type Label } from "../src/domain/labels.ts";
import { seriesFacts } from "../src/domain/test-fixtures.ts";
import type { FileFacts, SeriesSnapshot } from "../src/domain/types.ts";
import { sha256File } from "../src/library/durable-fs.ts";
import { BenchError, fail } from "./harness.ts";
import { writeCbz } from "./cbz.ts";

export const SERIES_TITLE = "Bench Assembly";
export const SERIES_FOLDER = "Bench Assembly";

export interface ChapterFile {
  number: Label;
  /** Relative to the library root, as library_file.path is. */
  rel: string;
  abs: string;
}

/** Writes chapter `c + 1` with pages `pagesOf(c)` for c in 0..count-1, under `<root>/<folder>/`. */
export async function writeChapters(
  root: string,
  count: number,
  pagesOf: (c: number) => readonly Buffer[],
): Promise<ChapterFile[]> {
  await mkdir(path.join(root, SERIES_FOLDER), { recursive: true });
  const out: ChapterFile[] = [];
  for (let c = 0; c < count; c++) {
    const number = label(c + 1);
    const rel = `${SERIES_FOLDER}/${SERIES_TITLE} - c${String(c + 1).padStart(3, "0")}.cbz`;
    const abs = path.join(root, rel);
    await writeCbz(abs, pagesOf(c));
    out.push({ number, rel, abs });
  }
  return out;
}

/**
 * The plan of book 1 holding every chapter, made by the real planner: a running series whose
 * operator map puts all chapters in book 1, one chapter file per chapter slot, nothing owned.
 */
export async function planBook(chapters: readonly ChapterFile[]): Promise<AssemblyPlan> {
  const files: FileFacts[] = [];
  for (const [i, c] of chapters.entries()) {
    files.push({
      id: i + 1,
      path: c.rel,
      kind: "chapter",
      volume: null,
      chapter: c.number,
      chapterEnd: null,
      part: null,
      pageCount: 0,
      sha256: await sha256File(c.abs),
      origin: "download",
      language: "en",
      tagSource: "filename",
    });
  }
  const snapshot: SeriesSnapshot = {
    series: seriesFacts({ id: 1, title: SERIES_TITLE, status: "running" }),
    volumes: [{ id: 1, number: label(1), monitored: true }],
    chapters: chapters.map((c, i) => ({ id: i + 1, number: c.number, monitored: true, parts: 1, extra: false })),
    mapSources: [
      {
        id: 1,
        kind: "operator",
        name: "operator",
        revision: 1,
        entries: [{ volume: label(1), chapters: chapters.map((c) => c.number) }],
      },
    ],
    files,
    releases: [],
    verifications: [],
  };
  const decision = planAssembly(snapshot, buildCoverageIndex(snapshot), label(1));
  if (!decision.ok) fail(`the planner refused the bench book: ${decision.code} ${decision.detail}`);
  if (decision.plan.chapters.length !== chapters.length)
    fail(`the plan holds ${decision.plan.chapters.length} chapters, not ${chapters.length}`);
  return decision.plan;
}

/** The ComicInfo fields the service would add (assemblyComicInfo), written out so the bench does not load the service. */
export function benchComicInfo(plan: AssemblyPlan) {
  return {
    Title: `${SERIES_TITLE} v001`,
    Series: SERIES_TITLE,
    Volume: 1,
    Notes: [
      `Assembled by the library service as book 1 from chapters ${plan.chapters.map((c) => c.number).join(", ")}.`,
      `Chapter files: ${plan.chapters.flatMap((c) => c.sources.map((s) => s.path.slice(s.path.lastIndexOf("/") + 1))).join(", ")}.`,
      "Sources: local files.",
      "Languages: en.",
    ].join("\n"),
    Manga: "YesAndRightToLeft" as const,
  };
}

function run(command: string, args: string[], cwd?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], cwd });
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new BenchError(`${command} ${args.join(" ")} exited ${code}: ${err.slice(0, 400)}`)),
    );
  });
}

/**
 * The native pipeline doing the same work: `unzip -q` each chapter into its own folder of `work`,
 * rename the pages to the book's sequential names (p0001.jpg…, renames in this process: a few
 * hundred syscalls), then `zip -0 -q -r -X` them into `book`. Timed from the first unzip to the
 * end of zip; removing the extracted pages afterwards is not timed. Returns ms and page count.
 */
export async function nativePipeline(
  chapters: readonly ChapterFile[],
  work: string,
  book: string,
): Promise<{ ms: number; pages: number }> {
  const pagesDir = path.join(work, "pages");
  await mkdir(pagesDir, { recursive: true });
  const t0 = performance.now();
  const dirs: string[] = [];
  for (const [i, c] of chapters.entries()) {
    const dir = path.join(work, `c${i}`);
    await run("unzip", ["-q", c.abs, "-d", dir]);
    dirs.push(dir);
  }
  const names: [string, string][] = [];
  for (const dir of dirs) for (const n of (await readdir(dir)).sort()) names.push([dir, n]);
  const width = Math.max(4, String(names.length).length);
  for (const [k, [dir, n]] of names.entries())
    await rename(path.join(dir, n), path.join(pagesDir, `p${String(k + 1).padStart(width, "0")}.jpg`));
  await run("zip", ["-0", "-q", "-r", "-X", book, "."], pagesDir);
  const ms = performance.now() - t0;
  await rm(work, { recursive: true, force: true });
  return { ms, pages: names.length };
}

export async function fileSize(p: string): Promise<number> {
  return (await stat(p)).size;
}
