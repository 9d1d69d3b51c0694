import { sveltekit } from "@sveltejs/kit/vite";
import { defineConfig } from "vite";

// `pnpm dev`: the dev server (hot reload on 5173, or WEB_DEV_PORT) passes the API, GraphQL and its
// WebSocket, and the reader apps' endpoints, to the service started beside it (API_ORIGIN, default
// http://127.0.0.1:$PORT or :8080).
const api = process.env.API_ORIGIN ?? `http://127.0.0.1:${process.env.PORT || "8080"}`;

export default defineConfig({
  plugins: [sveltekit()],
  server: {
    port: Number(process.env.WEB_DEV_PORT || 5173),
    strictPort: true,
    proxy: {
      "/api": api,
      "/graphql": { target: api, ws: true },
      "/opds": api,
      "/komga": api,
      "/koreader": api,
    },
  },
});
