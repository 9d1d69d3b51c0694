import path from "node:path";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import type { PrismaConfig } from "prisma";

// A postgres:// or postgresql:// DATABASE_URL selects the PostgreSQL schema (derived from the SQLite
// one), its own migrations and the pg adapter; anything else is the embedded SQLite database.
// PRISMA_DIALECT=postgresql selects it without a database (to generate the PostgreSQL client; the
// datasource then needs a PostgreSQL URL, never contacted by generate).
const isPostgresUrl = (url: string | undefined) => /^postgres(ql)?:\/\//i.test(url ?? "");
const postgres = process.env.PRISMA_DIALECT === "postgresql" || isPostgresUrl(process.env.DATABASE_URL);
if (postgres && !isPostgresUrl(process.env.DATABASE_URL))
  process.env.DATABASE_URL = "postgresql://localhost/manga_library";
// Prisma reads no .env when a config file exists; the CLI gets the same default as the service.
process.env.DATABASE_URL ??= `file:${path.resolve(import.meta.dirname, "..", process.env.DATA_DIR ?? "data", "library.db")}`;
const prismaDir = path.join(import.meta.dirname, "..", "prisma", ...(postgres ? ["postgres"] : []));

export default {
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(prismaDir, "schema.prisma"),
  migrations: { path: path.join(prismaDir, "migrations") },
  async adapter() {
    if (postgres) {
      const { postgresCliAdapter } = await import("./src/db/postgres-cli.ts");
      return postgresCliAdapter(process.env.DATABASE_URL as string);
    }
    return new PrismaLibSQL({ url: process.env.DATABASE_URL as string });
  },
} satisfies PrismaConfig;
