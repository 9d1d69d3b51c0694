/**
 * The committed `generated/graphql-env.d.ts` (the schema's introspection that types every document)
 * is what gql.tada writes from the committed schema.graphql: regenerate with `pnpm schema:print`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const web = fileURLToPath(new URL("../../..", import.meta.url));

describe("generated/graphql-env.d.ts", () => {
  it("is what gql.tada generates from schema.graphql", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "web-types-"));
    try {
      const out = path.join(dir, "graphql-env.d.ts");
      execFileSync(path.join(web, "node_modules", ".bin", "gql-tada"), ["generate", "output", "--output", out], {
        cwd: web,
        stdio: "pipe",
      });
      const committed = readFileSync(path.join(web, "src", "lib", "generated", "graphql-env.d.ts"), "utf8");
      expect(committed === readFileSync(out, "utf8"), "web types are stale: run pnpm schema:print").toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
