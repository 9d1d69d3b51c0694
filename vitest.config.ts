import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "server/vitest.config.ts",
      "server/vitest.postgres.config.ts",
      "web/vitest.config.ts",
      "test/vitest.config.ts",
    ],
  },
});
