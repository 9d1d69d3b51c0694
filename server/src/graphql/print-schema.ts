import { writeFileSync } from "node:fs";
import path from "node:path";
import { printSchema } from "graphql";
import { repoRoot } from "../config.ts";
import { schema } from "./schema.ts";

/** Prints the committed schema.graphql from the builder (`pnpm schema:print`); a test fails on drift. */
export function printedSchema(): string {
  return `${printSchema(schema)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(path.join(repoRoot, "schema.graphql"), printedSchema());
  console.log("schema.graphql written");
}
