#!/usr/bin/env node
// `pnpm dev`: watch mode for development. Two processes side by side:
//   - the service from its TypeScript sources, restarted on every change (tsx watch), on $PORT
//     (default 8080) with the same data and library folders as `npm start`;
//   - the web client's dev server with hot reload on http://127.0.0.1:5173 (WEB_DEV_PORT), which
//     passes /api, /graphql (WebSocket included) and the reader apps' endpoints to the service.
// Ctrl-C (or SIGTERM) stops both; when one ends, the other is stopped too.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { installIfChanged, root, systemPackages } from "./setup.mjs";

systemPackages("start");
installIfChanged();

const fromServer = createRequire(path.join(root, "server", "package.json"));
const fromWeb = createRequire(path.join(root, "web", "package.json"));
const tsx = path.join(path.dirname(fromServer.resolve("tsx/package.json")), "dist", "cli.mjs");
const vite = path.join(path.dirname(fromWeb.resolve("vite/package.json")), "bin", "vite.js");

const children = [
  spawn(process.execPath, [tsx, "watch", "--clear-screen=false", "server/src/main.ts"], {
    cwd: root,
    stdio: "inherit",
  }),
  spawn(process.execPath, [vite, "dev", "--host", "127.0.0.1"], { cwd: path.join(root, "web"), stdio: "inherit" }),
];

let exitCode = null;
const stopAll = (signal) => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
};
for (const c of children) {
  c.on("exit", (code) => {
    exitCode ??= code ?? 0;
    stopAll("SIGTERM");
    if (children.every((x) => x.exitCode !== null || x.signalCode !== null)) process.exit(exitCode);
  });
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stopAll(signal));
