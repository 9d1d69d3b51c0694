/**
 * The pg adapter as the Prisma CLI needs it (prisma.config.ts loads this file only for a
 * PostgreSQL DATABASE_URL; the service itself never does). Prisma 6.19's adapter has three gaps
 * that only the schema engine meets:
 * - the engine reads catalog columns of the types `name` and `"char"`, which the adapter refuses
 *   ("Column type 'name' could not be deserialized"): they are handed over as text;
 * - its shadow database is `{ ...config, database }`, which a `connectionString` overrides (the
 *   shadow would be the main database): the URL is split into discrete connection fields;
 * - the shadow database is created and dropped through a connection of its own.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { PrismaPg } from "@prisma/adapter-pg";

// The very `pg` the adapter loads (not a dependency of ours).
const pg = createRequire(createRequire(import.meta.url).resolve("@prisma/adapter-pg"))("pg") as {
  Result: { prototype: { addFields(fields: { dataTypeID: number }[]): void } };
};

const NAME = 19;
const CHAR = 18;
const TEXT = 25;
const addFields = pg.Result.prototype.addFields;
pg.Result.prototype.addFields = function (fields) {
  for (const f of fields) if (f.dataTypeID === NAME || f.dataTypeID === CHAR) f.dataTypeID = TEXT;
  addFields.call(this, fields);
};

function connectionFields(url: string) {
  const u = new URL(url);
  return {
    host: decodeURIComponent(u.hostname) || undefined,
    port: u.port ? Number(u.port) : undefined,
    user: decodeURIComponent(u.username) || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.slice(1)) || undefined,
  };
}

class CliPrismaPg extends PrismaPg {
  constructor(private readonly url: string) {
    super(connectionFields(url));
  }

  override async connectToShadowDb() {
    const main = await new PrismaPg(connectionFields(this.url)).connect();
    const database = `prisma_migrate_shadow_db_${randomUUID().replaceAll("-", "")}`;
    await main.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = await new PrismaPg({ ...connectionFields(this.url), database }).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      try {
        await main.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
      } finally {
        await main.dispose();
      }
    };
    return shadow;
  }
}

export function postgresCliAdapter(url: string) {
  return new CliPrismaPg(url);
}
