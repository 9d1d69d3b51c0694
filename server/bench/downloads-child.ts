/**
 * The child of `pnpm bench downloads`: the whole pipeline through the real app, fetching from the
 * page server's process, in a process of its own so that its peak RSS holds only what downloads
 * load (not the page generator, not the page server, not the judgement-only phase). Prints one
 * JSON line.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { migrateDatabase } from "../src/db/migrate.ts";
import { applyRuntimeSettings } from "../src/runtime-settings.ts";
import { benchProvider, PAGES } from "./downloads-shared.ts";

export interface ChildResult {
  ms: number;
  published: number;
  /** VmHWM once the app is up, before the run, and at the end (KB). */
  baselineKb: number;
  hwmKb: number;
  /** CPU time of the whole process (every thread: libvips', libuv's) over the run, in ms. */
  cpuMs: number;
}

async function vmHwmKb(): Promise<number> {
  const m = /VmHWM:\s+(\d+) kB/.exec(await readFile("/proc/self/status", "utf8"));
  return m ? Number(m[1]) : NaN;
}

const [pagesUrl, workDir, chaptersText] = process.argv.slice(2);
if (!pagesUrl || !workDir || !chaptersText)
  throw new Error("usage: downloads-child.ts <page server URL> <work dir> <chapters>");
const CHAPTERS = Number(chaptersText);
// As the service's main does.
applyRuntimeSettings();
const config = loadConfig({
  DATA_DIR: path.join(workDir, "data"),
  LIBRARY_ROOT: path.join(workDir, "library"),
  PORT: "0",
  HOST: "127.0.0.1",
  API_KEY: "bench-api-key-0123456789",
  DEMO_LIBRARY: "0",
  WEB_BUILD_DIR: "",
  LOG_LEVEL: "silent",
  DOWNLOAD_POLL_MS: "20",
  WANTED_MAX_DOWNLOADS: String(CHAPTERS),
});
await migrateDatabase(config.databaseUrl);
const app = await createApp(config, { migrate: false, seedDemo: false });
try {
  const provider = benchProvider(pagesUrl);
  app.services.downloadPipeline.useLookup({
    forMapping: async (id) => ({
      provider,
      mapping: { id, seriesId: 1, providerId: 1, sourceId: "bench", language: "en" },
    }),
  });
  const series = await app.services.series.create({ title: "Bench Downloads" });
  const db = app.ctx.db;
  const p = await db.provider.create({ data: { name: "bench", kind: "drop_folder" } });
  const m = await db.sourceMapping.create({
    data: { seriesId: series.id, providerId: p.id, sourceId: "bench", language: "en" },
  });
  await db.offer.createMany({
    data: Array.from({ length: CHAPTERS }, (_, c) => ({
      seriesId: series.id,
      sourceMappingId: m.id,
      kind: "chapter",
      chapter: String(c + 1),
      language: "en",
      externalId: String(c),
      pageCount: PAGES,
    })),
  });
  const baselineKb = await vmHwmKb();
  const t1 = performance.now();
  const cpu0 = process.cpuUsage();
  const pass = await app.services.wanted.runPass(series.id, { force: true });
  if (pass.queued !== CHAPTERS) throw new Error(`the pass queued ${pass.queued} of ${CHAPTERS}`);
  for (;;) {
    const left = await db.download.count({
      where: { seriesId: series.id, state: { notIn: ["published", "degraded", "failed", "cancelled"] } },
    });
    if (left === 0) break;
    // Every 100 ms: the count runs in the measured process (every 10 ms it took about 6 % of its
    // main thread on this machine).
    await new Promise((r) => setTimeout(r, 100));
  }
  const ms = performance.now() - t1;
  const cpu = process.cpuUsage(cpu0);
  const published = await db.download.count({ where: { seriesId: series.id, state: "published" } });
  const result: ChildResult = {
    ms,
    published,
    baselineKb,
    hwmKb: await vmHwmKb(),
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
  console.log(JSON.stringify(result));
} finally {
  await app.close();
}
