#!/usr/bin/env node
// The server's build: esbuild bundles our TypeScript (the generated Prisma client included) into
// plain ES modules that Node runs without any loader — dist/main.js (the service) and
// dist/processor.js (the reference processor). Dependencies stay in node_modules (imported as
// they are: native parts such as sharp and libsql, tesseract.js's worker script, one copy of graphql).
//
//   node build.mjs            one build
//   node build.mjs --watch    rebuilds on every change (prints one line per build)
//
// Source files that locate things next to themselves (`import.meta.dirname`, `import.meta.filename`)
// keep meaning their source folder: the bundle replaces both with the source file's own path,
// computed from where the bundle lies, so `path.resolve(import.meta.dirname, "..", "..")` in
// src/config.ts still names the repository root, and the processor still finds its adapter script.
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import * as esbuild from "esbuild";

const serverDir = import.meta.dirname;
const outdir = path.join(serverDir, "dist");
const watch = process.argv.includes("--watch");

/** `import.meta.dirname` / `import.meta.filename` of a source file, as seen from the bundle. */
const sourceLocation = {
  name: "source-location",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      if (!text.includes("import.meta.dirname") && !text.includes("import.meta.filename")) return undefined;
      const rel = (p) => JSON.stringify(path.relative(serverDir, p).split(path.sep).join("/"));
      return {
        loader: "ts",
        contents: text
          .replaceAll("import.meta.dirname", `__serverPath(${rel(path.dirname(args.path))})`)
          .replaceAll("import.meta.filename", `__serverPath(${rel(args.path)})`),
      };
    });
  },
};

// Every bundle lies directly in dist/, so the server folder is one level up from each.
const banner = [
  `import { fileURLToPath as __fileURLToPath } from "node:url";`,
  `import { join as __join } from "node:path";`,
  `const __serverDir = __fileURLToPath(new URL("..", import.meta.url));`,
  `const __serverPath = (p) => __join(__serverDir, p);`,
].join("\n");

/** @type {import("esbuild").BuildOptions} */
export const options = {
  entryPoints: { main: "src/main.ts", processor: "src/processor/main.ts" },
  absWorkingDir: serverDir,
  outdir,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  sourcesContent: false,
  legalComments: "none",
  banner: { js: banner },
  plugins: [sourceLocation],
  logLevel: "warning",
};

// Imported (a test bundles its own entry with these options): build nothing.
const imported = process.argv[1] !== undefined && path.resolve(process.argv[1]) !== import.meta.filename;

if (imported) {
  // nothing: the importer uses `options`
} else if (watch) {
  const ctx = await esbuild.context({
    ...options,
    plugins: [
      ...options.plugins,
      {
        name: "report",
        setup(build) {
          build.onEnd((r) =>
            console.log(`[build] server ${r.errors.length === 0 ? "rebuilt" : `failed (${r.errors.length} errors)`}`),
          );
        },
      },
    ],
  });
  await ctx.watch();
} else {
  await rm(outdir, { recursive: true, force: true });
  const started = performance.now();
  await esbuild.build(options);
  console.log(`server built into dist/ in ${Math.round(performance.now() - started)} ms`);
}
