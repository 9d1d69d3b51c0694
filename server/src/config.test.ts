import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, repoRoot } from "./config.ts";

const CWD = path.resolve("/srv/manga");

describe("loadConfig", () => {
  it("has the documented defaults", () => {
    expect(loadConfig({}, CWD)).toEqual({
      port: 8080,
      host: "127.0.0.1",
      dataDir: path.join(CWD, "data"),
      libraryRoot: path.join(CWD, "library"),
      databaseUrl: `file:${path.join(CWD, "data", "library.db")}`,
      apiKey: null,
      adminPassword: null,
      demoLibrary: true,
      webBuildDir: path.join(repoRoot, "web", "build"),
      logLevel: "info",
      recycleRetentionDays: 30,
      viewCacheSeries: 1000,
      viewCacheMb: 32,
      instanceRole: "all",
      redisUrl: null,
      redisPrefix: "manga-library:",
      leaseSeconds: 30,
      assemblyMonitorIntervalSeconds: 900,
      libraryScanIntervalSeconds: 21_600,
      dropFolder: path.join(CWD, "data", "drop"),
      downloads: {
        perProvider: 2,
        total: 4,
        pageConcurrency: 4,
        retryBaseMs: 30_000,
        retryCapMs: 600_000,
        pollMs: 2_000,
        wantedIntervalSeconds: 3600,
        maxPerPass: 10,
      },
      catalogues: { refreshIntervalSeconds: 86_400, retryBaseMs: 1_000 },
      archiveLimits: {
        maxEntries: 10_000,
        maxTotalBytes: 8 * 1024 ** 3,
        maxEntryBytes: 512 * 1024 ** 2,
        maxRatio: 200,
        maxPixels: 150_000_000,
      },
    });
  });

  it("resolves relative directories against the working directory", () => {
    expect(loadConfig({}).dataDir).toBe(path.resolve(process.cwd(), "data"));
    const c = loadConfig({ DATA_DIR: "state", LIBRARY_ROOT: "../shelf", WEB_BUILD_DIR: "dist/web" }, CWD);
    expect([c.dataDir, c.libraryRoot, c.webBuildDir]).toEqual([
      path.join(CWD, "state"),
      path.resolve(CWD, "../shelf"),
      path.resolve("dist/web"),
    ]);
  });

  it("takes every override from the environment", () => {
    expect(
      loadConfig(
        {
          PORT: "9090",
          HOST: "0.0.0.0",
          DATA_DIR: "/var/lib/manga",
          LIBRARY_ROOT: "/mnt/manga",
          DATABASE_URL: "file:/tmp/other.db",
          API_KEY: "k3y",
          ADMIN_PASSWORD: "s3cret",
          DEMO_LIBRARY: "0",
          WEB_BUILD_DIR: "",
          LOG_LEVEL: "silent",
          RECYCLE_RETENTION_DAYS: "7",
          VIEW_CACHE_SERIES: "4",
          VIEW_CACHE_MB: "8",
          INSTANCE_ROLE: "worker",
          REDIS_URL: "redis://127.0.0.1:6390/2",
          REDIS_PREFIX: "shelf-2:",
          LEASE_SECONDS: "5",
          ASSEMBLY_MONITOR_INTERVAL_SECONDS: "60",
          LIBRARY_SCAN_INTERVAL_SECONDS: "0",
          DROP_FOLDER: "/mnt/drop",
          ARCHIVE_MAX_ENTRIES: "500",
          ARCHIVE_MAX_TOTAL_BYTES: "1000000",
          ARCHIVE_MAX_ENTRY_BYTES: "200000",
          ARCHIVE_MAX_RATIO: "50",
          IMAGE_MAX_PIXELS: "4000000",
          CATALOGUE_REFRESH_INTERVAL_SECONDS: "3600",
          CATALOGUE_RETRY_BASE_MS: "50",
        },
        CWD,
      ),
    ).toEqual({
      port: 9090,
      host: "0.0.0.0",
      dataDir: "/var/lib/manga",
      libraryRoot: "/mnt/manga",
      databaseUrl: "file:/tmp/other.db",
      apiKey: "k3y",
      adminPassword: "s3cret",
      demoLibrary: false,
      webBuildDir: null,
      logLevel: "silent",
      recycleRetentionDays: 7,
      viewCacheSeries: 4,
      viewCacheMb: 8,
      instanceRole: "worker",
      redisUrl: "redis://127.0.0.1:6390/2",
      redisPrefix: "shelf-2:",
      leaseSeconds: 5,
      assemblyMonitorIntervalSeconds: 60,
      libraryScanIntervalSeconds: 0,
      dropFolder: "/mnt/drop",
      downloads: {
        perProvider: 2,
        total: 4,
        pageConcurrency: 4,
        retryBaseMs: 30_000,
        retryCapMs: 600_000,
        pollMs: 2_000,
        wantedIntervalSeconds: 3600,
        maxPerPass: 10,
      },
      catalogues: { refreshIntervalSeconds: 3600, retryBaseMs: 50 },
      archiveLimits: {
        maxEntries: 500,
        maxTotalBytes: 1_000_000,
        maxEntryBytes: 200_000,
        maxRatio: 50,
        maxPixels: 4_000_000,
      },
    });
  });

  it.each([["0"], ["-3"], ["1.5"], ["ten"], ["1e3"]])(
    "refuses %j as RECYCLE_RETENTION_DAYS or ARCHIVE_MAX_RATIO with a clear message",
    (v) => {
      expect(() => loadConfig({ RECYCLE_RETENTION_DAYS: v }, CWD)).toThrow(
        `RECYCLE_RETENTION_DAYS must be a positive whole number, got ${JSON.stringify(v)}`,
      );
      expect(() => loadConfig({ ARCHIVE_MAX_RATIO: v }, CWD)).toThrow(
        `ARCHIVE_MAX_RATIO must be a positive whole number, got ${JSON.stringify(v)}`,
      );
    },
  );

  it("puts the default database in DATA_DIR", () => {
    expect(loadConfig({ DATA_DIR: "/var/lib/manga" }, CWD).databaseUrl).toBe(
      `file:${path.join("/var/lib/manga", "library.db")}`,
    );
  });

  it.each([
    [undefined, true],
    ["0", false],
    ["1", true],
    ["", true],
    ["false", true],
    ["no", true],
  ])("DEMO_LIBRARY=%j → demo %s (only 0 turns it off)", (value, demo) => {
    expect(loadConfig(value === undefined ? {} : { DEMO_LIBRARY: value }, CWD).demoLibrary).toBe(demo);
  });

  it("treats an empty API_KEY or ADMIN_PASSWORD as unset", () => {
    const c = loadConfig({ API_KEY: "", ADMIN_PASSWORD: "" }, CWD);
    expect([c.apiKey, c.adminPassword]).toEqual([null, null]);
  });

  it.each(["0", "1", "80", "8080", "65535"])("accepts PORT=%s", (port) => {
    expect(loadConfig({ PORT: port }, CWD).port).toBe(Number(port));
  });

  it.each(["abc", "", " ", "-1", "65536", "70000", "8080.5", "0x1F90", "1e3", " 8080", "80a", "123456"])(
    "refuses PORT=%j with a clear message",
    (port) => {
      expect(() => loadConfig({ PORT: port }, CWD)).toThrow(
        `PORT must be a port number from 0 to 65535, got ${JSON.stringify(port)}`,
      );
    },
  );

  it.each(["API", "both", "workers", " all"])("refuses INSTANCE_ROLE=%j with a clear message", (role) => {
    expect(() => loadConfig({ INSTANCE_ROLE: role }, CWD)).toThrow(
      `INSTANCE_ROLE must be one of api, worker, all, got ${JSON.stringify(role)}`,
    );
  });

  it.each(["with space", "tab\there", "x".repeat(101)])("refuses REDIS_PREFIX=%j", (prefix) => {
    expect(() => loadConfig({ REDIS_PREFIX: prefix }, CWD)).toThrow("REDIS_PREFIX must be at most 100 printable");
  });

  it.each(["localhost:6379", "http://127.0.0.1:6379"])("refuses REDIS_URL=%j", (url) => {
    expect(() => loadConfig({ REDIS_URL: url }, CWD)).toThrow("REDIS_URL must be a redis:// or rediss:// URL");
  });
});
