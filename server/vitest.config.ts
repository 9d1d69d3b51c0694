import { createRequire } from "node:module";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

// One copy of graphql: Node loads its CommonJS entry for yoga and Pothos, so sources must too
// (Vite would otherwise pick the ESM build, and `instanceof GraphQLError` fails across the two).
const graphqlEntry = createRequire(import.meta.url).resolve("graphql");
// The web client's document modules, imported by the test that runs them through the query limits.
const webLib = path.resolve(import.meta.dirname, "..", "web", "src", "lib");

export default defineConfig({
  resolve: {
    alias: [
      { find: /^graphql$/, replacement: graphqlEntry },
      { find: /^\$lib(\/.*)?$/, replacement: `${webLib}$1` },
    ],
  },
  test: {
    name: "server",
    root: import.meta.dirname,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Several instances on one database: PostgreSQL only (vitest.postgres.config.ts runs it).
    exclude: [...configDefaults.exclude, "test/sessions-instances.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
