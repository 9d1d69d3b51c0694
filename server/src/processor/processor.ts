/**
 * One running reference processor: the store under `stateDir`, the job manager over an engine and
 * the HTTP server. `close()` stops accepting, aborts running work between pages (it stays
 * resumable), waits for the last writes and closes the engine.
 */
import type { AddressInfo } from "node:net";
import path from "node:path";
import { DEFAULT_ARCHIVE_LIMITS } from "../config.ts";
import type { ArchiveOpenOptions } from "../library/archive-reader.ts";
import { createJobManager, type JobManager } from "./jobs.ts";
import { createProcessorServer } from "./server.ts";
import { openStore } from "./store.ts";
import type { ProcessorEngine } from "./types.ts";

export interface ProcessorOptions {
  stateDir: string;
  engine: ProcessorEngine;
  /** Listen address; port 0 picks a free port. */
  host?: string;
  port?: number;
  /** Bearer token; null accepts every request (only allowed on loopback by main.ts). */
  token?: string | null;
  /** Default `<stateDir>/checkpoints`. */
  checkpointDir?: string;
  /** Largest source upload (default: the service's archive total-size limit). */
  maxSourceBytes?: number;
  archiveLimits?: ArchiveOpenOptions;
  log?: (line: string) => void;
}

export interface RunningProcessor {
  url: string;
  host: string;
  port: number;
  jobs: JobManager;
  close(): Promise<void>;
}

export async function startProcessor(o: ProcessorOptions): Promise<RunningProcessor> {
  const stateDir = path.resolve(o.stateDir);
  const store = await openStore(stateDir);
  const log = o.log ?? (() => undefined);
  const jobs = createJobManager({
    store,
    engine: o.engine,
    checkpointRoot: path.resolve(o.checkpointDir ?? path.join(stateDir, "checkpoints")),
    maxSourceBytes: o.maxSourceBytes ?? DEFAULT_ARCHIVE_LIMITS.maxTotalBytes,
    archiveLimits: o.archiveLimits,
    log,
  });
  const server = createProcessorServer(jobs, o.token ?? null, log);
  const host = o.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 8095, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shown}:${port}`,
    host,
    port,
    jobs,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await jobs.stop();
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
