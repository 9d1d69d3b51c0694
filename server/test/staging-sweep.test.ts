/**
 * The start-up sweep of staging. The reproduction: a process is killed (SIGKILL) after an
 * assembly was built in `.staging/assembly` but before its publication; on the next start the
 * staged archive is removed (it stayed for ever before), the library is exactly as it was (the
 * chapters stay, no book appears) and the assembly can simply be run again. A staged file that an
 * unfinished journal entry names is finished by recovery, never swept; the areas whose owners resume
 * from them (downloads, translations) are left to them.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { stateDirs, type Config } from "../src/config.ts";
import { publicationRepo } from "../src/repositories/publication-repo.ts";
import { CRASH_ENV } from "../src/library/publication.ts";
import {
  createSeriesWithFiles,
  downloadedChapter,
  expectJson,
  scanLibrary,
  stageCbz,
  type RestUnits,
} from "./fixtures.ts";
import { createTestApp, TEST_API_KEY } from "./utils.ts";
import { createHash } from "node:crypto";

const CHILD = path.join(import.meta.dirname, "crash", "child.ts");

/** The real assembly in a child process that kills itself at `step`. */
function assembleAndDie(config: Config, seriesId: number, step: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
      cwd: path.dirname(CHILD),
      env: {
        PATH: process.env.PATH,
        DATA_DIR: config.dataDir,
        LIBRARY_ROOT: config.libraryRoot,
        CRASH_OP: JSON.stringify({ kind: "assemble", seriesId, volume: "1" }),
        [CRASH_ENV]: step,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => resolve(signal));
  });
}

const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)],
      )
    : [];

describe("start-up sweep of staging", () => {
  it("removes the archive of an assembly killed before its publication; the library is unchanged; it can run again", async () => {
    const app = await createTestApp();
    const config = app.config;
    const staging = stateDirs(config).staging;
    try {
      const s = await createSeriesWithFiles(app, "Swept", { books: [], chapters: [1, 2] });
      await scanLibrary(app);
      await expectJson(
        await app.api(`/api/manga/${s.id}/chapter-map`, {
          method: "PUT",
          json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2"] }] },
        }),
        200,
      );
      const before = await app.ctx.db.libraryFile.findMany({ orderBy: { id: "asc" } });
      // What the translation jobs keep across a restart, and a leftover of an interrupted torrent import.
      const keptTranslation = path.join(staging, "translations", "incoming", "source.cbz");
      const leftover = path.join(staging, "torrents", "9-0123456789ab.cbz");
      for (const f of [keptTranslation, leftover]) {
        mkdirSync(path.dirname(f), { recursive: true });
        writeFileSync(f, "bytes");
      }
      await app.close();

      // kill -9 once the book is built and fsynced, before the journal takes it.
      expect(await assembleAndDie(config, s.id, "publish:prepared")).toBe("SIGKILL");
      const staged = filesUnder(path.join(staging, "assembly"));
      expect(staged).toHaveLength(1);
      expect(staged[0]).toMatch(/\.cbz$/);

      const again = await createApp(config, { migrate: false });
      try {
        const port = await again.listen();
        const api = (p: string, init: RequestInit = {}) =>
          fetch(`http://127.0.0.1:${port}${p}`, {
            ...init,
            headers: { "x-api-key": TEST_API_KEY, "content-type": "application/json" },
          });
        expect(filesUnder(path.join(staging, "assembly"))).toEqual([]);
        expect(existsSync(leftover)).toBe(false);
        expect(existsSync(keptTranslation)).toBe(true);
        // The library is what it was: the same rows, both chapters active, no book.
        expect(await again.ctx.db.libraryFile.findMany({ orderBy: { id: "asc" } })).toEqual(before);
        expect(await again.ctx.db.publicationJournal.count()).toBe(0);
        const units = await expectJson<RestUnits>(await api(`/api/manga/${s.id}/units`), 200);
        expect(units.units.filter((u) => u.owned).map((u) => [u.kind, u.number])).toEqual([
          ["chapter", "1"],
          ["chapter", "2"],
        ]);

        // And the assembly simply runs again.
        const preview = await expectJson<{ confirmation: string }>(
          await api(`/api/manga/${s.id}/volumes/1/assemble?dry_run=true`, { method: "POST", body: "{}" }),
          200,
        );
        const done = await api(`/api/manga/${s.id}/volumes/1/assemble?dry_run=false`, {
          method: "POST",
          body: JSON.stringify({ confirmation: preview.confirmation }),
        });
        expect(done.status).toBe(200);
        expect(filesUnder(path.join(staging, "assembly"))).toEqual([]);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(app.dir, { recursive: true, force: true });
    }
  });

  it("never sweeps a staged file an unfinished journal entry names: recovery publishes it", async () => {
    const app = await createTestApp();
    const config = app.config;
    try {
      const s = await expectJson<{ id: number; folder: string }>(
        await app.api("/api/manga", { method: "POST", json: { title: "Journalled" } }),
        201,
      );
      const pending = await stageCbz(config, "assembly/pending.cbz", 5);
      await publicationRepo(app.ctx.db).beginJournal("publish", "placing", {
        v: 1,
        seriesId: s.id,
        staged: "assembly/pending.cbz",
        requested: `${s.folder}/Journalled - c001.cbz`,
        target: `${s.folder}/Journalled - c001.cbz`,
        sha256: createHash("sha256").update(pending.bytes).digest("hex"),
        size: pending.bytes.length,
        file: downloadedChapter("1", 5),
        release: null,
        retireAfter: null,
      });
      const orphan = await stageCbz(config, "assembly/orphan.cbz", 3);
      await app.close();

      const again = await createApp(config, { migrate: false });
      try {
        expect(existsSync(orphan.path)).toBe(false);
        expect(existsSync(pending.path)).toBe(false);
        const published = await again.ctx.db.libraryFile.findMany({ where: { seriesId: s.id } });
        expect(published.map((f) => [f.path, f.state])).toEqual([[`${s.folder}/Journalled - c001.cbz`, "active"]]);
        expect(existsSync(path.join(config.libraryRoot, s.folder, "Journalled - c001.cbz"))).toBe(true);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(app.dir, { recursive: true, force: true });
    }
  });
});
