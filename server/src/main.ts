import { loadConfig } from "./config.ts";
import { createApp } from "./app.ts";

const config = loadConfig();
const app = await createApp(config);
const port = await app.listen();
const { secrets } = app.ctx;
const url = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}`;
console.log(`Manga library listening on ${url}`);
console.log(`  library root: ${config.libraryRoot}`);
console.log(`  data dir:     ${config.dataDir}`);
console.log(`  API key:      in ${config.dataDir}/secrets.json (send it as X-Api-Key)`);
if (secrets.generatedPassword) {
  // Printed once, on the start that generated it; only its hash is stored.
  console.log(`  web login:    admin / ${secrets.generatedPassword}  (set ADMIN_PASSWORD to choose your own)`);
}

const stop = (signal: string) => {
  console.log(`${signal}: shutting down`);
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
