import path from "node:path";

/** Runtime configuration, from the environment variables of the API contract's "Running" section. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  libraryRoot: string;
  databaseUrl: string;
  /** When set, the key to accept instead of the generated one. */
  apiKey: string | null;
  /** When set, the web login password of user `admin`. */
  adminPassword: string | null;
  demoLibrary: boolean;
  /** Directory holding the built web client (web/build), or null to serve the API only. */
  webBuildDir: string | null;
  logLevel: "silent" | "info";
}

const repoRoot = path.resolve(import.meta.dirname, "..", "..");

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const resolve = (p: string) => path.resolve(cwd, p);
  const dataDir = resolve(env.DATA_DIR ?? "data");
  // Decimal digits only: Number() would also take "", " ", "0x1F90" and "1e3" (an empty PORT became port 0).
  const portText = env.PORT ?? "8080";
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new Error(`PORT must be a port number from 0 to 65535, got ${JSON.stringify(portText)}`);
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir,
    libraryRoot: resolve(env.LIBRARY_ROOT ?? "library"),
    databaseUrl: env.DATABASE_URL ?? `file:${path.join(dataDir, "library.db")}`,
    apiKey: env.API_KEY ? env.API_KEY : null,
    adminPassword: env.ADMIN_PASSWORD ? env.ADMIN_PASSWORD : null,
    demoLibrary: env.DEMO_LIBRARY !== "0",
    webBuildDir: env.WEB_BUILD_DIR === "" ? null : path.resolve(env.WEB_BUILD_DIR ?? path.join(repoRoot, "web", "build")),
    logLevel: env.LOG_LEVEL === "silent" ? "silent" : "info",
  };
}

export { repoRoot };
