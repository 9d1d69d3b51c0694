import { configDefaults, defineConfig } from "vitest/config";
import server from "./vitest.config.ts";

/**
 * API suites again, each test app on its own copy of a migrated PostgreSQL database (a throwaway
 * cluster started by test/global-setup-postgres.ts). Every API suite on PostgreSQL took 46 minutes
 * on two shared cores, too long for the test command (these take 5 to 9), so these are the API
 * suites that cover the repositories' reads and writes: the chapter map and units (bulk JSON
 * selects, revision triggers), downloads, sources, publication, assembly, duplicates, retirement
 * and the recycle bin, the blocklist, sessions, reading apps and progress, translation jobs, the
 * scheduled passes' kept times, the next pass after a full one and its condition, the external processor's worker.
 * POSTGRES_SUITES (comma-separated paths) runs others.
 */
export const POSTGRES_SUITES = [
  "test/map-api.test.ts",
  "test/units-api.test.ts",
  "test/retirement.test.ts",
  "test/recycle-bin.test.ts",
  "test/sessions.test.ts",
  "test/sessions-instances.test.ts",
  "test/shared-secrets.test.ts",
  "test/downloads.test.ts",
  "test/download-attempts.test.ts",
  "test/download-takeover.test.ts",
  "test/cluster.test.ts",
  "test/journal-takeover.test.ts",
  "test/translation-claims.test.ts",
  "test/publication.test.ts",
  "test/assembly.test.ts",
  "test/demo.test.ts",
  "test/page-evidence.test.ts",
  "test/translations-api.test.ts",
  "test/readers-komga.test.ts",
  "test/torrent-assignment.test.ts",
  "test/duplicates.test.ts",
  "test/reading-progress.test.ts",
  "test/rule-fixes.test.ts",
  "test/verified-books.test.ts",
  "test/thumbnails.test.ts",
  "test/sources.test.ts",
  "test/readers-opds.test.ts",
  "test/book-channel.test.ts",
  "test/blocklist.test.ts",
  "test/series-removal-rows.test.ts",
  "test/series-removal.test.ts",
  "test/scheduled-runs.test.ts",
  "test/system-health.test.ts",
  "test/system-status.test.ts",
  "test/wanted-next-pass.test.ts",
  "test/translation-worker.test.ts",
  "test/wanted-pass-conditions.test.ts",
];

export default defineConfig({
  ...server,
  test: {
    ...server.test,
    name: "server-postgres",
    include: process.env.POSTGRES_SUITES?.split(",") ?? POSTGRES_SUITES,
    exclude: configDefaults.exclude,
    globalSetup: ["test/global-setup-postgres.ts"],
  },
});
