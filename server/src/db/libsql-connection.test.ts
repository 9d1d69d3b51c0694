/**
 * The SQLite client keeps one connection: transactions run on it and leave it to the statements
 * after them (a TEMP table, which only its own connection sees, proves which connection ran what).
 * Commits, rollbacks, failures inside a transaction and transactions started together behave as
 * they did with a connection per transaction.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./client.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "mls-libsql-"));
let db: Db;

beforeAll(async () => {
  db = createDb(`file:${path.join(dir, "one.db")}`).db;
  await db.$executeRawUnsafe("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL UNIQUE)");
  await db.$executeRawUnsafe("INSERT INTO counter (id, n) VALUES (1, 0)");
});
afterAll(async () => {
  await db.$disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const count = async (sql: string) => Number((await db.$queryRawUnsafe<{ c: bigint }[]>(sql))[0]!.c);

describe("one libsql connection", () => {
  it("runs transactions on the connection the statements before and after them use", async () => {
    await db.$executeRawUnsafe("CREATE TEMP TABLE seen (v INTEGER)");
    for (let i = 0; i < 5; i++) {
      await db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`INSERT INTO seen (v) VALUES (${i})`);
      });
      // A new connection would not know the TEMP table at all.
      expect(await count("SELECT COUNT(*) AS c FROM seen")).toBe(i + 1);
    }
  });

  it("undoes a transaction that throws, and the connection is usable afterwards", async () => {
    await expect(
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("UPDATE counter SET n = 99 WHERE id = 1");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await count("SELECT n AS c FROM counter WHERE id = 1")).toBe(0);
    // Not left inside a transaction: this write is committed on its own.
    await db.$executeRawUnsafe("UPDATE counter SET n = 1 WHERE id = 1");
    expect(await count("SELECT n AS c FROM counter WHERE id = 1")).toBe(1);
  });

  it("rolls back after a failing statement inside a transaction", async () => {
    await expect(
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("INSERT INTO counter (id, n) VALUES (2, 50)");
        await tx.$executeRawUnsafe("INSERT INTO counter (id, n) VALUES (3, 50)"); // UNIQUE(n)
      }),
    ).rejects.toThrow();
    expect(await count("SELECT COUNT(*) AS c FROM counter")).toBe(1);
    await db.$transaction([db.$executeRawUnsafe("INSERT INTO counter (id, n) VALUES (2, 50)")]);
    expect(await count("SELECT COUNT(*) AS c FROM counter")).toBe(2);
  });

  it("serialises transactions started together with plain statements", async () => {
    await db.$executeRawUnsafe("UPDATE counter SET n = 0 WHERE id = 1");
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 4 === 3
          ? db.$queryRawUnsafe("SELECT n FROM counter WHERE id = 1")
          : db.$transaction(async (tx) => {
              const [row] = await tx.$queryRawUnsafe<{ n: bigint }[]>("SELECT n FROM counter WHERE id = 1");
              await new Promise((r) => setTimeout(r, 1));
              await tx.$executeRawUnsafe(`UPDATE counter SET n = ${Number(row!.n) + 1} WHERE id = 1`);
            }),
      ),
    );
    expect(await count("SELECT n AS c FROM counter WHERE id = 1")).toBe(15);
  });
});
