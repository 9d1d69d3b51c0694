/**
 * The PostgreSQL schema is derived from the SQLite one: the committed prisma/postgres/schema.prisma
 * must be exactly what the derivation makes of the committed SQLite schema, and its migrations must
 * create exactly its tables and columns (a change of the SQLite schema without a PostgreSQL
 * migration fails here; the medium test postgres.test.ts applies them to a real server).
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { derivePostgresSchema } from "./postgres-schema.ts";

const prismaDir = path.resolve(import.meta.dirname, "..", "..", "..", "prisma");
const read = (...p: string[]) => readFileSync(path.join(prismaDir, ...p), "utf8");

/** Model and column names of a schema (what a migration must create). */
function tablesOf(schema: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of schema.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const body = m[2] as string;
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? (m[1] as string);
    const columns: string[] = [];
    for (const line of body.split("\n")) {
      const f = /^\s+(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!f || line.trim().startsWith("//") || line.trim().startsWith("@@")) continue;
      const [, name, type, list, , rest] = f as unknown as [string, string, string, string | undefined, string, string];
      if (
        list ||
        rest.includes("@relation") ||
        !/^(String|Int|BigInt|Boolean|DateTime|Float|Decimal|Json|Bytes)$/.test(type)
      )
        continue;
      columns.push(/@map\("([^"]+)"\)/.exec(rest)?.[1] ?? name);
    }
    out.set(table, columns.sort());
  }
  return out;
}

/** Tables and columns the migrations create, in order (CREATE TABLE / ADD COLUMN / DROP / RENAME). */
function tablesOfMigrations(dir: string): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  const folders = readdirSync(path.join(prismaDir, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  for (const folder of folders) {
    const sql = read(dir, folder, "migration.sql");
    for (const m of sql.matchAll(/CREATE TABLE "(\w+)" \(\n([\s\S]*?)\n\);/g)) {
      const cols = new Set<string>();
      for (const c of (m[2] as string).matchAll(/^\s+"(\w+)" /gm)) cols.add(c[1] as string);
      out.set(m[1] as string, cols);
    }
    for (const statement of sql.split(";")) {
      const table = /ALTER TABLE "(\w+)"/.exec(statement)?.[1];
      const cols = table ? out.get(table) : undefined;
      if (cols) {
        for (const m of statement.matchAll(/ADD COLUMN\s+"(\w+)"/g)) cols.add(m[1] as string);
        for (const m of statement.matchAll(/DROP COLUMN\s+"(\w+)"/g)) cols.delete(m[1] as string);
        for (const m of statement.matchAll(/RENAME COLUMN\s+"(\w+)" TO "(\w+)"/g)) {
          cols.delete(m[1] as string);
          cols.add(m[2] as string);
        }
      }
      const dropped = /DROP TABLE "(\w+)"/.exec(statement)?.[1];
      if (dropped) out.delete(dropped);
    }
  }
  return new Map([...out].map(([t, c]) => [t, [...c].sort()]));
}

describe("the derived PostgreSQL schema", () => {
  it("is what the derivation makes of the SQLite schema (run `pnpm --filter server prisma:postgres`)", () => {
    expect(read("postgres", "schema.prisma")).toBe(derivePostgresSchema(read("schema.prisma")));
  });

  it("differs from the SQLite schema only in its provider and generators", () => {
    const pg = read("postgres", "schema.prisma");
    expect(pg).toMatch(/provider\s*=\s*"postgresql"/);
    expect(pg).not.toMatch(/generator pothos/);
    expect(tablesOf(pg)).toEqual(tablesOf(read("schema.prisma")));
  });

  it("has migrations that create every table and column of the schema", () => {
    const schema = tablesOf(read("postgres", "schema.prisma"));
    expect(schema.size).toBeGreaterThan(20);
    const postgres = tablesOfMigrations("postgres/migrations");
    expect(Object.fromEntries(postgres)).toEqual(Object.fromEntries(schema));
    expect(read("postgres", "migrations", "migration_lock.toml")).toMatch(/provider = "postgresql"/);
  });
});
