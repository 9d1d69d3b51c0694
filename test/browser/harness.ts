/**
 * Browser tests: the real service (the built entry point `server/dist/main.js` in a child process, as
 * `npm start` runs it; demo library generated on first start; the builds follow the sources through
 * the project's global setup) and Debian's Chromium driven by playwright-core.
 * Nothing is downloaded: Chromium must be installed (`apt-get install chromium`, done by .ci/run).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SERVICE_ENTRY = path.join(root, "server", "dist", "main.js");
export const PASSWORD = "browser-test-password";
export const API_KEY = "b".repeat(48);

export interface Service {
  base: string;
  dir: string;
  libraryRoot: string;
  output: () => string;
  /** Calls the REST API with the API key. */
  api: (method: string, url: string, body?: unknown) => Promise<Response>;
  /** Calls GraphQL with the API key; throws on errors. */
  gql: <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>) => Promise<T>;
  stop: () => Promise<void>;
}

async function waitForListening(proc: ChildProcess, out: () => string, timeoutMs: number): Promise<string> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(out());
    if (m?.[1]) return m[1].replace(/\/$/, "");
    if (proc.exitCode !== null) throw new Error(`service exited with ${proc.exitCode}:\n${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service did not start in ${timeoutMs} ms:\n${out()}`);
}

/** Starts the service on a fresh data dir and library root (demo library on). */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const webBuild = process.env.WEB_BUILD_DIR ?? path.join(root, "web", "build");
  if (!existsSync(path.join(webBuild, "handler.js"))) {
    throw new Error(
      "web/build is missing: run the README's test command (it builds the web client) or `pnpm --filter web build`",
    );
  }
  if (!existsSync(SERVICE_ENTRY)) throw new Error(`${SERVICE_ENTRY} is missing: run \`pnpm build\``);
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-browser-"));
  const libraryRoot = path.join(dir, "library");
  let output = "";
  // The bundle, as users run it; it also starts a second sooner than the sources under tsx (4.1
  // against 5.1 s without the demo, most of both the migration CLI of a new database).
  const child = spawn(process.execPath, ["--enable-source-maps", SERVICE_ENTRY], {
    cwd: path.join(root, "server"),
    env: {
      ...process.env,
      // The system's free port (the banner names it): a port picked at random here could be taken.
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: path.join(dir, "data"),
      LIBRARY_ROOT: libraryRoot,
      API_KEY,
      ADMIN_PASSWORD: PASSWORD,
      DEMO_LIBRARY: "1",
      WEB_BUILD_DIR: webBuild,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const base = await waitForListening(child, () => output, 120_000);
  const api = (method: string, url: string, body?: unknown) =>
    fetch(`${base}${url}`, {
      method,
      headers: { "x-api-key": API_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const gql = async <T>(query: string, variables: Record<string, unknown> = {}): Promise<T> => {
    const res = await api("POST", "/graphql", { query, variables });
    const json = (await res.json()) as { data?: T; errors?: unknown[] };
    if (json.errors?.length || !json.data) throw new Error(`GraphQL failed: ${JSON.stringify(json.errors)}`);
    return json.data;
  };
  return {
    base,
    dir,
    libraryRoot,
    output: () => output,
    api,
    gql,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export const DESKTOP = { width: 1280, height: 860 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** A browser context logged in through the real login form's endpoint (session cookie). */
export async function loggedInContext(
  browser: Browser,
  service: Service,
  viewport: { width: number; height: number } = DESKTOP,
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport, baseURL: service.base });
  const res = await context.request.post("/api/session", { data: { username: "admin", password: PASSWORD } });
  if (res.status() !== 204) throw new Error(`login failed: ${res.status()} ${await res.text()}`);
  return context;
}

/** Id of the series with this title (demo titles are stable). */
export async function seriesId(service: Service, title: string): Promise<number> {
  const list = (await (await service.api("GET", "/api/manga")).json()) as { id: number; title: string }[];
  const s = list.find((x) => x.title === title);
  if (!s) throw new Error(`no series titled ${title}: ${list.map((x) => x.title).join(", ")}`);
  return s.id;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

const axeSource = (): string => {
  const require = createRequire(import.meta.url);
  return (require("axe-core") as { source: string }).source;
};

/**
 * axe-core on the current page; answers the serious and critical violations. Loaded by evaluation
 * (the DevTools protocol), not as an inline <script>: the pages' Content-Security-Policy refuses those.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // The page as a reader sees it once it settles: axe reads computed colours, and an element still
  // fading in has its colours blended with the background (a false contrast failure).
  // Endless ones (a spinner) are left alone.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  await page.evaluate(`${axeSource()};void 0`);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
}

/** Page errors and failed API calls, collected so a test can assert the page stayed clean. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/**
 * Counts the `libraryEvents` messages the page receives over its graphql-ws connection. Call before
 * the page opens; `untilLive` then proves the page's subscription is registered on the server (a
 * change made earlier is never pushed, as with any live client), by scanning until one arrives.
 */
export function watchLibraryEvents(page: Page): {
  received: () => number;
  untilLive: (service: Service) => Promise<void>;
} {
  let received = 0;
  page.on("websocket", (ws) =>
    ws.on("framereceived", (frame) => {
      if (String(frame.payload).includes('"libraryEvents"')) received++;
    }),
  );
  return {
    received: () => received,
    async untilLive(service) {
      const started = Date.now();
      while (received === 0) {
        if (Date.now() - started > 30_000) throw new Error("the page never received a libraryEvents message");
        const res = await service.api("POST", "/api/library/scan");
        if (res.status !== 200) throw new Error(`scan answered ${res.status}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    },
  };
}

/**
 * One service and one browser for a test file: started before its tests, stopped after them.
 * `ready` hands them over (the file keeps them in its own variables).
 */
export function browserSuite(
  ready: (service: Service, browser: Browser) => void,
  env: Record<string, string> = {},
): void {
  let service: Service | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    service = await startService(env);
    browser = await launchBrowser();
    ready(service, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });
}
