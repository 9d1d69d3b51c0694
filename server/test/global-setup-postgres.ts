import type { TestProject } from "vitest/node";
import { createDb } from "../src/db/client.ts";
import { migrateDatabase } from "../src/db/migrate.ts";
import { installRevisionTriggers } from "../src/repositories/revision-repo.ts";
import { startPostgres } from "./postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The PostgreSQL project's cluster: the URL of its maintenance database and the migrated template. */
    postgres?: { adminUrl: string; template: string };
  }
}

export const POSTGRES_TEMPLATE = "library_template";

/**
 * The PostgreSQL project's run: one throwaway cluster, one migrated template database (with the
 * revision triggers); each test app starts from its own copy (CREATE DATABASE … TEMPLATE).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgres();
  try {
    await cluster.sql(`CREATE DATABASE ${POSTGRES_TEMPLATE}`);
    const url = cluster.url(POSTGRES_TEMPLATE);
    await migrateDatabase(url);
    const { db } = createDb(url);
    try {
      await installRevisionTriggers(db);
    } finally {
      await db.$disconnect();
    }
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  project.provide("postgres", { adminUrl: cluster.url("postgres"), template: POSTGRES_TEMPLATE });
  return () => cluster.stop();
}
