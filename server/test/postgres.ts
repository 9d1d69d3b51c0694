import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Debian's PostgreSQL binaries (package `postgresql`); PG_BIN overrides. */
export const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export interface PostgresCluster {
  port: number;
  /** A connection URL for one database of the cluster. */
  url(database: string): string;
  /** Runs SQL as the superuser on the maintenance database (or `database`). */
  sql(statement: string, database?: string): Promise<string>;
  stop(): Promise<void>;
}

/** A TCP port free on the loopback interface just now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * A throwaway PostgreSQL cluster: `initdb -A trust` in a temporary folder, `pg_ctl` on a free
 * loopback port with its own socket folder (the system cluster is never touched). PostgreSQL
 * refuses to run as root, so as root the cluster belongs to the `postgres` user. The C locale
 * orders text by bytes, as SQLite does. `stop()` stops the server and removes the folder.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  if (!existsSync(path.join(PG_BIN, "initdb"))) {
    throw new Error(`PostgreSQL is not installed (no ${PG_BIN}/initdb): install the Debian package postgresql`);
  }
  const root = mkdtempSync(path.join(os.tmpdir(), "mls-pg-"));
  const dataDir = path.join(root, "data");
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot
    ? {
        uid: Number(execFileSync("id", ["-u", "postgres"]).toString()),
        gid: Number(execFileSync("id", ["-g", "postgres"]).toString()),
      }
    : {};
  if (asRoot) chownSync(root, owner.uid as number, owner.gid as number);
  const pg = (bin: string, args: string[]) => run(path.join(PG_BIN, bin), args, { ...owner, cwd: root });
  await pg("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await pg("pg_ctl", [
        "-D",
        dataDir,
        "-l",
        path.join(root, "server.log"),
        "-w",
        "-o",
        `-h 127.0.0.1 -p ${port} -k ${root} -c fsync=off -c full_page_writes=off -c max_connections=200`,
        "start",
      ]);
      break;
    } catch (e) {
      if (attempt >= 4) throw e; // another process took the port in between
    }
  }
  return {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async sql(statement, database = "postgres") {
      const { stdout } = await run(path.join(PG_BIN, "psql"), [
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        "postgres",
        "-d",
        database,
        "-v",
        "ON_ERROR_STOP=1",
        "-At",
        "-c",
        statement,
      ]);
      return stdout.trim();
    },
    async stop() {
      try {
        await pg("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
