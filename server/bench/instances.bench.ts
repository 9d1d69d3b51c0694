/**
 * `pnpm bench instances`: the built service (server/dist/main.js) as separate processes on one
 * PostgreSQL database and one Redis (throwaway servers on loopback ports), with the demo library.
 *
 * 1. Mixed reads — units, the GraphQL series page and the first audit page of every demo series,
 *    in turn — from CONCURRENCY keep-alive clients for DURATION_S seconds, first against one
 *    instance, then spread over two: throughput, p99 and errors. The load generator shares the
 *    machine's cores with the instances, as the database does.
 * 2. SUBSCRIBERS graphql-ws clients, half on each of two freshly started instances, subscribed to
 *    `libraryEvents`; a burst of BURST series changes through one instance; each delivery's delay is
 *    its arrival time minus the event's `at` (same clock; the clients' own processing is included,
 *    and they share the cores with the instances). Memory per subscriber: the growth of the
 *    instances' resident memory (VmRSS) from before the subscribers connected to once all of them
 *    subscribed, divided by their number.
 * Goals: 0 errors; p99 delivery < 250 ms. Throughput is reported (two instances against one), not a goal.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Client } from "graphql-ws";
import {
  INSTANCE_API_KEY,
  startInstance,
  startRedis,
  wsClient,
  type Instance,
  type RedisServer,
} from "../test/instances.ts";
import { startPostgres, type PostgresCluster } from "../test/postgres.ts";
import { fail, intEnv, machineLine, median, ms, percentile, printTable, runBench, type Goal } from "./harness.ts";

const CONCURRENCY = intEnv("BENCH_CONCURRENCY", 16);
const DURATION_S = intEnv("BENCH_DURATION_S", 15);
const SUBSCRIBERS = intEnv("BENCH_SUBSCRIBERS", 1000);
const BURST = intEnv("BENCH_BURST", 20);
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
  const clients: Client[] = [];
  try {
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
    await pg.sql("CREATE DATABASE library");
    const env = {
      DATABASE_URL: pg.url("library"),
      REDIS_URL: redis.url,
      LIBRARY_ROOT: path.join(dir, "library"),
      DATA_DIR: path.join(dir, "data"),
      LOG_LEVEL: "silent",
    };
    instances.push(await startInstance("A", env));
    instances.push(await startInstance("B", env));
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
    // Warm both (views kept per instance, thumbnails not involved).
    for (const i of instances) for (const r of reqs) await request(new http.Agent(), new URL(i.base), r);

    const one = await mixedLoad([a], reqs);
    const two = await mixedLoad([a, b], reqs);

    // Subscribers: half on each instance, on instances started afresh (the read load's garbage
    // would blur their memory), measured once they settled and again once everyone subscribed.
    await Promise.all(instances.map((i) => i.stop()));
    instances.length = 0;
    instances.push(await startInstance("A", env), await startInstance("B", env));
    const [a2] = instances as [Instance, Instance];
    await new Promise((r) => setTimeout(r, 3000));
    const rssBefore = instances.map((i) => rssKb(i.proc.pid as number));
    const arrivals: number[] = [];
    let received = 0;
    let subscribeErrors = 0;
    const expected = SUBSCRIBERS * BURST;
    let allIn: () => void = () => {};
    const everything = new Promise<void>((r) => (allIn = r));
    let connected = 0;
    let allConnected: () => void = () => {};
    const connectedAll = new Promise<void>((r) => (allConnected = r));
    for (let n = 0; n < SUBSCRIBERS; n++) {
      const client = wsClient((instances[n % 2] as Instance).base);
      clients.push(client);
      client.on("connected", () => {
        connected += 1;
        if (connected === SUBSCRIBERS) allConnected();
      });
      client.subscribe<{ libraryEvents: { at: string } }>(
        { query: "subscription { libraryEvents { kind at } }" },
        {
          next: (r) => {
            const at = r.data?.libraryEvents.at;
            if (at) arrivals.push(Date.now() - Date.parse(at));
            received += 1;
            if (received === expected) allIn();
          },
          error: () => (subscribeErrors += 1),
          complete: () => {},
        },
      );
    }
    await Promise.race([
      connectedAll,
      new Promise((_, rej) => setTimeout(() => rej(new Error(`only ${connected} subscribers connected`)), 60_000)),
    ]);
    await new Promise((r) => setTimeout(r, 2000)); // the subscriptions registered on the servers
    const rssAfter = instances.map((i) => rssKb(i.proc.pid as number));
    const target = series[0] as { id: number };
    const t0 = performance.now();
    for (let k = 0; k < BURST; k++) {
      const res = await a2.api(`/api/manga/${target.id}`, {
        method: "PATCH",
        body: JSON.stringify({ monitored: k % 2 === 0 }),
      });
      if (res.status !== 200) fail(`PATCH answered ${res.status}: ${await res.text()}`);
    }
    const timedOut = await Promise.race([
      everything.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), 30_000)),
    ]);
    const burstMs = performance.now() - t0;
    const perSubscriberKb = (rssAfter.reduce((x, y) => x + y, 0) - rssBefore.reduce((x, y) => x + y, 0)) / SUBSCRIBERS;

    console.log(`instances benchmark — ${machineLine()}`);
    console.log(
      `mixed reads: ${reqs.length} requests in turn (units, GraphQL series page, audit page 1 of the 5 demo series), ` +
        `${CONCURRENCY} keep-alive clients, ${DURATION_S} s each\n`,
    );
    printTable(
      ["instances", "requests", "per second", "median", "p99", "errors"],
      [one, two].map((r, k) => [
        k + 1,
        r.requests,
        r.perSecond.toFixed(0),
        ms(median(r.latencies)),
        ms(percentile(r.latencies, 99)),
        r.errors,
      ]),
    );
    console.log(
      `\n${SUBSCRIBERS} graphql-ws subscribers (${SUBSCRIBERS / 2} per instance), ${BURST} series changes through A: ` +
        `${received} of ${expected} deliveries in ${ms(burstMs, 0)}${timedOut ? " (timed out)" : ""}, ${subscribeErrors} errors`,
    );
    printTable(
      ["delivery delay", "median", "p99", "max"],
      [["event at → subscriber", ms(median(arrivals)), ms(percentile(arrivals, 99)), ms(Math.max(...arrivals))]],
    );
    console.log(
      `resident memory A/B before the subscribers ${rssBefore.map((k) => `${(k / 1024).toFixed(0)} MB`).join(" / ")}, after ` +
        `${rssAfter.map((k) => `${(k / 1024).toFixed(0)} MB`).join(" / ")}: ${perSubscriberKb.toFixed(1)} kB per subscriber`,
    );
    const p99 = percentile(arrivals, 99);
    return [
      {
        ok: one.errors === 0 && two.errors === 0,
        text: `mixed reads without errors (one instance ${one.errors}, two ${two.errors}); two/one throughput ${(two.perSecond / one.perSecond).toFixed(2)}×, p99 ${ms(percentile(one.latencies, 99))} → ${ms(percentile(two.latencies, 99))}`,
      },
      {
        ok: !timedOut && subscribeErrors === 0 && p99 < DELIVERY_P99_GOAL_MS,
        text: `every delivery arrived (${received}/${expected}); p99 delay ${ms(p99)} (goal < ${DELIVERY_P99_GOAL_MS} ms); ${perSubscriberKb.toFixed(1)} kB per subscriber`,
      },
    ];
  } finally {
    await Promise.allSettled(clients.map((c) => c.dispose()));
    await Promise.allSettled(instances.map((i) => i.stop()));
    await Promise.allSettled([redis?.stop(), pg?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench("instances", main);
