/**
 * The end-to-end tests run the built service and web client: before them, whichever of the two
 * builds is older than its sources is built again (the same stamps as the README's commands use),
 * so that a test file run alone after an edit tests the edit.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

export default function setup(): void {
  const root = path.resolve(import.meta.dirname, "..");
  const run = spawnSync(process.execPath, [path.join(root, "scripts", "setup.mjs"), "builds"], {
    cwd: root,
    stdio: "inherit",
  });
  if (run.status !== 0) throw new Error(`building the service and the web client failed (exit ${run.status})`);
}
