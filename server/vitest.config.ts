import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

// One copy of graphql: Node loads its CommonJS entry for yoga and Pothos, so sources must too
// (Vite would otherwise pick the ESM build, and `instanceof GraphQLError` fails across the two).
const graphqlEntry = createRequire(import.meta.url).resolve("graphql");
// The web client's document modules, imported by the test that runs them through the query limits.
const webLib = path.resolve(import.meta.dirname, "..", "web", "src", "lib");

/**
 * Test files that replace a module (`vi.mock`): they need a module graph of their own, so they run
 * in the isolated project (vitest.isolated.config.ts); every other file shares its worker's modules.
 */
export function filesReplacingModules(): string[] {
  return ["src", "test"].flatMap((dir) =>
    readdirSync(path.join(import.meta.dirname, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
      .filter((f) => /\bvi\.(do)?mock\(/.test(readFileSync(path.join(import.meta.dirname, f), "utf8"))),
  );
}

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
    exclude: [...configDefaults.exclude, "test/sessions-instances.test.ts", ...filesReplacingModules()],
    // A worker imports the app's modules once for all its files instead of once per file: on two
    // cores the project took 686 s isolated, 384–391 s shared. A test leaves no module state behind
    // (spies restored, apps closed); files that replace modules run isolated.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
