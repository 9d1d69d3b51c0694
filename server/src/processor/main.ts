/**
 * `pnpm processor` (or `node --import tsx server/src/processor/main.ts`): the reference processor.
 * Exit codes: 0 after a clean stop, 2 for a usage or safety refusal (e.g. a non-loopback --host
 * without TRANSLATION_PROCESSOR_TOKEN), 1 for a start failure.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createExternalEngine } from "./external-engine.ts";
import { HELP, isLoopback, parseLaunchOptions, UsageError, type LaunchOptions } from "./options.ts";
import { startProcessor } from "./processor.ts";
import type { ProcessorEngine } from "./types.ts";

const log = (line: string) => process.stderr.write(`[processor] ${line}\n`);

async function engineFor(o: LaunchOptions): Promise<ProcessorEngine> {
  if (o.enginePython && o.engineRoot) {
    const configText = o.config ? await readFile(path.resolve(o.config), "utf8") : null;
    return createExternalEngine({
      python: o.enginePython,
      root: path.resolve(o.engineRoot),
      configText,
      cpu: o.cpu,
      log,
    });
  }
  if (o.config) log("--config applies to the external engine only; the built-in local path ignores it");
  // Loaded only here: the local path brings OCR and image libraries with it.
  const { builtInEngine } = await import("./local.ts");
  return builtInEngine();
}

async function main(): Promise<number> {
  let o: LaunchOptions;
  try {
    o = parseLaunchOptions(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${e.message}\n\n${HELP}`);
    return 2;
  }
  if (o.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const token = process.env.TRANSLATION_PROCESSOR_TOKEN || null;
  if (!token && !isLoopback(o.host)) {
    process.stderr.write(
      `Refusing to listen on ${o.host} without a token: set TRANSLATION_PROCESSOR_TOKEN (the service's processor access token) or listen on 127.0.0.1.\n`,
    );
    return 2;
  }
  const engine = await engineFor(o);
  const proc = await startProcessor({
    stateDir: path.resolve(o.state),
    engine,
    host: o.host,
    port: o.port,
    token,
    checkpointDir: o.checkpointDirectory ? path.resolve(o.checkpointDirectory) : undefined,
    maxSourceBytes: o.maxSourceBytes ?? undefined,
    log,
  });
  process.stdout.write(
    `Reference processor (protocol v1) listening on ${proc.url}${token ? "" : " (no token: loopback only)"}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log(`${signal}: stopping (running work is kept for resumption)`);
      resolve();
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  await proc.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`The processor could not start: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
