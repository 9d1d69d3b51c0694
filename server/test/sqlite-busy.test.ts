/**
 * The SQLite connection while another process writes to the same file (the sqlite3 shell, a
 * backup tool): a statement waits for the other's lock instead of failing at once, and when the
 * lock outlasts the wait, the failed statement does not leave the connection unable to commit
 * (the driver never resets it; the connection is replaced). The other process is a real one: the
 * wait blocks this thread, so a holder on it could never let go.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDb } from "../src/db/client.ts";
import { driverClient, oneConnection } from "../src/db/libsql-connection.ts";

const adapterEntry = pathToFileURL(createRequire(import.meta.url).resolve("@prisma/adapter-libsql")).href;

let dir: string;
let url: string;
const raw = () => driverClient(url);

/** Another process that takes the write lock, writes a row, and commits after `holdMs`. */
async function holdWriteLock(holdMs: number): Promise<{ child: ChildProcess; done: Promise<number | null> }> {
  const script = `
    const { PrismaLibSQL } = await import(${JSON.stringify(adapterEntry)});
    const url = ${JSON.stringify(url)};
    const c = new PrismaLibSQL({ url }).createClient({ url });
    const tx = await c.transaction("write");
    await tx.execute("INSERT INTO t (v) VALUES ('other')");
    process.stdout.write("locked\\n");
    setTimeout(async () => { await tx.commit(); c.close(); process.exit(0); }, ${holdMs});
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const done = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("locked")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the lock holder exited (${code}): ${err}`)));
  });
  return { child, done };
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mls-busy-"));
  url = `file:${path.join(dir, "busy.db")}`;
  const c = raw();
  await c.execute("PRAGMA journal_mode=WAL");
  await c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  c.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const values = async (): Promise<string[]> => {
  const c = raw();
  try {
    return (await c.execute("SELECT v FROM t ORDER BY id")).rows.map((r) => String(r.v));
  } finally {
    c.close();
  }
};

describe("SQLite shared with another process", () => {
  it("waits for the other process's write lock, in a statement and in a transaction", async () => {
    const { db } = createDb(url);
    try {
      const holder = await holdWriteLock(400);
      await db.$executeRawUnsafe("INSERT INTO t (v) VALUES ('ours')");
      expect(await holder.done).toBe(0);
      const again = await holdWriteLock(400);
      await db.$transaction(async (tx) => {
        await tx.$queryRawUnsafe("SELECT count(*) FROM t");
        await tx.$executeRawUnsafe("INSERT INTO t (v) VALUES ('in a transaction')");
      });
      expect(await again.done).toBe(0);
      expect(await values()).toEqual(["other", "ours", "other", "in a transaction"]);
    } finally {
      await db.$disconnect();
    }
  });

  it("commits again after a statement gave up on a lock held too long", async () => {
    const c = oneConnection(raw, { busyTimeoutMs: 50 });
    try {
      const holder = await holdWriteLock(1500);
      await expect(c.execute("INSERT INTO t (v) VALUES ('lost')")).rejects.toThrow(/SQLITE_BUSY/);
      await expect(c.transaction("deferred")).rejects.toThrow(/SQLITE_BUSY/);
      expect(await holder.done).toBe(0);

      // The driver left both failed statements in progress on the connection they ran on.
      const tx = await c.transaction("deferred");
      await tx.execute("INSERT INTO t (v) VALUES ('committed')");
      await tx.commit();
      await c.execute("INSERT INTO t (v) VALUES ('autocommitted')");
      // Seen from another connection: committed, not held in a transaction left open.
      expect(await values()).toEqual(["other", "committed", "autocommitted"]);
    } finally {
      c.close();
    }
  });

  it("takes the write lock when a transaction begins, so another writer cannot come in between", async () => {
    const c = oneConnection(raw, { busyTimeoutMs: 50 });
    const other = oneConnection(raw, { busyTimeoutMs: 0 });
    try {
      const tx = await c.transaction("deferred");
      await tx.execute("SELECT count(*) FROM t");
      await expect(other.execute("INSERT INTO t (v) VALUES ('between')")).rejects.toThrow(/SQLITE_BUSY/);
      await tx.execute("INSERT INTO t (v) VALUES ('ours')");
      await tx.commit();
      await other.execute("INSERT INTO t (v) VALUES ('after')");
      expect(await values()).toEqual(["ours", "after"]);
    } finally {
      c.close();
      other.close();
    }
  });
});
