import { loadConfig } from "./config.ts";
import { createApp, type App } from "./app.ts";
import { applyRuntimeSettings } from "./runtime-settings.ts";
import { unscannedSeriesFolders } from "./services/series/demo-service.ts";

/**
 * A stop ends within 10 s (what supervisors grant before SIGKILL): past this, the process exits
 * anyway, and the next start resumes unfinished work from its journal.
 */
const SHUTDOWN_DEADLINE_MS = 9000;
let app: App | null = null;
let stopping = false;

function stop(signal: NodeJS.Signals): void {
  // Ctrl-C in a terminal reaches the process twice (from the terminal and from npm): one stop is enough.
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  setTimeout(() => {
    console.error(
      `shutdown still busy after ${SHUTDOWN_DEADLINE_MS / 1000} s: exiting (unfinished work resumes at the next start)`,
    );
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS).unref();
  // A signal during start-up stops the service as soon as it is wired.
  if (app) void closeAndExit(app);
}

async function closeAndExit(a: App): Promise<never> {
  try {
    await a.close();
    console.log("stopped");
    process.exit(0);
  } catch (e) {
    console.error(`shutdown failed: ${(e as Error).message}`);
    process.exit(1);
  }
}

process.on("SIGINT", stop);
process.on("SIGTERM", stop);

applyRuntimeSettings();
const config = loadConfig();
app = await createApp(config);
if (stopping) await closeAndExit(app);
// Read before listening, so that the banner follows the listen at once.
const unscanned = await unscannedSeriesFolders(app.ctx).catch(() => 0);
const port = await app.listen();
const { secrets } = app.ctx;
const url = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}`;
// One write: whoever reads the output sees the whole banner or none of it.
const banner = [
  `Manga library listening on ${url}`,
  `  library root: ${config.libraryRoot}`,
  `  data dir:     ${config.dataDir}`,
  `  API key:      in ${config.dataDir}/secrets.json (send it as X-Api-Key)`,
];
if (secrets.generatedPassword) {
  // Printed once, on the start that generated it; only its hash is stored.
  banner.push(`  web login:    admin / ${secrets.generatedPassword}  (set ADMIN_PASSWORD to choose your own)`);
}
if (unscanned > 0) {
  // A first start over an existing collection: nothing is read until the operator asks for a scan.
  banner.push(
    `  library:      ${unscanned} series folder${unscanned === 1 ? "" : "s"} not scanned yet: press "Scan library" on the web page (or POST /api/library/scan)`,
  );
}
process.stdout.write(`${banner.join("\n")}\n`);
