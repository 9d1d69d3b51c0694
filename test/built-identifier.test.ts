/**
 * The language identifier runs in its own thread, from a script next to its source file. The
 * built service and the reference processor are bundles in server/dist/: this builds an entry with
 * the very options of the server's build (server/build.mjs) and checks that the bundled code finds
 * that script and identifies a language, as `npm start` and `pnpm processor` run it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const serverDir = path.resolve(import.meta.dirname, "..", "server");
// One level below server/, like dist/: the bundle's banner finds the server folder one level up.
const outdir = mkdtempSync(path.join(serverDir, ".identifier-check-"));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

it("the bundled identifier starts its thread and identifies French", { timeout: 120_000 }, async () => {
  const entry = path.join(outdir, "entry.ts");
  writeFileSync(
    entry,
    [
      `import { loadLanguageIdentifier } from "../src/translation/language-id.ts";`,
      `const id = await loadLanguageIdentifier();`,
      `const answer = id.identify("Bonjour mon ami, je suis en retard, attends-moi ici. Merci beaucoup pour ton aide !");`,
      `console.log(JSON.stringify({ name: id.name, language: answer.language }));`,
    ].join("\n"),
  );
  const { options } = (await import(path.join(serverDir, "build.mjs"))) as { options: Record<string, unknown> };
  const esbuild = (await import(path.join(serverDir, "node_modules", "esbuild", "lib", "main.js"))) as {
    build: (o: Record<string, unknown>) => Promise<unknown>;
  };
  await esbuild.build({ ...options, entryPoints: { check: entry }, outdir, sourcemap: false });
  const run = spawnSync(process.execPath, [path.join(outdir, "check.js")], { encoding: "utf8", timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  const answer = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { name: string; language: string };
  expect(answer.name).toMatch(/^eld /);
  expect(answer.language).toBe("fr");
});
