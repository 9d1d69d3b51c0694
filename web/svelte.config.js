import adapter from "@sveltejs/adapter-node";
import { vitePreprocess } from "@sveltejs/vite-plugin-svelte";

// WEB_OUT (a folder name inside web/, e.g. build-alice) lets several developers build side by side;
// the service reads the build from WEB_BUILD_DIR. Without it: web/build, as the README's commands expect.
const out = process.env.WEB_OUT;

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  kit: { adapter: adapter({ out: out ?? "build" }), ...(out ? { outDir: `${out}-kit` } : {}) },
};
