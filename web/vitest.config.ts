import { fileURLToPath } from "node:url";
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig } from "vitest/config";

const here = fileURLToPath(new URL(".", import.meta.url));

// Not the sveltekit() plugin: run from the workspace root (vitest projects) it would look for
// svelte.config.js in the wrong directory. svelte() compiles components and runes modules.
export default defineConfig({
  root: here,
  plugins: [svelte({ configFile: false })],
  resolve: {
    alias: { $lib: fileURLToPath(new URL("./src/lib", import.meta.url)) },
  },
  test: {
    name: "web",
    root: here,
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
