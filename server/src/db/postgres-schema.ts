/**
 * The PostgreSQL schema is derived from the SQLite one (prisma/schema.prisma), never edited by hand:
 * the same models, another provider, its own generated client (same model types) and no second
 * Pothos generator (the GraphQL types come from the SQLite client, which has the same models).
 * `pnpm --filter server prisma:postgres` rewrites prisma/postgres/schema.prisma; a test fails when
 * the committed file is not what this function makes of the current SQLite schema.
 */
export const POSTGRES_SCHEMA_HEADER =
  "// Derived from ../schema.prisma by server/scripts/derive-postgres-schema.ts: do not edit.\n" +
  "// Change the SQLite schema, then run `pnpm --filter server prisma:postgres`.\n\n";

export function derivePostgresSchema(sqliteSchema: string): string {
  let out = sqliteSchema.replace(/\r\n/g, "\n");
  const replace = (pattern: RegExp, by: string, what: string) => {
    if (!pattern.test(out)) throw new Error(`the SQLite schema has no ${what}`);
    out = out.replace(pattern, by);
  };
  replace(/(datasource db \{[^}]*provider\s*=\s*)"sqlite"/, '$1"postgresql"', "sqlite datasource");
  replace(
    /(generator client \{[^}]*output\s*=\s*)"\.\.\/server\/src\/generated\/prisma"/,
    '$1"../../server/src/generated/prisma-postgres"',
    "client generator output",
  );
  replace(/\ngenerator pothos \{[^}]*\}\n/, "", "pothos generator");
  return POSTGRES_SCHEMA_HEADER + out;
}
