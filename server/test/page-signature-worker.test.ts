/**
 * The page checks step aside for requests (services/audit/page-signature-worker.ts): before each
 * archive the worker waits for a quiet moment from the request activity the HTTP server records.
 */
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestActivity } from "../src/request-activity.ts";
import { pageSignatureWorker } from "../src/services/audit/page-signature-worker.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.dispose();
});

/** An activity whose quiet moments the test hands out one at a time. */
function gatedActivity() {
  const waiting: (() => void)[] = [];
  const activity: RequestActivity = {
    began() {},
    ended() {},
    inFlight: () => 1,
    quiet: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
  return { activity, waiting, release: () => waiting.shift()?.() };
}

async function libraryFile(name: string) {
  const rel = `Worker/${name}`;
  const abs = path.join(app.ctx.config.libraryRoot, "Worker", name);
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFile(abs, `bytes of ${name}`);
  const s = await stat(abs);
  return { sha256: `sha-${name}`, path: rel, size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("the page signature worker", () => {
  it("reads no archive until the requests leave a quiet moment, then one archive per moment", async () => {
    const gate = gatedActivity();
    const read: string[] = [];
    const worker = pageSignatureWorker(
      { ...app.ctx, activity: gate.activity },
      {
        compute: async (abs) => {
          read.push(path.basename(abs));
          return { pageCount: 1, signatures: [], unreadable: [1] };
        },
      },
    );
    worker.request([await libraryFile("a.cbz"), await libraryFile("b.cbz")]);
    for (let i = 0; i < 5; i++) await tick();
    expect(read).toEqual([]);
    expect(gate.waiting.length).toBe(1);
    gate.release();
    while (read.length < 1) await tick();
    for (let i = 0; i < 3; i++) await tick();
    expect(read).toEqual(["a.cbz"]);
    gate.release();
    await worker.idle();
    expect(read).toEqual(["a.cbz", "b.cbz"]);
    expect(worker.stats()).toMatchObject({ computed: 2, read: 2 });
    await worker.stop();
  });

  it("stops while it waits for a quiet moment, without reading", async () => {
    const gate = gatedActivity();
    let reads = 0;
    const worker = pageSignatureWorker(
      { ...app.ctx, activity: gate.activity },
      {
        compute: async () => {
          reads += 1;
          return { pageCount: 0, signatures: [], unreadable: [] };
        },
      },
    );
    worker.request([await libraryFile("c.cbz")]);
    await tick();
    const stopped = worker.stop();
    gate.release();
    await stopped;
    expect(reads).toBe(0);
  });

  it("is told by the HTTP server when requests run: after one, quiet waits for the idle time", async () => {
    expect(app.ctx.activity.inFlight()).toBe(0);
    const res = await app.api("/api/health");
    expect(res.status).toBe(200);
    await res.text();
    expect(app.ctx.activity.inFlight()).toBe(0);
    const t = performance.now();
    await app.ctx.activity.quiet(300, 5000);
    expect(performance.now() - t).toBeGreaterThan(100);
  });

  it("remembers a file gone from disk, but not the files of a library folder that is away", async () => {
    const read: string[] = [];
    const worker = pageSignatureWorker(app.ctx, {
      compute: async (abs) => {
        read.push(path.basename(abs));
        return { pageCount: 1, signatures: [], unreadable: [1] };
      },
    });
    const gone = await libraryFile("gone.cbz");
    await rm(path.join(app.ctx.config.libraryRoot, ...gone.path.split("/")));
    worker.request([gone]);
    await worker.idle();
    await writeFile(path.join(app.ctx.config.libraryRoot, ...gone.path.split("/")), "bytes of gone.cbz");
    worker.request([gone]);
    await worker.idle();
    // Remembered with its fingerprint: not tried again until the file changes.
    expect(read).toEqual([]);

    const later = await libraryFile("later.cbz");
    const root = app.ctx.config.libraryRoot;
    await rename(root, `${root}-unmounted`);
    try {
      worker.request([later]);
      await worker.idle();
    } finally {
      await rename(`${root}-unmounted`, root);
    }
    worker.request([later]);
    await worker.idle();
    expect(read).toEqual(["later.cbz"]);
    await worker.stop();
  });
});
