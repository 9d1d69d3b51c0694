/**
 * Finds the GraphQL documents written in the web client's sources and validates them against the
 * committed schema with graphql-js. A document is the template literal of a `graphql(\`…\`)` call
 * (gql.tada); fragments are found across all files, as gql.tada composes them by reference.
 * Node only: used by the test command, never bundled.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  Kind,
  NoUnusedFragmentsRule,
  parse,
  specifiedRules,
  validate,
  visit,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";

export interface FoundDocument {
  file: string;
  text: string;
}

export interface DocumentProblem {
  file: string;
  message: string;
}

const SOURCE = /\.(ts|svelte)$/;
const CALL = /\bgraphql\(\s*`([^`]*)`/g;
/** Older documents built with the untyped urql tag or string interpolation escape the checks and the types. */
const UNTYPED = /\bgql\s*[<`]/;

/** Every `.ts`/`.svelte` file under `root` except tests and generated files. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !SOURCE.test(entry.name) || entry.name.endsWith(".d.ts")) continue;
    if (/\.test\.ts$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (file.split(path.sep).includes("generated")) continue;
    out.push(file);
  }
  return out.sort();
}

export function findDocuments(files: readonly string[]): { documents: FoundDocument[]; problems: DocumentProblem[] } {
  const documents: FoundDocument[] = [];
  const problems: DocumentProblem[] = [];
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    if (UNTYPED.test(source)) problems.push({ file, message: "a document written with the untyped gql tag" });
    for (const match of source.matchAll(CALL)) {
      const text = match[1]!;
      if (text.includes("${")) problems.push({ file, message: "a document built by string interpolation" });
      else documents.push({ file, text });
    }
  }
  return { documents, problems };
}

/** Validates each operation with the fragments it spreads (transitively); fragments on their own too. */
export function validateDocuments(schema: GraphQLSchema, found: readonly FoundDocument[]): DocumentProblem[] {
  const problems: DocumentProblem[] = [];
  const parsed: { file: string; doc: DocumentNode }[] = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { file, text } of found) {
    try {
      const doc = parse(text);
      parsed.push({ file, doc });
      for (const def of doc.definitions) {
        if (def.kind !== Kind.FRAGMENT_DEFINITION) continue;
        if (fragments.has(def.name.value))
          problems.push({ file, message: `fragment ${def.name.value} is defined twice` });
        fragments.set(def.name.value, def);
      }
    } catch (error) {
      problems.push({ file, message: (error as Error).message });
    }
  }
  for (const { file, doc } of parsed) {
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION && def.kind !== Kind.FRAGMENT_DEFINITION) continue;
      const definitions = [def, ...spreadFragments(def, fragments).filter((f) => f !== def)];
      const name = def.name?.value ?? "(anonymous)";
      // A fragment checked on its own is not "unused".
      const rules = def.kind === Kind.FRAGMENT_DEFINITION ? FRAGMENT_RULES : specifiedRules;
      for (const error of validate(schema, { kind: Kind.DOCUMENT, definitions }, rules)) {
        problems.push({ file, message: `${name}: ${error.message}` });
      }
    }
  }
  return problems;
}

/** Each operation as the client sends it: the operation and every fragment it spreads (transitively). */
export function operationDocuments(
  found: readonly FoundDocument[],
): { file: string; name: string; document: DocumentNode }[] {
  const docs = found.map(({ file, text }) => ({ file, doc: parse(text) }));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { doc } of docs)
    for (const def of doc.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const out: { file: string; name: string; document: DocumentNode }[] = [];
  for (const { file, doc } of docs)
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION) continue;
      const definitions = [def, ...spreadFragments(def, fragments)];
      out.push({ file, name: def.name?.value ?? "(anonymous)", document: { kind: Kind.DOCUMENT, definitions } });
    }
  return out;
}

const FRAGMENT_RULES = specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule);

function spreadFragments(
  root: OperationDefinitionNode | FragmentDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FragmentDefinitionNode[] {
  const seen = new Set<string>();
  const out: FragmentDefinitionNode[] = [];
  const walk = (node: OperationDefinitionNode | FragmentDefinitionNode): void => {
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        if (seen.has(name)) return;
        seen.add(name);
        const fragment = fragments.get(name);
        // An unknown fragment is left out: validate() then reports it.
        if (!fragment) return;
        out.push(fragment);
        walk(fragment);
      },
    });
  };
  walk(root);
  return out;
}
