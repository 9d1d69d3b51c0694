/**
 * `pnpm bench start`: how long the README's start command takes to answer once it has been set up.
 * A fresh clone of the repository (its committed HEAD) gets one `npm start` that installs and
 * builds; then each round times, in the same run and the same clone:
 *   - `npm start` (the README's command: npm, the setup checks, the built service) to the first 200
 *     from /api/health, the figure with the goal (≤ 15 s);
 *   - `node server/dist/main.js` alone (the built service without npm and the checks);
 *   - `node --import tsx server/src/main.ts` (the sources compiled at run time, as before the build);
 *   - the floor: a bare Node HTTP server answering its first request.
 * Every start is stopped with SIGTERM and must exit 0. Knobs: BENCH_ROUNDS (5), BENCH_KEEP=1.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fail, intEnv, machineLine, median, printTable, runBench, type Goal } from "./harness.ts";

const GOAL_SECONDS = 15;
const repo = path.resolve(import.meta.dirname, "..", "..");

function cleanEnv(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(npm_|pnpm_|NODE_OPTIONS$|API_KEY$|ADMIN_PASSWORD$|DATA_DIR$|LIBRARY_ROOT$)/i.test(k)) env[k] = v;
  return { ...env, PORT: String(port), HOST: "127.0.0.1" };
}

/** Starts a command, waits for a 200 from `url`, stops it with SIGTERM; the milliseconds to the 200. */
async function timeToAnswer(
  command: string,
  args: string[],
  options: { cwd: string; port: number; url: string; timeoutMs?: number },
): Promise<number> {
  const t0 = performance.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: cleanEnv(options.port),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const deadline = t0 + (options.timeoutMs ?? 120_000);
  let ms = NaN;
  while (performance.now() < deadline && child.exitCode === null) {
    const ok = await fetch(options.url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) {
      ms = performance.now() - t0;
      break;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill("SIGTERM");
  const code = await exited;
  if (Number.isNaN(ms)) fail(`${[command, ...args].join(" ")} did not answer ${options.url}:\n${output.slice(-2000)}`);
  if (code !== 0) fail(`${[command, ...args].join(" ")} exited ${code} after SIGTERM:\n${output.slice(-2000)}`);
  return ms;
}

runBench("start", async () => {
  const rounds = intEnv("BENCH_ROUNDS", 5);
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-start-"));
  const clone = path.join(dir, "clone");
  // Below the system's ephemeral range (32768–60999 on Linux), where an outgoing connection could hold it.
  const port = 20000 + Math.floor(Math.random() * 12000);
  const health = `http://127.0.0.1:${port}/api/health`;
  try {
    const c = spawnSync("git", ["clone", "--quiet", repo, clone], { encoding: "utf8" });
    if (c.status !== 0) fail(`git clone: ${c.stderr}`);
    console.log(machineLine());
    console.log(`first start (install + build + demo library) in ${clone} …`);
    const first = await timeToAnswer("npm", ["start"], { cwd: clone, port, url: health, timeoutMs: 1_200_000 });
    console.log(`first start answered after ${(first / 1000).toFixed(1)} s\n`);

    const floorScript =
      `process.on("SIGTERM", () => process.exit(0));` +
      `require("node:http").createServer((q, s) => s.end("ok")).listen(${port}, "127.0.0.1");`;
    const runs = { npm: [] as number[], node: [] as number[], tsx: [] as number[], floor: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      runs.npm.push(await timeToAnswer("npm", ["start"], { cwd: clone, port, url: health }));
      runs.node.push(
        await timeToAnswer(process.execPath, ["--enable-source-maps", "server/dist/main.js"], {
          cwd: clone,
          port,
          url: health,
        }),
      );
      runs.tsx.push(
        await timeToAnswer(process.execPath, ["--import", "tsx", "server/src/main.ts"], {
          cwd: clone,
          port,
          url: health,
        }),
      );
      runs.floor.push(
        await timeToAnswer(process.execPath, ["-e", floorScript], {
          cwd: clone,
          port,
          url: `http://127.0.0.1:${port}/`,
        }),
      );
    }
    const s = (xs: number[]) => `${(median(xs) / 1000).toFixed(2)} s`;
    const range = (xs: number[]) => `${(Math.min(...xs) / 1000).toFixed(2)}–${(Math.max(...xs) / 1000).toFixed(2)} s`;
    const floor = median(runs.floor);
    printTable(
      ["start (to the first 200)", "median", "range", "× floor"],
      [
        ["npm start (second and later starts)", s(runs.npm), range(runs.npm), (median(runs.npm) / floor).toFixed(1)],
        ["node server/dist/main.js", s(runs.node), range(runs.node), (median(runs.node) / floor).toFixed(1)],
        ["node --import tsx server/src/main.ts", s(runs.tsx), range(runs.tsx), (median(runs.tsx) / floor).toFixed(1)],
        ["floor: bare node http server", s(runs.floor), range(runs.floor), "1.0"],
      ],
    );
    console.log(`\n${rounds} rounds; ${machineLine()}`);
    return [
      {
        ok: median(runs.npm) <= GOAL_SECONDS * 1000,
        text: `npm start, second start, to /api/health: median ${s(runs.npm)} ≤ ${GOAL_SECONDS} s`,
      },
    ] satisfies Goal[];
  } finally {
    if (process.env.BENCH_KEEP === "1") console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
});
