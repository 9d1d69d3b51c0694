/**
 * The SQLite driver for Prisma with one connection for the whole process.
 *
 * `@libsql/client` (0.8, and still in its later releases) runs a transaction by handing its
 * connection to the transaction and opening a new one for whatever comes next; the old connection
 * is never closed, only dropped, and goes away when V8 collects its small JavaScript wrapper. Its
 * native memory (the parsed schema, the page cache, statements) is invisible to V8, so nothing
 * hurries that collection: a download of 24 pages commits about a dozen transactions, and a
 * 48-chapter run of the downloads benchmark held about 110 MB of such connections at its peak
 * (heaptrack), plus the CPU of opening each one and parsing the schema again on the event loop
 * (docs/benchmarks.md, "Downloads").
 *
 * Prisma's adapter already serialises everything through one lock that a transaction holds from
 * its BEGIN to its COMMIT or ROLLBACK, so a second connection never ran anything at the same time
 * as the first: the transaction here runs its BEGIN, statements and COMMIT on the client's own
 * connection, and nothing else can come between them.
 *
 * Another process may write to the file too (the sqlite3 shell, a backup tool). SQLite then
 * answers SQLITE_BUSY at once unless the connection has a busy timeout, and a statement that
 * failed so is never reset by the driver: it stays "in progress" until V8 collects it, and until
 * then no COMMIT on that connection succeeds and every autocommit write stays in an open
 * transaction that the final close would roll back. So the connection waits for the lock
 * (busy_timeout), every transaction takes the write lock at BEGIN (one connection gains nothing
 * from deferring it, and a BUSY can then only come before anything was written), and a statement
 * that still fails with SQLITE_BUSY retires its connection for a fresh one.
 */
import { PrismaLibSQL } from "@prisma/adapter-libsql";

type Client = ReturnType<PrismaLibSQL["createClient"]>;
type Config = Parameters<PrismaLibSQL["createClient"]>[0];
type Transaction = Awaited<ReturnType<Client["transaction"]>>;
type TransactionMode = NonNullable<Parameters<Client["batch"]>[1]>;

/** How long a statement waits for another process's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * The statements transactions open with. Deferred ones take the write lock at once too: the one
 * connection runs nothing in parallel, and a read that becomes a write later could meet another
 * process's write lock half-way through the transaction.
 */
const BEGIN: Record<TransactionMode, string> = {
  write: "BEGIN IMMEDIATE",
  read: "BEGIN TRANSACTION READONLY",
  deferred: "BEGIN IMMEDIATE",
};

const isBusy = (e: unknown): boolean => {
  const err = e as { code?: unknown; message?: unknown } | null;
  return (
    (typeof err?.code === "string" && err.code.startsWith("SQLITE_BUSY")) ||
    (typeof err?.message === "string" && err.message.includes("SQLITE_BUSY"))
  );
};

export interface OneConnectionOptions {
  /** Milliseconds to wait for another process's lock (default BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
}

/**
 * `open()`'s connection, with its transactions on that connection, a busy timeout, and a fresh
 * connection after a statement failed with SQLITE_BUSY (see above).
 */
export function oneConnection(open: () => Client, options: OneConnectionOptions = {}): Client {
  const timeout = Math.max(0, Math.floor(options.busyTimeoutMs ?? BUSY_TIMEOUT_MS));
  let client!: Client;
  let ready!: Promise<unknown>;
  let inTransaction = false;
  // A statement failed with SQLITE_BUSY inside a transaction: the connection is replaced once
  // the transaction ends.
  let poisoned = false;

  function connect(): void {
    client = open();
    ready = client.execute(`PRAGMA busy_timeout = ${timeout}`);
    // Surfaced by the first statement that awaits it.
    ready.catch(() => undefined);
  }
  function replace(): void {
    const old = client;
    poisoned = false;
    connect();
    // Nothing of ours is open on it; its stuck statement is finalised when V8 collects it.
    old.close();
  }
  async function run<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    await ready;
    try {
      return await fn(client);
    } catch (e) {
      if (isBusy(e)) {
        if (inTransaction) poisoned = true;
        else replace();
      }
      throw e;
    }
  }
  const ended = () => {
    inTransaction = false;
    if (poisoned) replace();
  };

  function sameConnectionTransaction(): Transaction {
    let live = true;
    const usable = () => {
      if (!live) throw Object.assign(new Error("The transaction is closed"), { code: "TRANSACTION_CLOSED" });
    };
    return {
      async execute(stmt) {
        usable();
        return run((c) => c.execute(stmt));
      },
      async batch(stmts) {
        const out = [];
        for (const stmt of stmts) {
          usable();
          out.push(await run((c) => c.execute(stmt)));
        }
        return out;
      },
      async executeMultiple(sql) {
        usable();
        return run((c) => c.executeMultiple(sql));
      },
      async commit() {
        usable();
        // A failed COMMIT leaves the transaction open: the caller rolls back.
        await run((c) => c.execute("COMMIT"));
        live = false;
        ended();
      },
      async rollback() {
        if (!live) return;
        live = false;
        try {
          await client.execute("ROLLBACK");
        } finally {
          ended();
        }
      },
      close() {
        if (!live) return;
        live = false;
        // SQLite may have rolled back by itself already (then ROLLBACK answers "no transaction").
        void client
          .execute("ROLLBACK")
          .catch(() => undefined)
          .finally(ended);
      },
      get closed() {
        return !live;
      },
    };
  }

  connect();
  return {
    execute: (stmt) => run((c) => c.execute(stmt)),
    batch: (stmts, mode) => run((c) => c.batch(stmts, mode)),
    async transaction(mode: TransactionMode = "write") {
      await run((c) => c.execute(BEGIN[mode]));
      inTransaction = true;
      return sameConnectionTransaction();
    },
    executeMultiple: (sql) => run((c) => c.executeMultiple(sql)),
    sync: () => client.sync(),
    close: () => client.close(),
    get closed() {
      return client.closed;
    },
    get protocol() {
      return client.protocol;
    },
  };
}

/** The driver's own client on `url`, as the adapter makes it (no busy timeout, no replacement). */
export function driverClient(url: string): Client {
  return new PrismaLibSQL({ url }).createClient({ url });
}

/** Prisma's libsql adapter on one connection (see above). */
export class PrismaLibSQLOneConnection extends PrismaLibSQL {
  override createClient(config: Config): Client {
    return oneConnection(() => super.createClient(config));
  }
}
