/**
 * The committed schema.graphql (what the web client and other consumers build against) is the
 * schema the server serves, as `pnpm schema:print` prints it from the Pothos builder.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../src/config.ts";
import { printedSchema } from "../src/graphql/print-schema.ts";

describe("schema.graphql", () => {
  it("equals printedSchema() of server/src/graphql/print-schema.ts", () => {
    const printed = printedSchema();
    // A real schema came out: the root types and a type of each area.
    for (const type of ["type Query", "type Mutation", "type UnitsView", "type ChapterMap", "type Series"])
      expect(printed).toContain(type);
    const committed = readFileSync(path.join(repoRoot, "schema.graphql"), "utf8");
    expect(committed, "schema.graphql is stale: run pnpm schema:print").toBe(printed);
  });
});
