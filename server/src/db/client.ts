import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaClient } from "../generated/prisma/client.ts";

export type Db = PrismaClient<"query">;

/** Counts SQL statements, for the tests and the benchmark that hold the units endpoint to a fixed number. */
export interface QueryCounter {
  count: number;
  statements: string[];
  reset(): void;
}

export function createDb(databaseUrl: string): { db: Db; queries: QueryCounter } {
  const adapter = new PrismaLibSQL({ url: databaseUrl });
  const db = new PrismaClient({ adapter, log: [{ emit: "event", level: "query" }] });
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
