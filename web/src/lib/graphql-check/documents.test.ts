import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSchema, parse, validate } from "graphql";
import { afterAll, describe, expect, it } from "vitest";
import { pageCountsQuery } from "$lib/assembly/documents";
import { findDocuments, sourceFiles, validateDocuments } from "./documents";

const webSrc = fileURLToPath(new URL("../..", import.meta.url));
const schema = buildSchema(readFileSync(fileURLToPath(new URL("../../../../schema.graphql", import.meta.url)), "utf8"));

function check(root: string) {
  const { documents, problems } = findDocuments(sourceFiles(root));
  return { documents, problems: [...problems, ...validateDocuments(schema, documents)] };
}

describe("the web client's GraphQL documents", () => {
  it("all validate against schema.graphql", () => {
    const { documents, problems } = check(webSrc);
    expect(problems).toEqual([]);
    // The scan really finds the client's documents (queries, mutations, subscriptions, fragments);
    // documents in .svelte files are found too (see the planted one below).
    expect(documents.length).toBeGreaterThan(60);
    const files = new Set(documents.map((d) => path.relative(webSrc, d.file)));
    expect(files).toContain(path.join("lib", "queries.ts"));
  });

  it("the page-count query built at run time validates too", () => {
    expect(validate(schema, parse(pageCountsQuery([3, 5])))).toEqual([]);
  });

  const planted = mkdtempSync(path.join(tmpdir(), "web-documents-"));
  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  it("fails on a planted invalid document, an unknown fragment and an untyped one", () => {
    mkdirSync(path.join(planted, "lib"));
    const call = "graph" + "ql";
    writeFileSync(
      path.join(planted, "lib", "good.ts"),
      `export const F = ${call}(\`fragment Names on Series { id title }\`);\n` +
        `export const Q = ${call}(\`query Good { seriesList { ...Names } }\`, [F]);\n`,
    );
    expect(check(planted).problems).toEqual([]);

    writeFileSync(
      path.join(planted, "lib", "Bad.svelte"),
      `<script lang="ts">\n  const Q = ${call}(\`query Bad($id: Int!) { series(id: $id) { id noSuchField } }\`);\n</script>\n`,
    );
    writeFileSync(
      path.join(planted, "lib", "lost.ts"),
      `export const Q = ${call}(\`query Lost { seriesList { ...Gone } }\`);\n`,
    );
    writeFileSync(path.join(planted, "lib", "old.ts"), "export const Q = gq" + "l`query Old { seriesList { id } }`;\n");
    const messages = check(planted).problems.map((p) => `${path.basename(p.file)}: ${p.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Bad\.svelte: Bad: Cannot query field "noSuchField" on type "Series"/),
        expect.stringMatching(/^lost\.ts: Lost: Unknown fragment "Gone"/),
        "old.ts: a document written with the untyped gql tag",
      ]),
    );
    expect(messages).toHaveLength(3);
  });
});
