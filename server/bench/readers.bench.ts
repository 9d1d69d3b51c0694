/**
 * `pnpm bench readers`: the reader apps' two hot paths, against native tools in the same run.
 *
 * (a) OPDS-PSE page serving. A 20-page CBZ of realistic pages (pages.ts, stored entries) is scanned
 *     into the real app. Each round asks for one page in three ways, interleaved, order rotated:
 *     - ours: GET /opds/v1.2/files/{id}/pages/{n} over a keep-alive loopback socket (the hardened
 *       reader: directory, local header, CRC, image header; then the reader's place is stored);
 *     - native: `unzip -p book.cbz pageNNN.jpg`, spawned, timed to its first stdout byte (a static
 *       read of the entry from the archive);
 *     - information: a static file server (node:http + fs stream) serving the same page extracted
 *       beforehand, on the same loopback, timed to the first byte.
 *     Figure: time to the first body byte, medians. Goal: ours ≤ 2 × the static read by unzip.
 * (b) OPDS 1.2 acquisition feed of a 2,000-chapter series (the units benchmark's fixture: 150 books,
 *     120 owned, 580 active files): GET /opds/v1.2/series/{id}, full body, medians, its statement
 *     count (equal to the 10-chapter series'), and GET /api/manga/{id}/units on the same series as
 *     the reference of the same data. Information only (no goal is set for it).
 *
 * Knobs: BENCH_READERS_ROUNDS (60), BENCH_READERS_FEED_REQUESTS (30), BENCH_TMP.
 */
import { spawn } from "node:child_process";
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { API_KEY, startBenchApp } from "./app.ts";
import { pageName, writeCbz } from "./cbz.ts";
import { LARGE, SMALL, seedSeries } from "./fixture.ts";
import {
  BenchError,
  intEnv,
  machineLine,
  median,
  ms,
  printTable,
  requireTools,
  runBench,
  TOOLS,
  toolVersion,
  type Goal,
} from "./harness.ts";
import { makePages, pageSizeReport } from "./pages.ts";

const ROUNDS = intEnv("BENCH_READERS_ROUNDS", 60);
const FEED_REQUESTS = intEnv("BENCH_READERS_FEED_REQUESTS", 30);
const PAGES = 20;

/** One GET; resolves with the time to the first body byte, the full time and the body. */
function timedGet(
  agent: http.Agent,
  port: number,
  pathname: string,
): Promise<{ first: number; total: number; status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = -1;
    const req = http.request(
      { host: "127.0.0.1", port, path: pathname, agent, headers: { "x-api-key": API_KEY } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => {
          if (first < 0) first = performance.now() - t0;
          chunks.push(c);
        });
        res.on("end", () =>
          resolve({ first, total: performance.now() - t0, status: res.statusCode ?? 0, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** `unzip -p` of one entry, timed from spawn to its first stdout byte (and to exit). */
function unzipFirstByte(cbz: string, entry: string): Promise<{ first: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = -1;
    let bytes = 0;
    const child = spawn("unzip", ["-p", cbz, entry], { stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", (c: Buffer) => {
      if (first < 0) first = performance.now() - t0;
      bytes += c.length;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve({ first, bytes }) : reject(new BenchError(`unzip exited ${code}`)),
    );
  });
}

async function post(port: number, pathname: string, body: unknown): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}${pathname}`, {
    method: "POST",
    headers: { "x-api-key": API_KEY, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new BenchError(`POST ${pathname}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function main(): Promise<Goal[]> {
  requireTools([TOOLS.unzip]);
  console.log(`readers bench — ${machineLine()}`);
  console.log(`unzip: ${toolVersion("unzip", ["-v"]).split("\n")[0]}`);
  const dir = mkdtempSync(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "mls-bench-readers-"));
  const app = await startBenchApp(dir);
  const port = await app.listen();
  let agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let staticServer: http.Server | undefined;
  try {
    // ---- (a) page serving ----
    const pages = await makePages(1, PAGES);
    console.log(`pages: ${pageSizeReport(pages)}`);
    const series = (await post(port, "/api/manga", { title: "Bench Pages" })) as { id: number; folder: string };
    const seriesDir = path.join(app.ctx.config.libraryRoot, series.folder);
    await mkdir(seriesDir, { recursive: true });
    const cbz = path.join(seriesDir, "Bench Pages v01.cbz");
    await writeCbz(cbz, pages);
    await post(port, "/api/library/scan", {});
    const file = await app.ctx.db.libraryFile.findFirstOrThrow({ where: { seriesId: series.id, state: "active" } });
    const extracted = path.join(dir, "extracted");
    await mkdir(extracted);
    for (const [i, p] of pages.entries()) await writeFile(path.join(extracted, pageName(i)), p);
    staticServer = http.createServer((req, res) => {
      const name = path.basename(req.url ?? "");
      const i = pages.findIndex((_, k) => pageName(k) === name);
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": String(pages[i]!.length) });
      createReadStream(path.join(extracted, name)).pipe(res);
    });
    await new Promise<void>((r) => staticServer!.listen(0, "127.0.0.1", r));
    const staticPort = (staticServer.address() as { port: number }).port;
    const staticAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

    // Correctness first: every page byte-identical through both servers and unzip.
    for (let i = 0; i < PAGES; i++) {
      const ours = await timedGet(agent, port, `/opds/v1.2/files/${file.id}/pages/${i}`);
      if (ours.status !== 200 || !ours.body.equals(pages[i]!))
        throw new BenchError(`page ${i}: ${ours.status}, not the entry's bytes`);
      const st = await timedGet(staticAgent, staticPort, `/${pageName(i)}`);
      if (!st.body.equals(pages[i]!)) throw new BenchError(`static page ${i} differs`);
      const uz = await unzipFirstByte(cbz, pageName(i));
      if (uz.bytes !== pages[i]!.length) throw new BenchError(`unzip page ${i}: ${uz.bytes} bytes`);
    }
    const oursT: number[] = [];
    const unzipT: number[] = [];
    const staticT: number[] = [];
    const oursTotal: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const i = r % PAGES;
      const runs = [
        async () => {
          const x = await timedGet(agent, port, `/opds/v1.2/files/${file.id}/pages/${i}`);
          oursT.push(x.first);
          oursTotal.push(x.total);
        },
        async () => unzipT.push((await unzipFirstByte(cbz, pageName(i))).first),
        async () => staticT.push((await timedGet(staticAgent, staticPort, `/${pageName(i)}`)).first),
      ];
      for (let k = 0; k < runs.length; k++) await runs[(k + r) % runs.length]!();
    }
    staticAgent.destroy();
    const ratio = median(oursT) / median(unzipT);
    console.log("\n(a) one page, time to the first body byte (medians)");
    printTable(
      ["path", "median", "p10", "p90", "× unzip -p"],
      [
        [
          "ours: GET /opds/v1.2/files/{id}/pages/{n}",
          ms(median(oursT)),
          ms(pct(oursT, 10)),
          ms(pct(oursT, 90)),
          ratio.toFixed(2),
        ],
        ["  (ours, whole body)", ms(median(oursTotal)), ms(pct(oursTotal, 10)), ms(pct(oursTotal, 90)), ""],
        ["native: unzip -p book.cbz pageNNN.jpg", ms(median(unzipT)), ms(pct(unzipT, 10)), ms(pct(unzipT, 90)), "1.00"],
        [
          "static server, extracted page (information)",
          ms(median(staticT)),
          ms(pct(staticT, 10)),
          ms(pct(staticT, 90)),
          (median(staticT) / median(unzipT)).toFixed(2),
        ],
      ],
    );
    console.log(`ours ÷ static server: ${(median(oursT) / median(staticT)).toFixed(2)}`);

    // ---- (b) the feed of a 2,000-chapter series ----
    const large = await seedSeries(app.ctx.db, LARGE);
    const small = await seedSeries(app.ctx.db, SMALL);
    // Seeding outlasts the server's keep-alive timeout: a fresh socket for this part.
    agent.destroy();
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const feedOf = (id: number) => `/opds/v1.2/series/${id}`;
    const warm = await timedGet(agent, port, feedOf(large));
    if (warm.status !== 200) throw new BenchError(`feed: ${warm.status} ${warm.body.toString().slice(0, 300)}`);
    const entries = (warm.body.toString().match(/<entry>/g) ?? []).length;
    const statements = async (id: number) => {
      app.ctx.queries.reset();
      await timedGet(agent, port, feedOf(id));
      return app.ctx.queries.count;
    };
    const [nLarge, nSmall] = [await statements(large), await statements(small)];
    const feedT: number[] = [];
    const unitsT: number[] = [];
    for (let r = 0; r < FEED_REQUESTS; r++) {
      feedT.push((await timedGet(agent, port, feedOf(large))).total);
      unitsT.push((await timedGet(agent, port, `/api/manga/${large}/units`)).total);
    }
    console.log(
      `\n(b) OPDS 1.2 feed of the 2,000-chapter series: ${entries} entries, ${(warm.body.length / 1024).toFixed(0)} KiB`,
    );
    printTable(
      ["request", "median", "p90"],
      [
        ["GET /opds/v1.2/series/{id}", ms(median(feedT)), ms(pct(feedT, 90))],
        ["GET /api/manga/{id}/units (same series)", ms(median(unitsT)), ms(pct(unitsT, 90))],
      ],
    );
    console.log(`statements per feed: ${nLarge} (2,000 chapters), ${nSmall} (10 chapters)`);
    return [
      {
        ok: ratio <= 2,
        text: `PSE page, first byte: ours ${ms(median(oursT))} ≤ 2 × unzip -p ${ms(median(unzipT))} (ratio ${ratio.toFixed(2)})`,
      },
      { ok: nLarge === nSmall, text: `feed statements equal for 2,000 and 10 chapters (${nLarge} = ${nSmall})` },
    ];
  } finally {
    agent.destroy();
    await new Promise<void>((r) => (staticServer ? staticServer.close(() => r()) : r()));
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

runBench("readers", main);
