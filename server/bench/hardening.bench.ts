/**
 * `pnpm bench hardening`: the figures of the hardening work, on the real app over loopback.
 *
 * 1. Login cost: one failed login (the admin, and an unknown user) against the native scrypt of the
 *    same parameters (`openssl kdf … SCRYPT`, N=16384, r=8, p=1, 32 bytes; its process start-up
 *    included). Goal: an unknown user costs the same as the admin (ratio within 0.8–1.25).
 * 2. The event loop under a login flood: /api/health latency while 40 wrong logins (from 40
 *    loopback addresses, so the throttle does not cut them short) are in flight, against the same
 *    health check at rest. Goal: p95 under the flood below 100 ms (a synchronous scrypt of ~40 ms
 *    per login queued every health check behind the flood).
 * 3. The alias flood: one document of 10,000 aliases of `seriesList`, refused; against a plain
 *    `{ seriesList { id } }`. Goals: refused within 2 s; RSS (sampled every 5 ms) grows less than
 *    64 MB over 20 floods.
 * 4. A 50 MB chunked body: refused at 4 MiB. Goal: RSS grows less than 64 MB over 5 of them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { API_KEY, startBenchApp } from "./app.ts";
import {
  fail,
  machineLine,
  median,
  ms,
  percentile,
  printTable,
  requireTools,
  runBench,
  timeCommand,
  type Goal,
} from "./harness.ts";

const OPENSSL = { command: "openssl", pkg: "openssl" };

function request(
  port: number,
  options: { method: string; path: string; body?: string; headers?: Record<string, string>; localAddress?: string },
): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: options.path,
        method: options.method,
        localAddress: options.localAddress,
        headers: {
          ...(options.body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(options.body) }),
          ...options.headers,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const ADMIN_PASSWORD = "the bench's admin password";

const login = (port: number, username: string, localAddress: string, password = "not the password") =>
  request(port, {
    method: "POST",
    path: "/api/session",
    body: JSON.stringify({ username, password }),
    localAddress,
  });

/** The answer, after checking its status (a figure of refused requests would measure the wrong thing). */
async function expectStatus<T extends { status: number }>(answer: Promise<T>, status: number): Promise<T> {
  const a = await answer;
  if (a.status !== status) throw new Error(`expected ${status}, got ${a.status}`);
  return a;
}

/** A chunked body of `total` bytes, stopped at the answer. */
function chunked(port: number, total: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, " ");
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/api/manga",
        method: "POST",
        headers: { "x-api-key": API_KEY, "content-type": "application/json", "transfer-encoding": "chunked" },
      },
      (res) => {
        answered = true;
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", (e) => {
      if (!answered) reject(e);
    });
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** Samples this process's RSS (the service runs in it) every 5 ms until stopped; answers the growth in MB. */
function watchRss(): () => number {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  return () => {
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    return (peak - base) / 1024 / 1024;
  };
}

async function main(): Promise<Goal[]> {
  requireTools([OPENSSL]);
  console.log(machineLine());
  const dir = await mkdtemp(path.join(os.tmpdir(), "mls-bench-hardening-"));
  const app = await startBenchApp(dir, { ADMIN_PASSWORD: ADMIN_PASSWORD });
  try {
    const port = await app.listen();
    const goals: Goal[] = [];

    // 1. Login cost vs native scrypt. Each attempt from its own address: no throttle in the way.
    const known: number[] = [];
    const unknown: number[] = [];
    const native: number[] = [];
    for (let i = 0; i < 31; i++) {
      // Interleaved, so that the machine's load weighs on both alike.
      // The admin's own throttle locks after ten failures and then answers 429 without a check: a
      // good login (untimed) every five attempts forgets them, so every timed attempt is a real check.
      if (i % 5 === 4) await expectStatus(login(port, "admin", `127.0.4.${i + 1}`, ADMIN_PASSWORD), 204);
      known.push((await expectStatus(login(port, "admin", `127.0.1.${i + 1}`), 401)).ms);
      unknown.push((await expectStatus(login(port, `nobody${i}`, `127.0.2.${i + 1}`), 401)).ms);
      native.push(
        (
          await timeCommand("openssl", [
            "kdf",
            "-keylen",
            "32",
            "-kdfopt",
            "pass:not the password",
            "-kdfopt",
            "salt:0123456789abcdef",
            "-kdfopt",
            "n:16384",
            "-kdfopt",
            "r:8",
            "-kdfopt",
            "p:1",
            "SCRYPT",
          ])
        ).ms,
      );
    }
    const equal = median(unknown) / median(known);
    printTable(
      ["login check (median of 31)", "ms", "vs openssl"],
      [
        ["admin, wrong password", median(known).toFixed(1), (median(known) / median(native)).toFixed(2)],
        ["unknown user", median(unknown).toFixed(1), (median(unknown) / median(native)).toFixed(2)],
        ["openssl kdf SCRYPT (process)", median(native).toFixed(1), "1.00"],
      ],
    );
    goals.push({ ok: equal >= 0.8 && equal <= 1.25, text: `unknown user / admin = ${equal.toFixed(2)} (0.8–1.25)` });

    // 2. Health latency at rest, then under a flood of 40 logins from 40 addresses.
    const rest: number[] = [];
    for (let i = 0; i < 40; i++) rest.push((await request(port, { method: "GET", path: "/api/health" })).ms);
    const flood = Array.from({ length: 40 }, (_, i) => login(port, `flood${i}`, `127.0.3.${i + 1}`));
    const during: number[] = [];
    let pending = true;
    void Promise.all(flood).then(() => (pending = false));
    while (pending || during.length < 10) during.push((await request(port, { method: "GET", path: "/api/health" })).ms);
    await Promise.all(flood);
    printTable(
      ["/api/health", "p50", "p95", "samples"],
      [
        ["at rest", ms(median(rest)), ms(percentile(rest, 95)), rest.length],
        ["under 40 logins", ms(median(during)), ms(percentile(during, 95)), during.length],
      ],
    );
    goals.push({
      ok: percentile(during, 95) < 100,
      text: `health p95 under a login flood ${ms(percentile(during, 95))} (< 100 ms)`,
    });

    // 3. The alias flood against a plain query.
    const flooded = JSON.stringify({
      query: `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: seriesList { id title }`).join(" ")} }`,
    });
    const plain = JSON.stringify({ query: "{ seriesList { id } }" });
    const gql = (body: string) =>
      request(port, { method: "POST", path: "/graphql", body, headers: { "x-api-key": API_KEY } });
    const stopFloodWatch = watchRss();
    const floods: number[] = [];
    const plains: number[] = [];
    for (let i = 0; i < 20; i++) {
      const f = await gql(flooded);
      if (f.status !== 400) fail(`the alias flood answered ${f.status}`);
      floods.push(f.ms);
      plains.push((await gql(plain)).ms);
    }
    const floodGrowth = stopFloodWatch();
    printTable(
      ["GraphQL (median of 20)", "ms", "ratio"],
      [
        [
          `10,000 aliases (${(flooded.length / 1024).toFixed(0)} KiB), refused`,
          median(floods).toFixed(1),
          (median(floods) / median(plains)).toFixed(1),
        ],
        ["{ seriesList { id } }", median(plains).toFixed(1), "1.0"],
      ],
    );
    goals.push({
      ok: Math.max(...floods) < 2000,
      text: `alias flood refused in at most ${ms(Math.max(...floods))} (< 2 s)`,
    });
    goals.push({ ok: floodGrowth < 64, text: `peak RSS growth over 20 floods ${floodGrowth.toFixed(1)} MB (< 64 MB)` });

    // 4. 50 MB chunked bodies.
    const stopBodyWatch = watchRss();
    const bodyMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const status = await chunked(port, 50 * 1024 * 1024);
      if (status !== 413) fail(`the 50 MB body answered ${status}`);
      bodyMs.push(performance.now() - t0);
    }
    const bodyGrowth = stopBodyWatch();
    console.log(
      `50 MB chunked body: refused (413) in ${ms(median(bodyMs))} (median of 5); peak RSS growth ${bodyGrowth.toFixed(1)} MB`,
    );
    goals.push({
      ok: bodyGrowth < 64,
      text: `peak RSS growth over 5 bodies of 50 MB ${bodyGrowth.toFixed(1)} MB (< 64 MB)`,
    });
    return goals;
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runBench("hardening", main);
