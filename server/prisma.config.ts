import path from "node:path";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import type { PrismaConfig } from "prisma";

// Prisma reads no .env when a config file exists; the CLI gets the same default as the service.
process.env.DATABASE_URL ??= `file:${path.resolve(import.meta.dirname, "..", process.env.DATA_DIR ?? "data", "library.db")}`;

export default {
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(import.meta.dirname, "..", "prisma", "schema.prisma"),
  migrations: { path: path.join(import.meta.dirname, "..", "prisma", "migrations") },
  async adapter() {
    return new PrismaLibSQL({ url: process.env.DATABASE_URL as string });
  },
} satisfies PrismaConfig;
