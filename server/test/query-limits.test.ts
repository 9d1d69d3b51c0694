/**
 * GraphQL query limits (GraphQL Armor): a document with too many aliases, too deep, too many
 * tokens, directives or too costly is refused before it runs, with `extensions.code:
 * query_too_complex` and HTTP 400, over HTTP and WebSocket, introspection included. The alias flood
 * (10,000 aliases of `seriesList`) leaves the health endpoint answering, memory bounded and the
 * library unchanged. Every document of the web client passes the same limits with room to spare.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { getIntrospectionQuery, print, type DocumentNode } from "graphql";
import { createClient } from "graphql-ws";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { repoRoot } from "../src/config.ts";
import { measureDocument, QUERY_LIMITS, type DocumentMeasure } from "../src/graphql/limits.ts";
import { schema } from "../src/graphql/schema.ts";
import { shareTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

interface GqlAnswer {
  status: number;
  errors: { message: string; extensions?: Record<string, unknown> }[];
  data: unknown;
}

async function post(app: TestApp, query: string, variables?: Record<string, unknown>): Promise<GqlAnswer> {
  const res = await app.api("/graphql", { method: "POST", json: { query, variables } });
  const body = (await res.json()) as { errors?: GqlAnswer["errors"]; data?: unknown };
  return { status: res.status, errors: body.errors ?? [], data: body.data };
}

const aliases = (n: number, field = "seriesList { id title }") =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(" ")} }`;
/** A document exactly `levels` deep: no path of the schema is that deep, but type references nest freely. */
const nested = (levels: number) => {
  let inner = "name";
  for (let i = 0; i < levels - 4; i++) inner = `ofType { ${inner} }`;
  return `{ __type(name: "Series") { fields { type { ${inner} } } } }`;
};

function expectTooComplex(answer: GqlAnswer, pattern: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.data).toBeUndefined();
  expect(answer.errors.map((e) => e.extensions?.code)).toContain("query_too_complex");
  expect(answer.errors.map((e) => e.message).join(" | ")).toMatch(pattern);
}

describe("query limits over HTTP", () => {
  let app!: TestApp;
  shareTestApp((a) => (app = a));

  it("refuse the alias flood before anything runs: no statement, library unchanged, health answering, memory bounded", async () => {
    const flood = aliases(10_000);
    const mutationFlood = `mutation { ${Array.from({ length: 10_000 }, (_, i) => `m${i}: createSeries(input: { title: "Flood ${i}" }) { id }`).join(" ")} }`;
    const before = process.resourceUsage().maxRSS;
    app.ctx.queries.reset();
    // Several at once, with the health endpoint asked while they are in flight.
    const floods = Array.from({ length: 8 }, (_, i) => post(app, i % 2 ? mutationFlood : flood));
    const health = fetch(`${app.baseUrl}/api/health`).then(async (r) => ({ status: r.status, body: await r.json() }));
    const answers = await Promise.all(floods);
    expect(await health).toEqual({ status: 200, body: { ok: true } });
    for (const a of answers) expectTooComplex(a, /Token limit of 2000 exceeded/);
    // Refused at parse time: not one database statement ran for the floods.
    expect(app.ctx.queries.count).toBe(0);
    // Peak memory of this process (the service runs in it) grew by far less than one flood used to take.
    expect((process.resourceUsage().maxRSS - before) / 1024).toBeLessThan(64);
    expect((await post(app, "{ seriesList { id } }")).data).toEqual({ seriesList: [] });
  });

  it("refuse more aliases than the limit, and accept the limit itself", async () => {
    expectTooComplex(await post(app, aliases(QUERY_LIMITS.maxAliases + 1)), /Aliases limit of 30 exceeded, found 31/);
    const ok = await post(app, aliases(QUERY_LIMITS.maxAliases));
    expect(ok.status).toBe(200);
    expect(ok.errors).toEqual([]);
  });

  it("refuse a document deeper than 15 levels, introspection included; the standard introspection query passes", async () => {
    expectTooComplex(await post(app, nested(16)), /Query depth limit of 15 exceeded, found 16/);
    expect((await post(app, nested(15))).errors).toEqual([]);
    const introspection = await post(app, getIntrospectionQuery());
    expect(introspection.status).toBe(200);
    expect(introspection.errors).toEqual([]);
    expect(JSON.stringify(introspection.data)).toContain('"name":"Series"');
    // Nested introspection (types → fields → type → fields …) is refused by graphql-js's own rule, as 400.
    const deepIntrospection = `{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }`;
    const refused = await post(app, deepIntrospection);
    expect(refused.status).toBe(400);
    expect(refused.errors[0]?.extensions?.code).toBe("bad_request");
  });

  it("refuse too many directives and too high a cost", async () => {
    const directives = `{ seriesList ${Array.from({ length: 21 }, () => "@include(if: true)").join(" ")} { id } }`;
    expectTooComplex(await post(app, directives), /Directives limit of 20 exceeded, found 21/);
    // The standard introspection query fits; the same selection twice in one document costs too much.
    const introspection = getIntrospectionQuery();
    const fragments = introspection.indexOf("fragment FullType");
    const operation = introspection.slice(0, fragments);
    const selection = operation.slice(operation.indexOf("{") + 1, operation.lastIndexOf("}"));
    const twice = `query Twice { a: ${selection} b: ${selection} } ${introspection.slice(fragments)}`;
    expectTooComplex(await post(app, twice), /Query Cost limit of 20000 exceeded/);
  });

  it("refuse a flood of operations in one document by its tokens, whatever operation is chosen", async () => {
    const many = Array.from({ length: 2000 }, (_, i) => `query Q${i} { seriesList { id } }`).join("\n");
    expectTooComplex(await post(app, many), /Token limit/);
  });
});

describe("query limits over WebSocket", () => {
  let app!: TestApp;
  shareTestApp((a) => (app = a));

  it("refuse an over-limit subscription document with the same code", async () => {
    const client = createClient({
      url: `${app.baseUrl.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { apiKey: TEST_API_KEY },
      retryAttempts: 0,
    });
    try {
      const fields = Array.from({ length: 40 }, (_, i) => `a${i}: libraryEvents { kind }`).join(" ");
      const errors = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: `subscription { ${fields} }` },
          { next: () => undefined, error: resolve, complete: () => resolve(null) },
        );
      });
      expect(JSON.stringify(errors)).toMatch(/query_too_complex/);
      expect(JSON.stringify(errors)).toMatch(/Aliases limit of 30 exceeded/);
    } finally {
      await client.dispose();
    }
  });
});

/* ------------------------------------------------------------------------------------------- */
/* The web client's own documents                                                               */
/* ------------------------------------------------------------------------------------------- */

const webLib = path.join(repoRoot, "web", "src", "lib");
const webSrc = path.join(repoRoot, "web", "src");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("the web client's documents", () => {
  const sources = filesUnder(webSrc).filter((f) => /\.(ts|svelte)$/.test(f) && !/\.test\.ts$/.test(f));
  const usesGql = (f: string) => /\bgql\s*(<|`|\()/.test(readFileSync(f, "utf8"));

  it("live in plain .ts modules (never inline in a component), so this test sees every one", () => {
    const inline = sources.filter((f) => /\.svelte(\.ts)?$/.test(f) && usesGql(f));
    expect(inline.map((f) => path.relative(repoRoot, f))).toEqual([]);
  });

  it("all stay well inside every limit (at most two thirds of each)", async () => {
    // Every typed document of the web client, each operation with the fragments it spreads, as sent.
    const { findDocuments, operationDocuments, sourceFiles } = (await import(
      path.join(webLib, "graphql-check", "documents.ts")
    )) as typeof import("../../web/src/lib/graphql-check/documents.ts");
    const found = findDocuments(sourceFiles(webSrc));
    expect(found.problems).toEqual([]);
    const documents: { name: string; source: string }[] = operationDocuments(found.documents).map((d) => ({
      name: `${path.relative(webLib, d.file)} ${d.name}`,
      source: print(d.document),
    }));
    // The generated page-count queries, as the assembly dialog sends them for a book of 45 files.
    const { pageCountsQueries, PAGE_COUNT_BATCH } = (await import(path.join(webLib, "assembly", "documents.ts"))) as {
      pageCountsQueries: (ids: number[]) => DocumentNode[];
      PAGE_COUNT_BATCH: number;
    };
    const batches = pageCountsQueries(Array.from({ length: 45 }, (_, i) => i + 1));
    expect(batches.map((d) => d.definitions.length)).toEqual([1, 1, 1]);
    batches.forEach((d, i) => documents.push({ name: `assembly page counts ${i}`, source: print(d) }));
    expect(PAGE_COUNT_BATCH).toBeLessThanOrEqual((QUERY_LIMITS.maxAliases * 2) / 3);
    expect(documents.length).toBeGreaterThan(40);

    const measured: (DocumentMeasure & { name: string })[] = documents.map((d) => ({
      name: d.name,
      ...measureDocument(schema, d.source),
    }));
    expect(measured.filter((m) => m.errors.length > 0).map((m) => `${m.name}: ${m.errors.join("; ")}`)).toEqual([]);
    const widest = {
      tokens: Math.max(...measured.map((m) => m.tokens)),
      aliases: Math.max(...measured.map((m) => m.aliases)),
      depth: Math.max(...measured.map((m) => m.depth)),
      directives: Math.max(...measured.map((m) => m.directives)),
      cost: Math.max(...measured.map((m) => m.cost)),
    };
    const room = (figure: number, limit: number) => figure <= (limit * 2) / 3;
    expect({
      tokens: room(widest.tokens, QUERY_LIMITS.maxTokens),
      aliases: room(widest.aliases, QUERY_LIMITS.maxAliases),
      depth: room(widest.depth, QUERY_LIMITS.maxDepth),
      directives: room(widest.directives, QUERY_LIMITS.maxDirectives),
      cost: room(widest.cost, QUERY_LIMITS.maxCost),
      widest,
    }).toEqual({ tokens: true, aliases: true, depth: true, directives: true, cost: true, widest });
  });
});
