/**
 * The whole service as a newcomer starts it: the real entry point in a child process, an empty
 * data dir and library, the demo library generated on first start, the web client and the APIs
 * on one port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jpeg, zip } from "./corpus/zip-bytes.ts";

const root = path.resolve(import.meta.dirname, "..");
let child: ChildProcess;
let dir: string;
let base: string;
let output = "";

async function waitForListening(proc: ChildProcess, out: () => string, timeoutMs: number): Promise<string> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(out());
    if (m?.[1]) return m[1];
    if (proc.exitCode !== null) throw new Error(`service exited with ${proc.exitCode}:\n${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service did not start in ${timeoutMs} ms:\n${out()}`);
}

/** The real entry point on the system's free port (the banner names it) over `home`'s data and library. */
function spawnService(home: string): { proc: ChildProcess; out: () => string } {
  let text = "";
  const proc = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: path.join(root, "server"),
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: path.join(home, "data"),
      LIBRARY_ROOT: path.join(home, "library"),
      API_KEY: "",
      ADMIN_PASSWORD: "",
      DEMO_LIBRARY: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout?.on("data", (d: Buffer) => (text += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (text += d.toString()));
  return { proc, out: () => text };
}

async function stopService(proc: ChildProcess | undefined): Promise<void> {
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    await exited;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mls-e2e-"));
  const started = spawnService(dir);
  child = started.proc;
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  base = await waitForListening(child, started.out, 120_000);
});

afterAll(async () => {
  await stopService(child);
  rmSync(dir, { recursive: true, force: true });
});

describe("first start of the service", () => {
  it("writes the secrets file privately and prints the generated web password once", async () => {
    const file = path.join(dir, "data", "secrets.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
    expect(secrets.apiKey).toMatch(/^[0-9a-f]{48}$/);
    // The banner is one write, but the pipe may hand it over after the line the start-up wait saw.
    await expect.poll(() => /web login:\s+admin \/ (\S+)/.test(output), { timeout: 5000 }).toBe(true);
    const m = /web login:\s+admin \/ (\S+)/.exec(output);
    expect(JSON.stringify(secrets)).not.toContain(m?.[1]);
  });

  it("serves the demo library through the API key", async () => {
    const { apiKey } = JSON.parse(readFileSync(path.join(dir, "data", "secrets.json"), "utf8")) as { apiKey: string };
    const res = await fetch(`${base}/api/manga`, { headers: { "x-api-key": apiKey } });
    expect(res.status).toBe(200);
    const series = (await res.json()) as { title: string; form: string; webtoon: boolean }[];
    expect(series).toHaveLength(5);
    expect(series.filter((s) => s.form === "books")).toHaveLength(2);
    expect(series.filter((s) => s.webtoon)).toHaveLength(1);
  });

  it("serves the web client on the same port, and its login opens the GraphQL API", async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("/_app/");

    const password = /web login:\s+admin \/ (\S+)/.exec(output)?.[1] ?? "";
    const unauth = await fetch(`${base}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ seriesList { id } }" }),
    });
    expect(unauth.status).toBe(401);

    const login = await fetch(`${base}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password }),
    });
    expect(login.status).toBe(204);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const gql = await fetch(`${base}/graphql`, {
      method: "POST",
      // What a browser sends from the service's own page: the cookie and the page's Origin.
      headers: { "content-type": "application/json", cookie, origin: base },
      body: JSON.stringify({ query: "{ seriesList { title form units { map status } } }" }),
    });
    expect(gql.status).toBe(200);
    const body = (await gql.json()) as {
      data: { seriesList: { title: string; form: string; units: { map: string; status: string | null } }[] };
    };
    const maps = body.data.seriesList.map((s) => s.units.map).sort();
    expect(maps).toContain("EXACT");
    expect(maps).toContain("NONE");
  });
});

describe("first start over an existing collection", () => {
  let home: string;
  let existing: ChildProcess | undefined;
  afterAll(async () => {
    await stopService(existing);
    rmSync(home, { recursive: true, force: true });
  });

  it("writes no demo, says how many series folders wait for a scan, and a scan records them", async () => {
    home = mkdtempSync(path.join(os.tmpdir(), "mls-e2e-existing-"));
    for (const title of ["Blue Harbor", "Paper Moon"]) {
      mkdirSync(path.join(home, "library", title), { recursive: true });
      writeFileSync(
        path.join(home, "library", title, `${title} c001.cbz`),
        await zip([{ name: "001.jpg", data: await jpeg(1) }]),
      );
    }
    const started = spawnService(home);
    existing = started.proc;
    const url = await waitForListening(existing, started.out, 120_000);
    await expect.poll(() => started.out(), { timeout: 5000 }).toContain("web login:");
    expect(started.out()).toContain(
      'library:      2 series folders not scanned yet: press "Scan library" on the web page (or POST /api/library/scan)',
    );
    const { apiKey } = JSON.parse(readFileSync(path.join(home, "data", "secrets.json"), "utf8")) as {
      apiKey: string;
    };
    const headers = { "x-api-key": apiKey };
    expect(await (await fetch(`${url}/api/manga`, { headers })).json()).toEqual([]);
    // Where to put series folders, through both APIs.
    const library = path.join(home, "library");
    expect(await (await fetch(`${url}/api/library`, { headers })).json()).toEqual({
      root: library,
      recycle_bin: path.join(library, ".recycle-bin"),
      scan_interval_seconds: 21_600,
    });
    const g = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ library { root recycleBin scanIntervalSeconds } }" }),
    });
    expect(await g.json()).toEqual({
      data: { library: { root: library, recycleBin: path.join(library, ".recycle-bin"), scanIntervalSeconds: 21_600 } },
    });
    const scan = await fetch(`${url}/api/library/scan`, { method: "POST", headers });
    expect(scan.status).toBe(200);
    expect(await scan.json()).toMatchObject({ added: 2, series_created: 2 });
    const titles = ((await (await fetch(`${url}/api/manga`, { headers })).json()) as { title: string }[])
      .map((x) => x.title)
      .sort();
    expect(titles).toEqual(["Blue Harbor", "Paper Moon"]);
  });
});
