import { configDefaults, defineConfig } from "vitest/config";
import server, { filesReplacingModules } from "./vitest.config.ts";

/** The server's test files that replace a module (`vi.mock`), each with a module graph of its own. */
export default defineConfig({
  ...server,
  test: {
    ...server.test,
    name: "server-isolated",
    include: filesReplacingModules(),
    exclude: configDefaults.exclude,
    isolate: true,
  },
});
