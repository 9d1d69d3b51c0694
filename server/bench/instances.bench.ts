/**
 * `pnpm bench instances`: the built service (server/dist/main.js) as separate processes on one
 * PostgreSQL database and one Redis (throwaway servers on loopback ports), with the demo library.
 * The instances run with the environment and Node flags of `npm start` (harness.ts serviceStart).
 *
 * 1. Mixed reads — units, the GraphQL series page and the first audit page of every demo series,
 *    in turn — from CONCURRENCY keep-alive clients for DURATION_S seconds, first against one
 *    instance, then spread over two: throughput, p99 and errors. The load generator shares the
 *    machine's cores with the instances, as the database does.
 * 2. SUBSCRIBERS graphql-ws clients, half on each of two freshly started instances, subscribed to
 *    `libraryEvents`; a burst of BURST series changes through A. The clients live in a process of
 *    their own (subscribers-child.ts) and stamp each delivery first thing on arrival; its delay is
 *    that minus the event's `at` (one clock). The CPU time of every process over the burst and the
 *    clients' event-loop utilisation say where the machine's time went and whether the clients
 *    kept up. Memory per subscriber: the growth of the instances' resident memory (VmRSS) from
 *    before the subscribers connected to once all of them subscribed, divided by their number.
 *
 * Knobs: BENCH_SKIP_READS=1 (subscribers only), BENCH_SUBSCRIBERS, BENCH_BURST, BENCH_BURST_GAP_MS,
 * BENCH_VERBOSE=1 (per event: the Redis hop, the first and last send in each instance — delivery-probe.mjs —
 * and the first and last arrival), BENCH_CPU_PROF=dir (V8 CPU profiles of
 * the instances), BENCH_INSTANCE_FLAGS / BENCH_CLIENT_FLAGS (more Node flags, e.g. --trace-gc).
 * Goals: 0 errors; p99 delivery < 250 ms. Throughput is reported (two instances against one), not a goal.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  INSTANCE_API_KEY,
  SERVICE_ENTRY,
  startInstance,
  startRedis,
  type Instance,
  type RedisServer,
} from "../test/instances.ts";
import { startPostgres, type PostgresCluster } from "../test/postgres.ts";
import {
  fail,
  intEnv,
  machineLine,
  median,
  ms,
  percentile,
  printTable,
  runBench,
  serviceStart,
  type Goal,
} from "./harness.ts";
import type { FromChild, ToChild } from "./subscribers-child.ts";

const CONCURRENCY = intEnv("BENCH_CONCURRENCY", 16);
const DURATION_S = intEnv("BENCH_DURATION_S", 15);
const SUBSCRIBERS = intEnv("BENCH_SUBSCRIBERS", 1000);
const BURST = intEnv("BENCH_BURST", 20);
/** Pause between two changes of the burst; 0: the next change is sent once the previous one answered. */
const BURST_GAP_MS = Number(process.env.BENCH_BURST_GAP_MS ?? 0);
/** `BENCH_CLIENT=graphql-ws`: the measuring subscribers use the graphql-ws client library (default: the protocol by hand). */
const CLIENT: "graphql-ws" | "protocol" = process.env.BENCH_CLIENT === "graphql-ws" ? "graphql-ws" : "protocol";
/** `BENCH_SKIP_READS=1`: only the subscribers. */
const SKIP_READS = process.env.BENCH_SKIP_READS === "1";
/** `BENCH_VERBOSE=1`: per event, where its delay went (delivery-probe.mjs in the instances). */
const VERBOSE = process.env.BENCH_VERBOSE === "1";
/** `BENCH_CPU_PROF=dir`: the instances write V8 CPU profiles there (where the delivery time goes). */
const CPU_PROF = process.env.BENCH_CPU_PROF;
/** `BENCH_INSTANCE_FLAGS="--trace-gc …"`: more Node flags for the instances (diagnostics). */
const EXTRA_FLAGS = (process.env.BENCH_INSTANCE_FLAGS ?? "").split(" ").filter(Boolean);
/** The instances run with the environment and Node flags of `npm start`. */
const start = serviceStart();
const nodeArgs = (name: string) => [
  ...start.nodeArgs,
  ...EXTRA_FLAGS,
  ...(CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=instance-${name}.cpuprofile`] : []),
];
const DELIVERY_P99_GOAL_MS = 250;
const SERIES_PAGE =
  "query($id: Int!) { seriesPage(seriesId: $id) { seriesId form map layout groups { key book { key number planText } children { key number } } sections { key rows { key number } } } }";

interface Req {
  method: "GET" | "POST";
  path: string;
  body?: string;
}

function request(agent: http.Agent, base: URL, r: Req): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: r.path,
        method: r.method,
        agent,
        headers: { "x-api-key": INSTANCE_API_KEY, ...(r.body ? { "content-type": "application/json" } : {}) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(r.body);
  });
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);

interface ProbeEvent {
  redis: number | null;
  first: number | null;
  last: number | null;
  sends: number;
}

const readProbe = (file: string) => {
  try {
    return new Map(JSON.parse(readFileSync(file, "utf8")) as [string, ProbeEvent][]);
  } catch {
    return new Map<string, ProbeEvent>();
  }
};

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** CPU time (user + system) a process has used so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** CPU time every core of the machine spent busy so far (everyone's work), in ms. */
function machineBusyMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] as string;
  const t = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (t[3] ?? 0) + (t[4] ?? 0);
  return (t.reduce((x, y) => x + y, 0) - idle) * TICK_MS;
}

/** The measuring clients' process (subscribers-child.ts), spoken to over IPC. */
function clientProcess() {
  const script = path.join(import.meta.dirname, "subscribers-child.ts");
  const flags = (process.env.BENCH_CLIENT_FLAGS ?? "").split(" ").filter(Boolean);
  const proc = spawn(process.execPath, [...flags, "--import", import.meta.resolve("tsx"), script], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const ask = <T extends FromChild["type"]>(m: ToChild, answer: T, timeoutMs: number) =>
    new Promise<Extract<FromChild, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the client process did not answer ${answer}`)), timeoutMs);
      const onMessage = (r: FromChild) => {
        if (r.type !== answer && r.type !== "failed") return;
        clearTimeout(timer);
        proc.off("message", onMessage);
        if (r.type === "failed") reject(new Error(r.message));
        else resolve(r as Extract<FromChild, { type: T }>);
      };
      proc.on("message", onMessage);
      proc.send(m);
    });
  return {
    pid: proc.pid as number,
    ask,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.send({ type: "stop" } satisfies ToChild);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    },
  };
}

/**
 * SUBSCRIBERS clients (in their own process), half on each instance, then BURST changes of one
 * series through A. Memory is measured before they connect and once all subscribed; CPU time of
 * each process over the burst says where the machine's time went.
 */
async function subscribers([a, b]: [Instance, Instance], seriesId: number, redis: RedisServer) {
  await new Promise((r) => setTimeout(r, 3000));
  const rssBefore = [a, b].map((i) => rssKb(i.proc.pid as number));
  const client = clientProcess();
  try {
    await client.ask(
      {
        type: "start",
        bases: [a.base, b.base],
        subscribers: SUBSCRIBERS,
        query: "subscription { libraryEvents { kind at } }",
        client: CLIENT,
      },
      "connected",
      70_000,
    );
    await new Promise((r) => setTimeout(r, 2000)); // the subscriptions registered on the servers
    const rssAfter = [a, b].map((i) => rssKb(i.proc.pid as number));
    const expected = SUBSCRIBERS * BURST;
    const pids: [string, number][] = [
      ["A", a.proc.pid as number],
      ["B", b.proc.pid as number],
      ["clients", client.pid],
      ["Redis", redis.pid],
    ];
    const cpu0 = pids.map(([, pid]) => cpuMs(pid));
    const self0 = process.cpuUsage();
    const machine0 = machineBusyMs();
    const collected = client.ask({ type: "collect", expected, timeoutMs: 30_000 }, "collected", 40_000);
    const t0 = performance.now();
    for (let k = 0; k < BURST; k++) {
      const res = await a.api(`/api/manga/${seriesId}`, {
        method: "PATCH",
        body: JSON.stringify({ monitored: k % 2 === 0 }),
      });
      if (res.status !== 200) fail(`PATCH answered ${res.status}: ${await res.text()}`);
      if (BURST_GAP_MS > 0) await new Promise((r) => setTimeout(r, BURST_GAP_MS));
    }
    const got = await collected;
    const burstMs = performance.now() - t0;
    const ours = pids.map(([who, pid], k) => [who, cpuMs(pid) - (cpu0[k] as number)] as [string, number]);
    const self = process.cpuUsage(self0);
    ours.push(["bench driver", (self.user + self.system) / 1000]);
    const rest = machineBusyMs() - machine0 - ours.reduce((x, [, t]) => x + t, 0);
    return {
      rssBefore,
      rssAfter,
      got,
      expected,
      burstMs,
      cpu: [...ours, ["the rest of the machine (PostgreSQL, other users)", rest] as [string, number]],
    };
  } finally {
    await client.stop();
  }
}

async function mixedLoad(instances: Instance[], reqs: Req[]) {
  const latencies: number[] = [];
  let errors = 0;
  const agents = instances.map(() => new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }));
  const bases = instances.map((i) => new URL(i.base));
  const end = performance.now() + DURATION_S * 1000;
  let next = 0;
  const worker = async (w: number) => {
    for (let k = 0; performance.now() < end; k++) {
      const r = reqs[next++ % reqs.length] as Req;
      const target = (w + k) % instances.length;
      const t = performance.now();
      try {
        const status = await request(agents[target] as http.Agent, bases[target] as URL, r);
        if (status !== 200) errors += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - t);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const seconds = (performance.now() - t0) / 1000;
  for (const a of agents) a.destroy();
  return { requests: latencies.length, perSecond: latencies.length / seconds, latencies, errors };
}

async function main(): Promise<Goal[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-bench-instances-"));
  let pg: PostgresCluster | undefined;
  let redis: RedisServer | undefined;
  const instances: Instance[] = [];
  try {
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
    await pg.sql("CREATE DATABASE library");
    const env = {
      DATABASE_URL: pg.url("library"),
      REDIS_URL: redis.url,
      LIBRARY_ROOT: path.join(dir, "library"),
      DATA_DIR: path.join(dir, "data"),
      LOG_LEVEL: "silent",
      ...start.env,
    };
    instances.push(await startInstance("A", env, nodeArgs("A")));
    instances.push(await startInstance("B", env, nodeArgs("B")));
    const [a, b] = instances as [Instance, Instance];
    const series = (await (await a.api("/api/manga")).json()) as { id: number }[];
    if (series.length !== 5) fail(`expected the 5 demo series, got ${series.length}`);
    const reqs: Req[] = series.flatMap((s) => [
      { method: "GET" as const, path: `/api/manga/${s.id}/units` },
      {
        method: "POST" as const,
        path: "/graphql",
        body: JSON.stringify({ query: SERIES_PAGE, variables: { id: s.id } }),
      },
      { method: "GET" as const, path: `/api/manga/${s.id}/audit?page=1` },
    ]);
    let reads: { one: Awaited<ReturnType<typeof mixedLoad>>; two: Awaited<ReturnType<typeof mixedLoad>> } | undefined;
    if (!SKIP_READS) {
      // Warm both (views kept per instance, thumbnails not involved).
      for (const i of instances) for (const r of reqs) await request(new http.Agent(), new URL(i.base), r);
      reads = { one: await mixedLoad([a], reqs), two: await mixedLoad([a, b], reqs) };
    }

    // Subscribers: half on each instance, on instances started afresh (the read load's garbage
    // would blur their memory), measured once they settled and again once everyone subscribed.
    await Promise.all(instances.map((i) => i.stop()));
    instances.length = 0;
    const probe = (name: string) => path.join(dir, `probe-${name}.json`);
    const withProbe = (name: string): [Record<string, string>, string[]] =>
      VERBOSE
        ? [
            { ...env, DELIVERY_PROBE_OUT: probe(name), DELIVERY_PROBE_ENTRY: SERVICE_ENTRY },
            [...nodeArgs(name), `--import=${path.join(import.meta.dirname, "delivery-probe.mjs")}`],
          ]
        : [env, nodeArgs(name)];
    instances.push(await startInstance("A", ...withProbe("A")), await startInstance("B", ...withProbe("B")));
    const subs = await subscribers(instances as [Instance, Instance], (series[0] as { id: number }).id, redis);
    // The probes write when their instance stops.
    const probes = VERBOSE
      ? await Promise.all(instances.map((i) => i.stop())).then(() => ["A", "B"].map((n) => readProbe(probe(n))))
      : [];
    if (EXTRA_FLAGS.length > 0)
      for (const i of instances) {
        const file = path.join(os.tmpdir(), `instances-bench-${i.name}.log`);
        writeFileSync(file, i.output());
        console.log(`output of instance ${i.name} (${EXTRA_FLAGS.join(" ")}): ${file}`);
      }
    const perSubscriberKb =
      (subs.rssAfter.reduce((x, y) => x + y, 0) - subs.rssBefore.reduce((x, y) => x + y, 0)) / SUBSCRIBERS;

    console.log(`instances benchmark — ${machineLine()}`);
    console.log(
      `instances run as npm start runs the service: ${Object.entries(start.env)
        .map(([k, v]) => `${k}=${v} `)
        .join("")}node ${start.nodeArgs.join(" ")}`,
    );
    if (reads) {
      console.log(
        `mixed reads: ${reqs.length} requests in turn (units, GraphQL series page, audit page 1 of the 5 demo series), ` +
          `${CONCURRENCY} keep-alive clients, ${DURATION_S} s each\n`,
      );
      printTable(
        ["instances", "requests", "per second", "median", "p99", "errors"],
        [reads.one, reads.two].map((r, k) => [
          k + 1,
          r.requests,
          r.perSecond.toFixed(0),
          ms(median(r.latencies)),
          ms(percentile(r.latencies, 99)),
          r.errors,
        ]),
      );
    }
    const { got, expected } = subs;
    console.log(
      `\n${SUBSCRIBERS} graphql-ws subscribers (${SUBSCRIBERS / 2} per instance, in a client process of their own, ` +
        `${CLIENT === "graphql-ws" ? "graphql-ws's client" : "graphql-ws's protocol spoken by hand"}), ` +
        `${BURST} series changes through A ${BURST_GAP_MS > 0 ? `${BURST_GAP_MS} ms apart` : "back to back"}: ` +
        `${got.received} of ${expected} deliveries in ${ms(subs.burstMs, 0)}${got.timedOut ? " (timed out)" : ""}, ` +
        `${got.errors} errors`,
    );
    const all = got.delays.flat();
    printTable(
      ["delivery delay (event at → client)", "median", "p99", "max"],
      [
        ["all", ms(median(all), 0), ms(percentile(all, 99), 0), ms(Math.max(...all), 0)],
        ...got.delays.map((d, k) => [
          k === 0 ? "subscribers of A (published there)" : "subscribers of B (through Redis)",
          ms(median(d), 0),
          ms(percentile(d, 99), 0),
          ms(Math.max(...d), 0),
        ]),
      ],
    );
    if (VERBOSE) {
      console.log(
        "\nper event, ms after its at (instances with delivery-probe.mjs loaded): the instance's Redis connection " +
          "handed it over, its first … last send began, its subscribers' first … last arrival",
      );
      printTable(
        ["event at", "A: Redis", "A: sends", "A: arrivals", "B: Redis", "B: sends", "B: arrivals"],
        got.events
          .sort((x, y) => x[0].localeCompare(y[0]))
          .map(([at, spans]) => [
            at,
            ...spans.flatMap(([lo, hi], k) => {
              const p = probes[k]?.get(at);
              return [String(p?.redis ?? "—"), p ? `${p.first} … ${p.last}` : "—", `${lo} … ${hi}`];
            }),
          ]),
      );
    }
    console.log(
      `\nCPU time during the burst (${ms(subs.burstMs, 0)} wall, ${os.availableParallelism()} cores): ` +
        subs.cpu.map(([who, t]) => `${who} ${ms(t, 0)}`).join(", ") +
        `; the client process's event loop was busy ${(got.busy * 100).toFixed(0)} % of the time, ` +
        `its delay p99 ${ms(got.lag.p99, 0)}, max ${ms(got.lag.max, 0)}`,
    );
    console.log(
      `resident memory A/B before the subscribers ${subs.rssBefore.map((k) => `${(k / 1024).toFixed(0)} MB`).join(" / ")}, after ` +
        `${subs.rssAfter.map((k) => `${(k / 1024).toFixed(0)} MB`).join(" / ")}: ${perSubscriberKb.toFixed(1)} kB per subscriber`,
    );
    const p99 = percentile(all, 99);
    return [
      ...(reads
        ? [
            {
              ok: reads.one.errors === 0 && reads.two.errors === 0,
              text: `mixed reads without errors (one instance ${reads.one.errors}, two ${reads.two.errors}); two/one throughput ${(reads.two.perSecond / reads.one.perSecond).toFixed(2)}×, p99 ${ms(percentile(reads.one.latencies, 99))} → ${ms(percentile(reads.two.latencies, 99))}`,
            },
          ]
        : []),
      {
        ok: !got.timedOut && got.errors === 0 && p99 < DELIVERY_P99_GOAL_MS,
        text: `every delivery arrived (${got.received}/${expected}); p99 delay ${ms(p99, 0)} (goal < ${DELIVERY_P99_GOAL_MS} ms); ${perSubscriberKb.toFixed(1)} kB per subscriber`,
      },
    ];
  } finally {
    await Promise.allSettled(instances.map((i) => i.stop()));
    await Promise.allSettled([redis?.stop(), pg?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench("instances", main);
