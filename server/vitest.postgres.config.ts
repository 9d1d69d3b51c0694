import { defineConfig } from "vitest/config";
import server from "./vitest.config.ts";

/**
 * The API and service suites again, each test app on its own copy of a migrated PostgreSQL
 * database (a throwaway cluster started by test/global-setup-postgres.ts). `POSTGRES_SUITES`
 * lists the files; the rest of the server suite (rules, archives, benchmarks' checks, crash
 * recovery of the files) does not depend on the database's dialect.
 */
export const POSTGRES_SUITES = ["test/map-api.test.ts"];

export default defineConfig({
  ...server,
  test: {
    ...server.test,
    name: "server-postgres",
    include: process.env.POSTGRES_SUITES?.split(",") ?? POSTGRES_SUITES,
    globalSetup: ["test/global-setup-postgres.ts"],
  },
});
