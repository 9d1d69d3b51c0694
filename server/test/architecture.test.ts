/**
 * Architecture rules as tests (in the spirit of Komga's ArchUnit tests), read from the sources with
 * the TypeScript parser, so comments and strings never count as imports:
 *
 * 1. The rule core (server/src/domain) is pure: it imports only from its own folder ("./…"). No
 *    node:*, no Prisma or generated/, no sharp/unzipper/yazl, no hono/graphql/ws. Its test files
 *    may add the test runner and fast-check.
 * 2. The transports are thin: GraphQL resolvers (server/src/graphql/types/*.ts) and the REST routes
 *    (server/src/http/rest.ts and the presenters it calls) never import a domain rule module; they
 *    call services. `import type` is allowed (shapes, not rules).
 * 3. Every ErrorCode of server/src/errors.ts is answered somewhere in server/src.
 * 4. The layer matrix (LAYER_MATRIX below): every import of every production source file, server and
 *    web, goes only to a layer its own layer may use.
 * 5. One data-access boundary: Prisma delegate calls (`db.series.findMany(…)`, `tx.x.update(…)`) and
 *    `$transaction` / `$queryRaw` / `$executeRaw` appear only under server/src/repositories/ and
 *    server/src/db/.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../src/config.ts";
import { ERRORS } from "../src/errors.ts";

const src = path.join(repoRoot, "server", "src");
const domainDir = path.join(src, "domain");

/** Every .ts file under dir (recursively), absolute paths, sorted. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

const rel = (file: string) => path.relative(repoRoot, file).split(path.sep).join("/");

interface ModuleRef {
  specifier: string;
  /** Erased at compile time: `import type`, `export type … from`, `typeof import("…")`. */
  typeOnly: boolean;
  line: number;
}

/** Every module a source file refers to: static imports, re-exports, import(), require(). */
function moduleRefs(fileName: string, text: string): ModuleRef[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const refs: ModuleRef[] = [];
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      // `import { type A } from "m"` still loads "m" under verbatimModuleSyntax: only `import type` is erased.
      refs.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: node.importClause?.isTypeOnly ?? false,
        line: line(node),
      });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, line: line(node) });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      refs.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly, line: line(node) });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      refs.push({ specifier: node.argument.literal.text, typeOnly: true, line: line(node) });
    } else if (ts.isCallExpression(node)) {
      const dynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const requireCall = ts.isIdentifier(node.expression) && node.expression.text === "require";
      if (dynamicImport || requireCall) {
        const arg = node.arguments[0];
        refs.push({
          specifier: arg && ts.isStringLiteralLike(arg) ? arg.text : "<computed>",
          typeOnly: false,
          line: line(node),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return refs;
}

/* ------------------------------------------------------------------------------------------ */
/* Rule 1: the rule core is pure                                                              */
/* ------------------------------------------------------------------------------------------ */

/** Test files of the rule core and their helpers (test-arbitraries.ts, test-fixtures.ts). */
const isDomainTestFile = (file: string) => /\.test\.ts$/.test(file) || /^test-[\w-]+\.ts$/.test(path.basename(file));
const TEST_ONLY_PACKAGES = new Set(["vitest", "fast-check"]);

function domainViolations(file: string, text: string): string[] {
  const out: string[] = [];
  for (const ref of moduleRefs(file, text)) {
    if (isDomainTestFile(file) && TEST_ONLY_PACKAGES.has(ref.specifier)) continue;
    const target = ref.specifier.startsWith("./") ? path.resolve(path.dirname(file), ref.specifier) : null;
    if (target === null || !target.startsWith(domainDir + path.sep)) {
      out.push(
        `${rel(file)}:${ref.line} imports "${ref.specifier}": domain/ imports only from ./ (the rule core is pure)`,
      );
    }
  }
  return out;
}

/* ------------------------------------------------------------------------------------------ */
/* Rule 2: resolvers and routes call services, not rules                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * The rule modules, and the files they are split into (map-trust.ts re-exports map-suggestions,
 * map-editor and map-labels; coverage.ts is split into coverage-books and coverage-files).
 */
const RULE_MODULES = [
  "coverage.ts",
  "coverage-books.ts",
  "coverage-files.ts",
  "estimates.ts",
  "grouping.ts",
  "map-editor.ts",
  "map-labels.ts",
  "map-suggestions.ts",
  "map-trust.ts",
  "plans.ts",
  "series-form.ts",
  "units.ts",
].map((f) => path.join(domainDir, f));

function transportViolations(file: string, text: string): string[] {
  const out: string[] = [];
  for (const ref of moduleRefs(file, text)) {
    if (ref.typeOnly || !ref.specifier.startsWith(".")) continue;
    const target = path.resolve(path.dirname(file), ref.specifier);
    if (RULE_MODULES.includes(target)) {
      out.push(
        `${rel(file)}:${ref.line} imports "${ref.specifier}": resolvers and routes call services, never the rules (use \`import type\` for shapes)`,
      );
    }
  }
  return out;
}

const resolverFiles = () => tsFiles(path.join(src, "graphql", "types"));
const routeFiles = () => [
  path.join(src, "http", "rest.ts"),
  ...tsFiles(path.join(src, "http")).filter((f) => /[\\/]present[\w-]*\.ts$/.test(f)),
];

/* ------------------------------------------------------------------------------------------ */
/* Rule 3: every error code is used                                                           */
/* ------------------------------------------------------------------------------------------ */

/**
 * Codes a source file answers with: `new AppError("code", …)`, a `code: "code"` property, or
 * `ERRORS.code` / `ERRORS["code"]`.
 */
function usedCodes(fileName: string, text: string): Set<string> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const used = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "AppError") {
      const arg = node.arguments?.[0];
      if (arg && ts.isStringLiteralLike(arg)) used.add(arg.text);
    } else if (
      ts.isPropertyAssignment(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "code" &&
      ts.isStringLiteralLike(node.initializer)
    ) {
      used.add(node.initializer.text);
    } else if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "ERRORS"
    ) {
      used.add(node.name.text);
    } else if (
      ts.isElementAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "ERRORS" &&
      ts.isStringLiteralLike(node.argumentExpression)
    ) {
      used.add(node.argumentExpression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return used;
}

/** Production sources: no tests, no test helpers, no generated code, not errors.ts itself. */
const productionFiles = () =>
  tsFiles(src).filter(
    (f) =>
      !f.endsWith(".test.ts") &&
      !/^test-[\w-]+\.ts$/.test(path.basename(f)) &&
      !f.startsWith(path.join(src, "generated") + path.sep) &&
      f !== path.join(src, "errors.ts"),
  );

/* ------------------------------------------------------------------------------------------ */
/* Rule 4: the layer matrix                                                                   */
/* ------------------------------------------------------------------------------------------ */

type Layer =
  | "domain"
  | "repositories"
  | "database"
  | "prisma"
  | "services"
  | "library"
  | "adapters"
  | "transports"
  | "shared"
  | "shell"
  | "web"
  | "tests"
  | "package";

/**
 * Where a file belongs, by folder. `database` is the client construction and the migration runner
 * (server/src/db); `prisma` is the generated client and its types, and the Prisma packages;
 * `adapters` are the clients of services we do not own and the translation engine (providers,
 * catalogues, translation, the processor program); `shared` are the cross-cutting modules at the
 * top of server/src (configuration, errors, events, secrets, the interval loop); `shell` is the
 * composition root that wires everything (app.ts, main.ts).
 */
const LAYER_FOLDERS: [prefix: string, layer: Layer][] = [
  ["server/src/domain/", "domain"],
  ["server/src/repositories/", "repositories"],
  ["server/src/db/", "database"],
  ["server/src/generated/", "prisma"],
  ["server/src/services/", "services"],
  ["server/src/library/", "library"],
  ["server/src/providers/", "adapters"],
  ["server/src/catalogues/", "adapters"],
  ["server/src/translation/", "adapters"],
  ["server/src/processor/", "adapters"],
  ["server/src/http/", "transports"],
  ["server/src/graphql/", "transports"],
  ["server/src/app.ts", "shell"],
  ["server/src/main.ts", "shell"],
  ["server/src/", "shared"],
  ["web/", "web"],
  ["server/test/", "tests"],
  ["test/", "tests"],
];

/** Packages that belong to a layer (any other package is free to every layer but the domain). */
const PACKAGE_LAYERS: [pattern: RegExp, layer: Layer][] = [
  [/^(@prisma\/|prisma$|prisma\/)/, "prisma"],
  [/^@pothos\/plugin-prisma/, "prisma"],
];

/**
 * The layer matrix: which layers each layer may import. `uses` counts for every import; `shapes`
 * adds layers that may be imported with `import type` only (erased at compile time). A layer may
 * always import itself; `package` is any npm package not claimed by a layer above.
 *
 * | from         | uses                                                         | shapes (import type)      |
 * |--------------|--------------------------------------------------------------|---------------------------|
 * | domain       | —                                                            | —                         |
 * | repositories | domain, database, prisma, shared, package                    | —                         |
 * | database     | prisma, shared, package                                      | —                         |
 * | services     | domain, repositories, library, adapters, shared, package     | —                         |
 * | library      | domain, repositories, shared, package                        | services                  |
 * | adapters     | domain, library, shared, package                             | services, repositories    |
 * | transports   | services, domain, adapters, shared, package                  | library                   |
 * | shared       | domain, package                                              | —                         |
 * | shell        | everything                                                   | —                         |
 * | web          | package                                                      | —                         |
 *
 * In words: the domain is pure; repositories never reach services, the library or transports;
 * adapters are handed the repositories they need (they name their types, never call a factory);
 * services never reach transports; only repositories and the database module see Prisma; the
 * transports (REST and GraphQL) never see repositories, the database or Prisma (rule 2 above keeps
 * them off the rule modules too: they call services); the web client never imports server code.
 */
const LAYER_MATRIX: Record<Exclude<Layer, "package" | "prisma" | "tests">, { uses: Layer[]; shapes: Layer[] }> = {
  domain: { uses: [], shapes: [] },
  repositories: { uses: ["domain", "database", "prisma", "shared", "package"], shapes: [] },
  database: { uses: ["prisma", "shared", "package"], shapes: [] },
  services: { uses: ["domain", "repositories", "library", "adapters", "shared", "package"], shapes: [] },
  library: { uses: ["domain", "repositories", "shared", "package"], shapes: ["services"] },
  adapters: { uses: ["domain", "library", "shared", "package"], shapes: ["services", "repositories"] },
  transports: { uses: ["services", "domain", "adapters", "shared", "package"], shapes: ["library"] },
  shared: { uses: ["domain", "package"], shapes: [] },
  shell: {
    uses: ["domain", "repositories", "database", "services", "library", "adapters", "transports", "shared", "package"],
    shapes: [],
  },
  web: { uses: ["package"], shapes: [] },
};

/**
 * Named exceptions to the matrix, file to file, each with its reason. The test fails when one is no
 * longer needed, so the list only shrinks.
 */
const MATRIX_EXCEPTIONS: { from: string; to: string; reason: string }[] = [
  {
    from: "server/src/graphql/builder.ts",
    to: "server/src/generated/pothos-types.ts",
    reason: "the Pothos Prisma plugin is configured here with the generated data model",
  },
  {
    from: "server/src/graphql/builder.ts",
    to: "@pothos/plugin-prisma",
    reason: "the Pothos Prisma plugin is configured here",
  },
  {
    from: "server/src/graphql/builder.ts",
    to: "server/src/db/client.ts",
    reason: "the Pothos Prisma plugin is handed the client (import type)",
  },
  {
    from: "server/src/services/context.ts",
    to: "server/src/db/client.ts",
    reason: "the context carries the client (import type) that services hand to repository factories",
  },
  {
    from: "server/src/config.ts",
    to: "server/src/services/acquisition/download-pipeline-config.ts",
    reason: "the configuration reads the download pipeline's own settings",
  },
  {
    from: "server/src/config.ts",
    to: "server/src/catalogues/config.ts",
    reason: "the configuration reads the catalogues' own settings",
  },
  {
    from: "server/src/events.ts",
    to: "server/src/services/acquisition/download-pipeline-events.ts",
    reason: "the event bus carries the download events",
  },
  {
    from: "server/src/events.ts",
    to: "server/src/services/translation/translation-worker-events.ts",
    reason: "the event bus carries the translation events",
  },
];

const webDir = path.join(repoRoot, "web", "src");

function layerOfFile(relPath: string): Layer {
  for (const [prefix, layer] of LAYER_FOLDERS) if (relPath.startsWith(prefix)) return layer;
  throw new Error(`${relPath} belongs to no layer: add its folder to LAYER_FOLDERS`);
}

/** The module a specifier names: a repository path for relative imports ("$lib/…" is web), or the package. */
function importTarget(fromFile: string, specifier: string): { target: string; layer: Layer } {
  if (specifier.startsWith(".")) {
    const target = rel(path.resolve(path.dirname(fromFile), specifier));
    return { target, layer: layerOfFile(target) };
  }
  if (specifier === "$lib" || specifier.startsWith("$lib/") || specifier.startsWith("$app/")) {
    return { target: specifier, layer: "web" };
  }
  for (const [pattern, layer] of PACKAGE_LAYERS) if (pattern.test(specifier)) return { target: specifier, layer };
  return { target: specifier, layer: "package" };
}

interface ImportEdge {
  from: string;
  specifier: string;
  typeOnly: boolean;
  line: number;
}

/**
 * The matrix check over a list of imports (repository-relative `from` paths). Returns one line per
 * forbidden import, and marks the exceptions it used in `usedExceptions`.
 */
function matrixViolations(edges: ImportEdge[], usedExceptions = new Set<number>()): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const fromLayer = layerOfFile(e.from);
    if (fromLayer === "tests" || fromLayer === "prisma" || fromLayer === "package") continue;
    const { target, layer } = importTarget(path.join(repoRoot, e.from), e.specifier);
    if (layer === fromLayer) continue;
    const row = LAYER_MATRIX[fromLayer];
    if (row.uses.includes(layer) || (e.typeOnly && row.shapes.includes(layer))) continue;
    const exception = MATRIX_EXCEPTIONS.findIndex((x) => x.from === e.from && x.to === target);
    if (exception >= 0) {
      usedExceptions.add(exception);
      continue;
    }
    out.push(
      `${e.from}:${e.line} (${fromLayer}) imports "${e.specifier}" (${layer}${e.typeOnly ? ", import type" : ""}): not in the ${fromLayer} row of the layer matrix`,
    );
  }
  return out;
}

/** The script blocks of a Svelte component, as one TypeScript text (imports only matter). */
const svelteScripts = (text: string) =>
  [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join("\n");

/** Production sources of the server and the web client (tests and test helpers are not layered). */
const layeredFiles = () => [
  ...productionFiles().filter((f) => !f.startsWith(path.join(src, "generated") + path.sep)),
  path.join(src, "errors.ts"),
  ...readdirSync(webDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|svelte)$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => !f.includes(`${path.sep}generated${path.sep}`))
    .sort(),
];

function importEdges(file: string): ImportEdge[] {
  const raw = readFileSync(file, "utf8");
  const text = file.endsWith(".svelte") ? svelteScripts(raw) : raw;
  return moduleRefs(file, text).map((r) => ({ from: rel(file), ...r }));
}

/* ------------------------------------------------------------------------------------------ */
/* Rule 5: database calls only in repositories                                                */
/* ------------------------------------------------------------------------------------------ */

/** The model delegates of the Prisma client (`model Series` → `series`), read from the schema. */
const prismaDelegates = new Set(
  [...readFileSync(path.join(repoRoot, "prisma", "schema.prisma"), "utf8").matchAll(/^model\s+(\w+)/gm)].map(
    (m) => m[1]![0]!.toLowerCase() + m[1]!.slice(1),
  ),
);
const DELEGATE_OPS = new Set([
  "findMany",
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "create",
  "createMany",
  "createManyAndReturn",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "upsert",
  "delete",
  "deleteMany",
  "count",
  "aggregate",
  "groupBy",
]);
const CLIENT_OPS = /^\$(transaction|queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe|runCommandRaw)$/;
/** Names the client goes by in this code base (`db`, `ctx.db`, a transaction's `tx`, `prisma`, `client`). */
const CLIENT_NAMES = new Set(["db", "tx", "prisma", "client"]);

/**
 * Database calls in a source file: `<client>.<model>.<operation>(…)` where the client is an
 * identifier or property named db/tx/prisma/client, and `<anything>.$transaction(…)` and the raw
 * queries (called or tagged). A syntactic check: a delegate taken apart first
 * (`const { series } = db; series.findMany()`) would escape it, and code review has to catch that.
 */
function databaseCalls(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const nameOf = (e: ts.Expression) =>
    ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : null;
  const visit = (node: ts.Node): void => {
    if (
      ts.isTaggedTemplateExpression(node) &&
      ts.isPropertyAccessExpression(node.tag) &&
      CLIENT_OPS.test(node.tag.name.text)
    ) {
      const lineNo = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      out.push(`${rel(fileName)}:${lineNo} ${node.tag.name.text}`);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const callee = node.expression;
      const op = callee.name.text;
      const lineNo = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      if (CLIENT_OPS.test(op)) out.push(`${rel(fileName)}:${lineNo} ${op}`);
      else if (
        DELEGATE_OPS.has(op) &&
        ts.isPropertyAccessExpression(callee.expression) &&
        prismaDelegates.has(callee.expression.name.text) &&
        CLIENT_NAMES.has(nameOf(callee.expression.expression) ?? "")
      ) {
        out.push(`${rel(fileName)}:${lineNo} ${callee.expression.name.text}.${op}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const dataAccessDirs = [path.join(src, "repositories"), path.join(src, "db")];
const outsideDataAccess = () =>
  productionFiles()
    .concat(path.join(src, "errors.ts"))
    .filter((f) => !dataAccessDirs.some((d) => f.startsWith(d + path.sep)))
    .filter((f) => !f.startsWith(path.join(src, "generated") + path.sep));

/* ------------------------------------------------------------------------------------------ */

describe("the checks themselves", () => {
  it("find static, re-exported, dynamic and required modules, and tell type-only imports apart", () => {
    const text = [
      `import { a } from "./a.ts";`,
      `import type { B } from "../services/b.ts";`,
      `import { type C } from "../domain/c.ts";`,
      `export { d } from "node:fs";`,
      `export type { E } from "./e.ts";`,
      `// import { f } from "./comment.ts";`,
      `const s = "import { g } from './string.ts'";`,
      `const m = await import("sharp");`,
      `const r = require("@prisma/client");`,
      `type T = typeof import("./t.ts");`,
      `const x = await import(s);`,
    ].join("\n");
    expect(moduleRefs("x.ts", text).map((r) => [r.specifier, r.typeOnly, r.line])).toEqual([
      ["./a.ts", false, 1],
      ["../services/b.ts", true, 2],
      ["../domain/c.ts", false, 3],
      ["node:fs", false, 4],
      ["./e.ts", true, 5],
      ["sharp", false, 8],
      ["@prisma/client", false, 9],
      ["./t.ts", true, 10],
      ["<computed>", false, 11],
    ]);
  });

  it("flag what the rules forbid and pass what they allow", () => {
    const domainFile = path.join(domainDir, "example.ts");
    const forbidden = [
      `import { x } from "node:fs";`,
      `import { PrismaClient } from "../generated/prisma/client.ts";`,
      `import sharp from "sharp";`,
      `import { y } from "./../services/y.ts";`,
      `import { describe } from "vitest";`,
    ];
    for (const line of forbidden) expect(domainViolations(domainFile, line), line).toHaveLength(1);
    expect(
      domainViolations(domainFile, `import { label } from "./labels.ts";\nimport type { Unit } from "./types.ts";`),
    ).toEqual([]);
    expect(
      domainViolations(
        path.join(domainDir, "example.test.ts"),
        `import { describe } from "vitest";\nimport fc from "fast-check";`,
      ),
    ).toEqual([]);
    expect(
      domainViolations(path.join(domainDir, "test-example.ts"), `import { readFileSync } from "node:fs";`),
    ).toHaveLength(1);

    const resolver = path.join(src, "graphql", "types", "example.ts");
    expect(
      transportViolations(resolver, `import { buildCoverageIndex } from "../../domain/coverage.ts";`),
    ).toHaveLength(1);
    expect(
      transportViolations(resolver, `import { type MapChangePreview } from "../../domain/coverage.ts";`),
    ).toHaveLength(1);
    expect(transportViolations(resolver, `export { seriesForm } from "../../domain/series-form.ts";`)).toHaveLength(1);
    expect(transportViolations(resolver, `import type { MapChangePreview } from "../../domain/coverage.ts";`)).toEqual(
      [],
    );
    expect(
      transportViolations(
        resolver,
        `import type { Unit } from "../../domain/types.ts";\nimport { seriesView } from "../../services/series-service.ts";`,
      ),
    ).toEqual([]);

    expect(
      [
        ...usedCodes(
          "x.ts",
          `throw new AppError("series_not_found", "x");\nconst p = { code: "internal" };\nERRORS.bad_request;\nconst s = "not_found";`,
        ),
      ].sort(),
    ).toEqual(["bad_request", "internal", "series_not_found"]);
  });
});

describe("the layer matrix and the data-access boundary can fail", () => {
  const edge = (from: string, specifier: string, typeOnly = false): ImportEdge => ({
    from,
    specifier,
    typeOnly,
    line: 1,
  });

  it("the matrix flags a planted forbidden import of each kind and passes the allowed ones", () => {
    const forbidden = [
      edge("server/src/services/planted.ts", "../generated/prisma/client.ts"),
      edge("server/src/services/planted.ts", "../generated/prisma/client.ts", true),
      edge("server/src/services/planted.ts", "@prisma/client"),
      edge("server/src/services/planted.ts", "../db/client.ts", true),
      edge("server/src/services/planted.ts", "../http/rest.ts"),
      edge("server/src/repositories/planted.ts", "../services/series-service.ts"),
      edge("server/src/repositories/planted.ts", "../graphql/builder.ts", true),
      edge("server/src/http/planted.ts", "../repositories/series-repo.ts", true),
      edge("server/src/graphql/types/planted.ts", "../../generated/prisma/client.ts", true),
      edge("server/src/library/planted.ts", "../http/rest.ts"),
      edge("server/src/providers/planted.ts", "../repositories/source-repo.ts"),
      edge("server/src/domain/planted.ts", "../config.ts"),
      edge("server/src/config.ts", "./services/series-service.ts"),
      edge("web/src/lib/planted.ts", "../../../server/src/domain/labels.ts", true),
    ];
    for (const e of forbidden) expect(matrixViolations([e]), `${e.from} → ${e.specifier}`).toHaveLength(1);
    const allowed = [
      edge("server/src/services/planted.ts", "../repositories/series-repo.ts"),
      edge("server/src/services/planted.ts", "../domain/coverage.ts"),
      edge("server/src/repositories/planted.ts", "../generated/prisma/client.ts"),
      edge("server/src/repositories/planted.ts", "../db/client.ts", true),
      edge("server/src/graphql/types/planted.ts", "../../domain/coverage.ts", true),
      edge("server/src/http/planted.ts", "../services/index.ts"),
      edge("server/src/library/planted.ts", "../services/context.ts", true),
      edge("server/src/app.ts", "./db/client.ts"),
      edge("web/src/lib/planted.ts", "$lib/graphql.ts"),
      edge("server/test/planted.test.ts", "../src/generated/prisma/client.ts"),
    ];
    expect(matrixViolations(allowed)).toEqual([]);
    // A named exception covers only its own pair of files.
    expect(matrixViolations([edge("server/src/graphql/builder.ts", "../generated/pothos-types.ts")])).toEqual([]);
    expect(matrixViolations([edge("server/src/graphql/server.ts", "../generated/pothos-types.ts")])).toHaveLength(1);
    expect(() => layerOfFile("elsewhere/x.ts")).toThrow(/no layer/);
  });

  it("the database-call check flags delegate calls, transactions and raw queries, and nothing else", () => {
    const text = [
      `await ctx.db.series.findMany({});`,
      `await db.libraryFile.count({ where: {} });`,
      `await tx.recycleEntry.update({ where: { id: 1 }, data: {} });`,
      `await engine.ctx.db.publicationJournal.deleteMany({});`,
      `await db.$transaction(async (t) => t);`,
      `await other.$queryRawUnsafe("SELECT 1");`,
      `await services.series.update(1, {});`,
      `await ctx.repos.series.get(1);`,
      "await ctx.db.$executeRaw`DELETE FROM series`;",
      `await db.series.require(1);`,
      `// db.series.findMany()`,
    ].join("\n");
    expect(databaseCalls(path.join(src, "services", "planted.ts"), text)).toEqual([
      "server/src/services/planted.ts:1 series.findMany",
      "server/src/services/planted.ts:2 libraryFile.count",
      "server/src/services/planted.ts:3 recycleEntry.update",
      "server/src/services/planted.ts:4 publicationJournal.deleteMany",
      "server/src/services/planted.ts:5 $transaction",
      "server/src/services/planted.ts:6 $queryRawUnsafe",
      "server/src/services/planted.ts:9 $executeRaw",
    ]);
  });

  it("ESLint refuses the Prisma client in a planted service file and allows it in a repository", async () => {
    const eslint = new ESLint({
      cwd: repoRoot,
      // Only the boundary rule: the planted files exist for this call only (no type information).
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
      ruleFilter: ({ ruleId }) => ruleId === "no-restricted-imports",
    });
    const planted = [
      `import { PrismaClient } from "../generated/prisma/client.ts";`,
      `import type { Series } from "../generated/prisma/models.ts";`,
      `import { PrismaLibSQL } from "@prisma/adapter-libsql";`,
      `import type { Prisma } from "@prisma/client";`,
      `export type X = [PrismaClient, Series, PrismaLibSQL, Prisma.SeriesWhereInput];`,
    ].join("\n");
    const lint = async (relPath: string) => {
      const [result] = await eslint.lintText(planted, { filePath: path.join(repoRoot, relPath) });
      // One line per refused import (the domain's own patterns may refuse the same import twice).
      return [...new Set(result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.line))];
    };
    expect(await lint("server/src/services/planted-violation.ts")).toEqual([1, 2, 3, 4]);
    expect(await lint("server/src/library/planted-violation.ts")).toEqual([1, 2, 3, 4]);
    expect(await lint("server/src/graphql/types/planted-violation.ts")).toEqual([1, 2, 3, 4]);
    expect(await lint("server/src/domain/planted-violation.ts")).toEqual([1, 2, 3, 4]);
    expect(await lint("server/test/planted-violation.test.ts")).toEqual([1, 2, 3, 4]);
    expect(await lint("web/src/lib/planted-violation.ts")).toEqual([1, 2, 3, 4]);
    expect(await lint("server/src/repositories/planted-violation.ts")).toEqual([]);
    expect(await lint("server/src/db/planted-violation.ts")).toEqual([]);
  });
});

describe("architecture", () => {
  it("every file under server/src/domain imports only from ./ (no node:*, Prisma, generated/, sharp, unzipper, yazl, hono, graphql, ws)", () => {
    const files = tsFiles(domainDir);
    expect(files.length).toBeGreaterThan(20);
    // The parser does see the rule core's imports (the check is not vacuous).
    const refs = files.flatMap((f) => moduleRefs(f, readFileSync(f, "utf8")));
    expect(refs.filter((r) => r.specifier === "./labels.ts").length).toBeGreaterThan(10);
    const violations = files.flatMap((f) => domainViolations(f, readFileSync(f, "utf8")));
    expect(violations, violations.join("\n")).toEqual([]);
  });

  it("resolvers (graphql/types/*.ts) and routes (http/rest.ts) never import the domain rules, except `import type`", () => {
    const files = [...resolverFiles(), ...routeFiles()];
    expect(resolverFiles().map((f) => path.basename(f))).toEqual(
      expect.arrayContaining(["map.ts", "series.ts", "units.ts"]),
    );
    expect(routeFiles().map(rel)).toContain("server/src/http/rest.ts");
    // They do reach the domain for shapes, and the services for behaviour.
    const refs = files.flatMap((f) => moduleRefs(f, readFileSync(f, "utf8")));
    expect(refs.some((r) => r.typeOnly && r.specifier.includes("/domain/"))).toBe(true);
    expect(refs.some((r) => r.specifier.includes("/services/"))).toBe(true);
    const violations = files.flatMap((f) => transportViolations(f, readFileSync(f, "utf8")));
    expect(violations, violations.join("\n")).toEqual([]);
  });

  it("every ErrorCode in server/src/errors.ts is used somewhere in server/src outside errors.ts", () => {
    const codes = Object.keys(ERRORS);
    expect(codes.length).toBeGreaterThan(5);
    const used = new Set<string>();
    for (const f of productionFiles()) for (const c of usedCodes(f, readFileSync(f, "utf8"))) used.add(c);
    const unused = codes.filter((c) => !used.has(c));
    expect(unused, `error codes never raised: ${unused.join(", ")}`).toEqual([]);
  });

  it("every import of every server and web source follows the layer matrix", () => {
    const files = layeredFiles();
    const layers = new Set(files.map((f) => layerOfFile(rel(f))));
    expect([...layers].sort()).toEqual([
      "adapters",
      "database",
      "domain",
      "library",
      "repositories",
      "services",
      "shared",
      "shell",
      "transports",
      "web",
    ]);
    const edges = files.flatMap(importEdges);
    expect(edges.length).toBeGreaterThan(1000);
    const used = new Set<number>();
    const violations = matrixViolations(edges, used);
    expect(violations, violations.join("\n")).toEqual([]);
    const stale = MATRIX_EXCEPTIONS.filter((_, i) => !used.has(i));
    expect(stale, "exceptions no longer needed: remove them").toEqual([]);
  });

  it("database calls are made only under server/src/repositories and server/src/db", () => {
    const files = outsideDataAccess();
    expect(files.length).toBeGreaterThan(100);
    // The check sees the repositories' own calls (it is not vacuous).
    const inside = tsFiles(path.join(src, "repositories")).flatMap((f) => databaseCalls(f, readFileSync(f, "utf8")));
    expect(inside.length).toBeGreaterThan(100);
    const calls = files.flatMap((f) => databaseCalls(f, readFileSync(f, "utf8")));
    expect(calls, calls.join("\n")).toEqual([]);
  });
});
