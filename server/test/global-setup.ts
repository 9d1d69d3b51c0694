import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../src/db/migrate.ts";

declare module "vitest" {
  export interface ProvidedContext {
    templateDb: string;
  }
}

/** Migrates one template database per run; each database test starts from a copy of it. */
export default async function setup(project: TestProject): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-template-"));
  const file = path.join(dir, "template.db");
  await migrateDatabase(`file:${file}`);
  project.provide("templateDb", file);
}
