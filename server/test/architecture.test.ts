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
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
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
});
