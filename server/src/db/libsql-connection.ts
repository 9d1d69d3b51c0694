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
 */
import { PrismaLibSQL } from "@prisma/adapter-libsql";

type Client = ReturnType<PrismaLibSQL["createClient"]>;
type Config = Parameters<PrismaLibSQL["createClient"]>[0];
type Transaction = Awaited<ReturnType<Client["transaction"]>>;
type TransactionMode = NonNullable<Parameters<Client["batch"]>[1]>;

/** The statements `@libsql/client` opens its transactions with. */
const BEGIN: Record<TransactionMode, string> = {
  write: "BEGIN IMMEDIATE",
  read: "BEGIN TRANSACTION READONLY",
  deferred: "BEGIN DEFERRED",
};

/** A transaction on the client's own connection (the caller holds the adapter's lock throughout). */
function sameConnectionTransaction(client: Client): Transaction {
  let open = true;
  const usable = () => {
    if (!open) throw Object.assign(new Error("The transaction is closed"), { code: "TRANSACTION_CLOSED" });
  };
  return {
    async execute(stmt) {
      usable();
      return client.execute(stmt);
    },
    async batch(stmts) {
      const out = [];
      for (const stmt of stmts) {
        usable();
        out.push(await client.execute(stmt));
      }
      return out;
    },
    async executeMultiple(sql) {
      usable();
      return client.executeMultiple(sql);
    },
    async commit() {
      usable();
      await client.execute("COMMIT");
      open = false;
    },
    async rollback() {
      if (!open) return;
      open = false;
      await client.execute("ROLLBACK");
    },
    close() {
      if (!open) return;
      open = false;
      // SQLite may have rolled back by itself already (then ROLLBACK answers "no transaction").
      void client.execute("ROLLBACK").catch(() => undefined);
    },
    get closed() {
      return !open;
    },
  };
}

/** `client` whose transactions stay on its one connection. */
export function oneConnection(client: Client): Client {
  return {
    execute: (stmt) => client.execute(stmt),
    batch: (stmts, mode) => client.batch(stmts, mode),
    async transaction(mode: TransactionMode = "write") {
      await client.execute(BEGIN[mode]);
      return sameConnectionTransaction(client);
    },
    executeMultiple: (sql) => client.executeMultiple(sql),
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

/** Prisma's libsql adapter on one connection (see above). */
export class PrismaLibSQLOneConnection extends PrismaLibSQL {
  override createClient(config: Config): Client {
    return oneConnection(super.createClient(config));
  }
}
