import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.ts";
import { PrismaClient as PostgresPrismaClient } from "../generated/prisma-postgres/client.ts";
import { PrismaLibSQLOneConnection } from "./libsql-connection.ts";

/**
 * The database client. Its type is the SQLite client's: the PostgreSQL client is generated from
 * the derived schema (same models, same fields), so repositories are written once; only the raw
 * SQL asks which dialect it speaks (dialectOf).
 */
export type Db = PrismaClient<"query">;

export type Dialect = "sqlite" | "postgresql";

/** A postgres:// or postgresql:// URL selects PostgreSQL; anything else is SQLite (libsql). */
export function dialectOfUrl(databaseUrl: string): Dialect {
  return /^postgres(ql)?:\/\//i.test(databaseUrl) ? "postgresql" : "sqlite";
}

/**
 * The dialect of a client or of a transaction client made from it (both carry the provider of
 * the schema their client was generated from).
 */
export function dialectOf(db: Pick<Db, "$queryRaw">): Dialect {
  return (db as unknown as { _activeProvider?: string })._activeProvider === "postgresql" ? "postgresql" : "sqlite";
}

/** Counts SQL statements, for the tests and the benchmark that hold the units endpoint to a fixed number. */
export interface QueryCounter {
  count: number;
  statements: string[];
  reset(): void;
}

export function createDb(databaseUrl: string): { db: Db; queries: QueryCounter } {
  const log = [{ emit: "event" as const, level: "query" as const }];
  const db: Db =
    dialectOfUrl(databaseUrl) === "postgresql"
      ? (new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }), log }) as unknown as Db)
      : new PrismaClient({ adapter: new PrismaLibSQLOneConnection({ url: databaseUrl }), log });
  const queries: QueryCounter = {
    count: 0,
    statements: [],
    reset() {
      this.count = 0;
      this.statements = [];
    },
  };
  db.$on("query", (e) => {
    queries.count += 1;
    if (queries.statements.length < 200) queries.statements.push(e.query);
  });
  return { db, queries };
}
