import adapter from "@sveltejs/adapter-node";
import { vitePreprocess } from "@sveltejs/vite-plugin-svelte";

// WEB_OUT (a folder name inside web/, e.g. build-alice) lets several developers build side by side;
// the service reads the build from WEB_BUILD_DIR. Without it: web/build, as the README's commands expect.
const out = process.env.WEB_OUT;

/**
 * The Content-Security-Policy of every page. SvelteKit adds a fresh nonce for its inline start-up
 * script to script-src on each response ("auto": nonces for rendered pages). Styles allow inline
 * `style` attributes (Svelte sets some); images (covers, pages, thumbnails) come from the API;
 * live updates use a same-origin WebSocket ('self' covers ws: and wss: on the same host).
 */
const csp = {
  mode: "auto",
  directives: {
    "default-src": ["self"],
    "script-src": ["self"],
    "style-src": ["self", "unsafe-inline"],
    "img-src": ["self"],
    "font-src": ["self"],
    "connect-src": ["self"],
    "object-src": ["none"],
    "base-uri": ["self"],
    "form-action": ["self"],
    "frame-ancestors": ["none"],
  },
};

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  kit: { adapter: adapter({ out: out ?? "build" }), csp, ...(out ? { outDir: `${out}-kit` } : {}) },
};
