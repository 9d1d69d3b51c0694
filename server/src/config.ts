import { readFileSync } from "node:fs";
import path from "node:path";
import { positiveInt } from "./env-numbers.ts";
import { loadDownloadsConfig, type DownloadsConfig } from "./services/acquisition/download-pipeline-config.ts";
import { loadCataloguesConfig, type CataloguesConfig } from "./catalogues/config.ts";

/** Runtime configuration, from the environment variables the README lists. */
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
  /** Days a retired file stays restorable in the recycle bin before it may be purged. */
  recycleRetentionDays: number;
  /** Seconds between two cycles of the automatic-assembly monitor. */
  assemblyMonitorIntervalSeconds: number;
  /** Seconds between two scheduled library scans; 0 scans only on request. */
  libraryScanIntervalSeconds: number;
  /** Limits of the hardened archive reader (every archive read goes through them). */
  archiveLimits: ArchiveLimitsConfig;
  /** Download pipeline and Wanted pass (services/acquisition/download-pipeline-config.ts). */
  downloads: DownloadsConfig;
  /** Import folder of the drop-folder provider: one subfolder per work, holding CBZ files or image folders. */
  dropFolder: string;
  /** Public catalogues: the daily refresh and the back-off (catalogues/config.ts). */
  catalogues: CataloguesConfig;
  /** Most series whose large computed views (units, audit list) stay in memory until they change; 0 keeps none. */
  viewCacheSeries: number;
  /** Most memory, in MB (estimated), those kept views hold together (the series used longest ago go first). */
  viewCacheMb: number;
  /** What this instance runs: HTTP (`api`), the background workers and schedules (`worker`), or both. */
  instanceRole: InstanceRole;
  /** Redis that carries the events between instances (GraphQL subscriptions); null keeps them in-process. */
  redisUrl: string | null;
  /** What the name of every Redis channel of this library starts with (libraries may share one Redis). */
  redisPrefix: string;
  /** How long a lease (a lock, a claim on work, a schedule's turn) outlives its holder's last renewal. */
  leaseSeconds: number;
}

export const INSTANCE_ROLES = ["api", "worker", "all"] as const;
export type InstanceRole = (typeof INSTANCE_ROLES)[number];

function instanceRole(env: NodeJS.ProcessEnv): InstanceRole {
  const text = env.INSTANCE_ROLE;
  if (text === undefined || text === "") return "all";
  if (!(INSTANCE_ROLES as readonly string[]).includes(text))
    throw new Error(`INSTANCE_ROLE must be one of ${INSTANCE_ROLES.join(", ")}, got ${JSON.stringify(text)}`);
  return text as InstanceRole;
}

function redisUrl(env: NodeJS.ProcessEnv): string | null {
  const text = env.REDIS_URL;
  if (text === undefined || text === "") return null;
  if (!/^rediss?:\/\//i.test(text)) throw new Error(`REDIS_URL must be a redis:// or rediss:// URL`);
  return text;
}

/** What every Redis channel's name starts with unless REDIS_PREFIX says otherwise. */
export const DEFAULT_REDIS_PREFIX = "manga-library:";

function redisPrefix(env: NodeJS.ProcessEnv): string {
  const text = env.REDIS_PREFIX;
  if (text === undefined || text === "") return DEFAULT_REDIS_PREFIX;
  if (text.length > 100 || !/^[\x21-\x7e]+$/.test(text))
    throw new Error(
      `REDIS_PREFIX must be at most 100 printable characters without spaces, got ${JSON.stringify(text)}`,
    );
  return text;
}

export interface ArchiveLimitsConfig {
  /** Entries in one archive. */
  maxEntries: number;
  /** Sum of the declared uncompressed sizes. */
  maxTotalBytes: number;
  /** One entry's uncompressed size. */
  maxEntryBytes: number;
  /** Uncompressed / compressed size of one entry (zip bombs). */
  maxRatio: number;
  /** Width × height of one image (sharp's limitInputPixels). */
  maxPixels: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimitsConfig = {
  maxEntries: 10_000,
  maxTotalBytes: 8 * 1024 ** 3,
  maxEntryBytes: 512 * 1024 ** 2,
  maxRatio: 200,
  maxPixels: 150_000_000,
};

/** Service state inside the library root (same filesystem, so moves are renames); the scan skips dot-folders. */
/** The staging area's folder name, directly under LIBRARY_ROOT. */
export const STAGING_FOLDER = ".staging";

export function stateDirs(config: Pick<Config, "libraryRoot" | "dataDir">) {
  return {
    staging: path.join(config.libraryRoot, STAGING_FOLDER),
    recycleBin: path.join(config.libraryRoot, ".recycle-bin"),
    thumbnails: path.join(config.dataDir, "thumbnails"),
  };
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d{1,9}$/.test(text)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

const repoRoot = path.resolve(import.meta.dirname, "..", "..");

/** The product's version: the repository's package.json (one place, read once). */
export const PRODUCT_VERSION: string = (() => {
  try {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version?: unknown };
    return typeof version === "string" && version !== "" ? version : "unknown";
  } catch {
    return "unknown";
  }
})();

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const resolve = (p: string) => path.resolve(cwd, p);
  const dataDir = resolve(env.DATA_DIR ?? "data");
  // Decimal digits only: Number() would also take "", " ", "0x1F90" and "1e3" (an empty PORT became port 0).
  const portText = env.PORT ?? "8080";
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 0 && port <= 65535))
    throw new Error(`PORT must be a port number from 0 to 65535, got ${JSON.stringify(portText)}`);
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir,
    libraryRoot: resolve(env.LIBRARY_ROOT ?? "library"),
    databaseUrl: env.DATABASE_URL ?? `file:${path.join(dataDir, "library.db")}`,
    apiKey: env.API_KEY ? env.API_KEY : null,
    adminPassword: env.ADMIN_PASSWORD ? env.ADMIN_PASSWORD : null,
    demoLibrary: env.DEMO_LIBRARY !== "0",
    webBuildDir:
      env.WEB_BUILD_DIR === "" ? null : path.resolve(env.WEB_BUILD_DIR ?? path.join(repoRoot, "web", "build")),
    logLevel: env.LOG_LEVEL === "silent" ? "silent" : "info",
    recycleRetentionDays: positiveInt(env, "RECYCLE_RETENTION_DAYS", 30),
    assemblyMonitorIntervalSeconds: positiveInt(env, "ASSEMBLY_MONITOR_INTERVAL_SECONDS", 900),
    libraryScanIntervalSeconds: wholeNumber(env, "LIBRARY_SCAN_INTERVAL_SECONDS", 21_600),
    dropFolder: resolve(env.DROP_FOLDER ?? path.join(dataDir, "drop")),
    downloads: loadDownloadsConfig(env),
    catalogues: loadCataloguesConfig(env),
    viewCacheSeries: wholeNumber(env, "VIEW_CACHE_SERIES", 1000),
    viewCacheMb: positiveInt(env, "VIEW_CACHE_MB", 32),
    instanceRole: instanceRole(env),
    redisUrl: redisUrl(env),
    redisPrefix: redisPrefix(env),
    leaseSeconds: positiveInt(env, "LEASE_SECONDS", 30),
    archiveLimits: {
      maxEntries: positiveInt(env, "ARCHIVE_MAX_ENTRIES", DEFAULT_ARCHIVE_LIMITS.maxEntries),
      maxTotalBytes: positiveInt(env, "ARCHIVE_MAX_TOTAL_BYTES", DEFAULT_ARCHIVE_LIMITS.maxTotalBytes),
      maxEntryBytes: positiveInt(env, "ARCHIVE_MAX_ENTRY_BYTES", DEFAULT_ARCHIVE_LIMITS.maxEntryBytes),
      maxRatio: positiveInt(env, "ARCHIVE_MAX_RATIO", DEFAULT_ARCHIVE_LIMITS.maxRatio),
      maxPixels: positiveInt(env, "IMAGE_MAX_PIXELS", DEFAULT_ARCHIVE_LIMITS.maxPixels),
    },
  };
}

export { repoRoot };
