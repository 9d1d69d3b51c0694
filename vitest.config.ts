import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // At least two files at a time, even on two cores (vitest's default is one less than the
    // cores): the API suites spend much of their time waiting on child processes, servers and the
    // disk. Measured on two cores: 713 s for the server project against about 990 s one file at a
    // time. The e2e project keeps one file at a time (fileParallelism), after the others.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      "server/vitest.config.ts",
      "server/vitest.isolated.config.ts",
      "server/vitest.postgres.config.ts",
      "web/vitest.config.ts",
      "test/vitest.config.ts",
    ],
  },
});
