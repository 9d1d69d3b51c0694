/**
 * The crash test of the publication module: for every named step of a publication, a retirement,
 * a restore, a publication chained with the retirement of what it replaces, and a purge, a child
 * process (crash/child.ts) performs the operation on a real library and SQLite database and kills
 * itself with SIGKILL at that step. The app is then started on the same folders (start-up runs
 * recovery) and the library checked: disk and database agree, every content exists exactly once
 * (none lost, none duplicated), and the operation is either wholly done or wholly undone. An undone
 * publication leaves nothing in staging: the start-up sweep removes the staged copy no journal entry
 * names any more.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, inject, it, type ExpectStatic } from "vitest";
import { createApp, type App } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { createDb } from "../src/db/client.ts";
import {
  CRASH_ENV,
  PUBLISH_STEPS,
  PURGE_STEPS,
  RESTORE_STEPS,
  RETIRE_STEPS,
  type CrashStep,
  type PublishInput,
} from "../src/library/publication.ts";
import type { CrashOp } from "./crash/child.ts";
import { contentCounts, readLibraryState, violations } from "./crash/invariants.ts";
import { downloadedChapter, stageCbz } from "./fixtures.ts";
import { readFile, rm } from "node:fs/promises";
import { stateDirs } from "../src/config.ts";
import { planAssembly } from "../src/domain/assembly.ts";
import { buildCoverageIndex } from "../src/domain/coverage.ts";
import { label } from "../src/domain/labels.ts";
import { buildBook } from "../src/library/assembler.ts";
import { loadSnapshot } from "../src/repositories/snapshot-repo.ts";
import { assemblyComicInfo, releasesOf, sourceNotes } from "../src/services/assembly/assembly-service.ts";

const CHILD = path.join(import.meta.dirname, "crash", "child.ts");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

type Kind = "publish" | "retire" | "restore" | "publish-retire" | "purge" | "assemble";

interface Prepared {
  op: CrashOp;
  /** sha256 → where the content must be once the operation is done, and where if it is undone. */
  contents: { sha256: string; done: "library" | "bin" | "staging" | "gone"; undone: "library" | "bin" | "gone" }[];
  /** File ids the operation changes (their rows are checked too). */
  fileIds: number[];
}

const chapterFile = (chapter: string) => downloadedChapter(chapter, 4);

async function stage(config: Config, name: string, pages: number): Promise<{ path: string; sha256: string }> {
  const s = await stageCbz(config, name, pages);
  return { path: s.path, sha256: sha(s.bytes) };
}

async function publishChapter(app: App, seriesId: number, c: string): Promise<{ fileId: number; sha256: string }> {
  const s = await stage(app.ctx.config, `seed-${c}.cbz`, 3 + Number(c));
  return app.services.publication.publish({
    seriesId,
    stagedPath: s.path,
    targetRelPath: `Alpha/Alpha - c00${c}.cbz`,
    file: chapterFile(c),
  });
}

/** Sets up the library the operation starts from, with the running app, and names the operation. */
async function prepare(app: App, kind: Kind): Promise<Prepared> {
  const seriesId = (await app.services.series.create({ title: "Alpha" })).id;
  const config = app.ctx.config;
  switch (kind) {
    case "publish": {
      const s = await stage(config, "incoming/new.cbz", 6);
      const input: PublishInput = {
        seriesId,
        stagedPath: s.path,
        targetRelPath: "Alpha/Alpha - c009.cbz",
        file: chapterFile("9"),
        release: {
          kind: "chapter",
          volume: null,
          chapter: "9",
          part: null,
          language: "en",
          assembledFrom: null,
          externalId: "ext-9",
        },
      };
      return {
        op: { kind: "publish", input },
        contents: [{ sha256: s.sha256, done: "library", undone: "gone" }],
        fileIds: [],
      };
    }
    case "retire": {
      const a = await publishChapter(app, seriesId, "1");
      const b = await publishChapter(app, seriesId, "2");
      return {
        op: { kind: "retire", fileIds: [a.fileId, b.fileId], reason: "crash test" },
        contents: [a, b].map((f) => ({ sha256: f.sha256, done: "bin", undone: "library" })),
        fileIds: [a.fileId, b.fileId],
      };
    }
    case "restore": {
      const a = await publishChapter(app, seriesId, "1");
      const [entry] = await app.services.publication.retire([a.fileId], "to restore");
      return {
        op: { kind: "restore", entryId: entry?.recycleEntryId as number },
        contents: [{ sha256: a.sha256, done: "library", undone: "bin" }],
        fileIds: [a.fileId],
      };
    }
    case "publish-retire": {
      const a = await publishChapter(app, seriesId, "1");
      const b = await publishChapter(app, seriesId, "2");
      const book = await stage(config, "book.cbz", 8);
      const input: PublishInput = {
        seriesId,
        stagedPath: book.path,
        targetRelPath: "Alpha/Alpha - v001 [en].cbz",
        file: {
          kind: "book",
          volume: "1",
          chapter: null,
          chapterEnd: null,
          part: null,
          pageCount: 8,
          language: "en",
          origin: "assembled",
          tagSource: "comicinfo",
        },
        release: {
          kind: "volume",
          volume: "1",
          chapter: null,
          part: null,
          language: "en",
          assembledFrom: JSON.stringify({ version: 1, chapters: ["1", "2"] }),
        },
        retireAfter: { fileIds: [a.fileId, b.fileId], reason: "assembled into book 1" },
      };
      return {
        op: { kind: "publish", input },
        contents: [
          { sha256: book.sha256, done: "library", undone: "gone" },
          ...[a, b].map((f) => ({ sha256: f.sha256, done: "bin" as const, undone: "library" as const })),
        ],
        fileIds: [a.fileId, b.fileId],
      };
    }
    case "assemble": {
      // The real assembly (planner, builder, publish with retireAfter) in the child; the book's
      // bytes are deterministic, so building it once here tells which content to look for.
      const a = await publishChapter(app, seriesId, "1");
      const b = await publishChapter(app, seriesId, "2");
      await app.services.maps.replace(
        seriesId,
        { revision: 0, entries: [{ volume: "1", chapters: ["1", "2"] }] },
        false,
      );
      const snap = await loadSnapshot(app.ctx.db, seriesId);
      if (!snap) throw new Error("no snapshot");
      const decision = planAssembly(snap, buildCoverageIndex(snap), label("1"));
      if (!decision.ok) throw new Error(decision.detail);
      const trial = await buildBook({
        plan: decision.plan,
        libraryRoot: config.libraryRoot,
        staging: stateDirs(config).staging,
        comicInfo: assemblyComicInfo(
          snap,
          decision.plan,
          sourceNotes(snap, decision.plan, await releasesOf(app.ctx.db, seriesId)),
        ),
      });
      const book = sha(await readFile(trial.stagedPath));
      await rm(trial.stagedPath);
      return {
        op: { kind: "assemble", seriesId, volume: "1" },
        contents: [
          { sha256: book, done: "library", undone: "gone" },
          ...[a, b].map((f) => ({ sha256: f.sha256, done: "bin" as const, undone: "library" as const })),
        ],
        fileIds: [a.fileId, b.fileId],
      };
    }
    case "purge": {
      const a = await publishChapter(app, seriesId, "1");
      const b = await publishChapter(app, seriesId, "2");
      const [old] = await app.services.publication.retire([a.fileId], "old");
      await app.services.publication.retire([b.fileId], "fresh");
      const longAgo = new Date(Date.now() - (config.recycleRetentionDays + 1) * 24 * 3600 * 1000);
      await app.ctx.db.recycleEntry.update({ where: { id: old?.recycleEntryId }, data: { recycledAt: longAgo } });
      return {
        op: { kind: "purge" },
        contents: [
          { sha256: a.sha256, done: "gone", undone: "bin" },
          { sha256: b.sha256, done: "bin", undone: "bin" },
        ],
        fileIds: [],
      };
    }
  }
}

function runChild(
  config: Config,
  op: CrashOp,
  step: CrashStep | null,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
      cwd: path.dirname(CHILD),
      env: {
        PATH: process.env.PATH,
        DATA_DIR: config.dataDir,
        LIBRARY_ROOT: config.libraryRoot,
        CRASH_OP: JSON.stringify(op),
        ...(step ? { [CRASH_ENV]: step } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal, stderr }));
  });
}

/** One seeded library per kind of operation (folders and database), copied for each case. */
const templates = new Map<Kind, Promise<{ dir: string; prepared: Prepared }>>();
const templateDirs: string[] = [];

const configEnv = (dir: string) => ({
  DATA_DIR: path.join(dir, "data"),
  LIBRARY_ROOT: path.join(dir, "library"),
  PORT: "0",
  DEMO_LIBRARY: "0",
  WEB_BUILD_DIR: "",
  LOG_LEVEL: "silent",
});

function configFor(dir: string): Config {
  return loadConfig(configEnv(dir));
}

function seeded(kind: Kind): Promise<{ dir: string; prepared: Prepared }> {
  let t = templates.get(kind);
  if (!t) {
    t = (async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "mls-crash-template-"));
      templateDirs.push(dir);
      mkdirSync(path.join(dir, "data"), { recursive: true });
      copyFileSync(inject("templateDb"), path.join(dir, "data", "library.db"));
      const app = await createApp(configFor(dir), { migrate: false });
      try {
        return { dir, prepared: await prepare(app, kind) };
      } finally {
        await app.close();
      }
    })();
    templates.set(kind, t);
  }
  return t;
}

/**
 * An assembly checks that its files are on disk as recorded (size and whole milliseconds of mtime),
 * so the copy keeps each file's recorded millisecond. Set mid-millisecond: `utimes` takes float
 * seconds, and copying the exact time can land one millisecond early.
 */
function keepModificationTimes(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const rel = path.relative(from, path.join(entry.parentPath, entry.name));
    const ms = Math.trunc(statSync(path.join(from, rel)).mtimeMs);
    utimesSync(path.join(to, rel), new Date(), (ms + 0.5) / 1000);
  }
}

afterAll(() => {
  for (const dir of templateDirs) rmSync(dir, { recursive: true, force: true });
});

/** Where a content is once the library has recovered. */
function whereIs(state: Awaited<ReturnType<typeof readLibraryState>>, sha256: string) {
  return state.library.some((f) => f.sha256 === sha256)
    ? "library"
    : state.bin.some((f) => f.sha256 === sha256)
      ? "bin"
      : state.staging.some((f) => f.sha256 === sha256)
        ? "staging"
        : "gone";
}

/** Runs the operation in a child killed at `step` (or not killed: null), restarts and checks. */
async function crashAndRecover(expect: ExpectStatic, kind: Kind, step: CrashStep | null, done: boolean): Promise<void> {
  const template = await seeded(kind);
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-crash-"));
  try {
    cpSync(template.dir, dir, { recursive: true });
    keepModificationTimes(template.dir, dir);
    const config = configFor(dir);
    // The operation names staged files by absolute path: the copy's, not the template's.
    const prepared: Prepared = JSON.parse(JSON.stringify(template.prepared).replaceAll(template.dir, dir)) as Prepared;

    const exit = await runChild(config, prepared.op, step);
    if (step) expect(exit, `the child must die at ${step}: ${exit.stderr}`).toMatchObject({ signal: "SIGKILL" });
    else expect(exit, exit.stderr).toMatchObject({ code: 0, signal: null });

    // What the crash left for recovery: a journal entry exactly when it died between journal and commit.
    const raw = createDb(config.databaseUrl).db;
    const pending = await raw.publicationJournal.count();
    await raw.$disconnect();
    const chained = kind === "publish-retire" || kind === "assemble";
    const midway = (step !== null && !/:(prepared|committed)$/.test(step)) || (chained && step === "publish:committed");
    expect(pending > 0, `journal entries after ${step}`).toBe(midway);

    const app = await createApp(config, { migrate: false });
    try {
      expect(await violations(app.ctx.db, config)).toEqual([]);
      const state = await readLibraryState(config);
      const where = (sha256: string) => whereIs(state, sha256);
      expect(prepared.contents.map((c) => where(c.sha256))).toEqual(
        prepared.contents.map((c) => (done ? c.done : c.undone)),
      );
      // None lost, none duplicated, nothing else appeared.
      const expected = new Map(
        prepared.contents.filter((c) => (done ? c.done : c.undone) !== "gone").map((c) => [c.sha256, 1]),
      );
      const seeded = await app.ctx.db.libraryFile.findMany({ select: { sha256: true } });
      for (const s of seeded)
        if (!prepared.contents.some((c) => c.sha256 === s.sha256) && !expected.has(s.sha256)) expected.set(s.sha256, 1);
      expect(contentCounts(state)).toEqual(expected);
      const rows = await app.ctx.db.libraryFile.findMany({ where: { id: { in: prepared.fileIds } } });
      const expectedState = kind === "restore" ? (done ? "active" : "recycled") : done ? "recycled" : "active";
      expect(rows.map((r) => r.state)).toEqual(prepared.fileIds.map(() => expectedState));
      if (kind === "publish" || chained) {
        const published = await app.ctx.db.libraryFile.count({
          where: {
            origin: { in: ["download", "assembled"] },
            kind: kind === "publish" ? "chapter" : "book",
            state: "active",
            chapter: kind === "publish" ? "9" : null,
          },
        });
        expect(published).toBe(done ? 1 : 0);
        expect(await app.ctx.db.chapterRelease.count()).toBe(done ? 1 : 0);
      }
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Case {
  kind: Kind;
  step: CrashStep | null;
  done: boolean;
}

const cases: Case[] = [
  // Control: not killed, the child finishes the whole chain (the checks tell the outcomes apart).
  { kind: "publish-retire", step: null, done: true },
  // A publication is finished by recovery from the moment its journal entry exists (the staged bytes are complete).
  ...PUBLISH_STEPS.map((step) => ({ kind: "publish" as const, step, done: step !== "publish:prepared" })),
  // A retirement is undone while nothing reached the bin, and finished from the first link on.
  ...RETIRE_STEPS.map((step) => ({ kind: "retire" as const, step, done: step !== "retire:journaled" })),
  ...RESTORE_STEPS.map((step) => ({ kind: "restore" as const, step, done: step !== "restore:journaled" })),
  // Chained: once the book committed, its chapters' retirement is always finished.
  ...PUBLISH_STEPS.map((step) => ({ kind: "publish-retire" as const, step, done: step !== "publish:prepared" })),
  ...RETIRE_STEPS.filter((s) => s !== "retire:journaled").map((step) => ({
    kind: "publish-retire" as const,
    step,
    done: true,
  })),
  ...PURGE_STEPS.map((step) => ({ kind: "purge" as const, step, done: true })),
  // A whole assembly: the same publication chain, with the book the child built itself.
  { kind: "assemble", step: null, done: true },
  ...PUBLISH_STEPS.map((step) => ({ kind: "assemble" as const, step, done: step !== "publish:prepared" })),
  ...RETIRE_STEPS.filter((s) => s !== "retire:journaled").map((step) => ({
    kind: "assemble" as const,
    step,
    done: true,
  })),
];

describe.concurrent("crash at every step, restart, check the library", () => {
  it.for(cases)("$kind killed at $step", async ({ kind, step, done }, { expect }) => {
    await crashAndRecover(expect, kind, step, done);
  });
});

/**
 * The library's disk not yet mounted when the service starts again after the crash: recovery
 * decides nothing from the missing files (before, it gave the publication up and recorded the
 * retired files missing), makes no folder, and finishes the operation once the folder is back.
 */
describe.concurrent("crash, restart with the library folder away, the folder back", () => {
  const away: Case[] = [
    { kind: "publish", step: "publish:linked", done: true },
    { kind: "retire", step: "retire:linked", done: true },
    { kind: "publish-retire", step: "retire:moved", done: true },
  ];
  it.for(away)("$kind killed at $step", async ({ kind, step }, { expect }) => {
    await killedThenStartedAway(expect, kind, step!, "50", async ({ config, prepared, app, unmounted }) => {
      const journal = () => app.ctx.db.publicationJournal.count();
      expect(await journal()).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));
      expect(await journal(), "nothing decided while the folder is away").toBeGreaterThan(0);
      expect(existsSync(config.libraryRoot)).toBe(false);
      const rows = await app.ctx.db.libraryFile.findMany({ where: { id: { in: prepared.fileIds } } });
      expect(rows.map((r) => r.state)).toEqual(prepared.fileIds.map(() => "active"));

      renameSync(unmounted, config.libraryRoot);
      for (let i = 0; i < 200 && (await journal()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await violations(app.ctx.db, config)).toEqual([]);
      const state = await readLibraryState(config);
      const where = (sha256: string) => whereIs(state, sha256);
      expect(prepared.contents.map((c) => where(c.sha256))).toEqual(prepared.contents.map((c) => c.done));
      const after = await app.ctx.db.libraryFile.findMany({ where: { id: { in: prepared.fileIds } } });
      expect(after.map((r) => r.state)).toEqual(prepared.fileIds.map(() => "recycled"));
    });
  });

  it("an operation after the folder is back finishes the waiting entries before its own work", async ({ expect }) => {
    // The instance would look again only after a minute: the operation comes first.
    await killedThenStartedAway(
      expect,
      "retire",
      "retire:linked",
      "60000",
      async ({ config, prepared, app, unmounted }) => {
        renameSync(unmounted, config.libraryRoot);
        // The operator retires the same files again: the interrupted retirement is finished first,
        // so there is nothing left to retire, and nothing is moved twice.
        await expect(app.services.publication.retire(prepared.fileIds, "again")).rejects.toMatchObject({
          code: "nothing_to_retire",
        });
        expect(await violations(app.ctx.db, config)).toEqual([]);
        const state = await readLibraryState(config);
        expect(prepared.contents.map((c) => whereIs(state, c.sha256))).toEqual(prepared.contents.map(() => "bin"));
        expect(state.bin).toHaveLength(prepared.contents.length);
      },
    );
  });
});

/**
 * The operation of `kind` in a child killed at `step`; the library folder then moved away and the
 * service started (its look for the folder every `pollMs`); `check` runs on it, the folder still away.
 */
async function killedThenStartedAway(
  expect: ExpectStatic,
  kind: Kind,
  step: CrashStep,
  pollMs: string,
  check: (run: { config: Config; prepared: Prepared; app: App; unmounted: string }) => Promise<void>,
): Promise<void> {
  const template = await seeded(kind);
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-crash-away-"));
  try {
    cpSync(template.dir, dir, { recursive: true });
    keepModificationTimes(template.dir, dir);
    const config = loadConfig({ ...configEnv(dir), DOWNLOAD_POLL_MS: pollMs });
    const prepared: Prepared = JSON.parse(JSON.stringify(template.prepared).replaceAll(template.dir, dir)) as Prepared;
    const exit = await runChild(config, prepared.op, step);
    expect(exit, exit.stderr).toMatchObject({ signal: "SIGKILL" });
    const unmounted = `${config.libraryRoot}-unmounted`;
    renameSync(config.libraryRoot, unmounted);
    const app = await createApp(config, { migrate: false });
    try {
      await check({ config, prepared, app, unmounted });
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
