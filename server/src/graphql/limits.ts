/**
 * Query limits (GraphQL Armor): every document, introspection included, is measured before it runs
 * and refused with `extensions.code: query_too_complex` (HTTP 400) when it is too large. The same
 * limits apply over HTTP and WebSocket (both go through yoga's envelop), and the web client's own
 * documents are checked against them by a test (they stay well inside).
 */
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import type { GraphQLArmorConfig } from "@escape.tech/graphql-armor-types";
import { GraphQLError, specifiedRules, validate, type GraphQLSchema, type ValidationContext } from "graphql";
import { MaxTokensParserWLexer } from "@escape.tech/graphql-armor-max-tokens";
import { costLimitRule } from "@escape.tech/graphql-armor-cost-limit";
import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesRule } from "@escape.tech/graphql-armor-max-directives";

/** The limits, as docs/api.md lists them. */
export const QUERY_LIMITS = {
  /** Aliases in one document (a generated page-count query sends at most 20 per request). */
  maxAliases: 30,
  /** Nesting of selections (fragments flattened); the standard introspection query needs exactly 15. */
  maxDepth: 15,
  /** Lexical tokens of the document (the largest web document has 224). */
  maxTokens: 2000,
  /** Directives in one document. */
  maxDirectives: 20,
  /**
   * Armor's cost: 2 per object field, 1 per scalar, children weighted 1.5 per level of depth. The
   * standard introspection query costs about 15,500; the costliest web document about 400.
   */
  maxCost: 20_000,
} as const;

export const QUERY_TOO_COMPLEX = "query_too_complex";

/** The error every limit answers with: a client's mistake (400), said with the limit in words. */
export function queryTooComplex(message: string): GraphQLError {
  return new GraphQLError(message.replace(/^Syntax Error: /, ""), {
    extensions: { code: "query_too_complex", status: 400, http: { status: 400, spec: false } },
  });
}

/** Validation-time limits report into the validation context; parse-time (tokens) ones throw. */
const report = (ctx: ValidationContext | null, error: GraphQLError): void => {
  if (ctx) ctx.reportError(queryTooComplex(error.message));
};
const atValidation = () => ({ propagateOnRejection: false, onReject: [report], exposeLimits: true });

export function armorConfig(): GraphQLArmorConfig {
  return {
    maxAliases: { n: QUERY_LIMITS.maxAliases, allowList: [], ...atValidation() },
    maxDepth: { n: QUERY_LIMITS.maxDepth, ignoreIntrospection: false, flattenFragments: true, ...atValidation() },
    maxDirectives: { n: QUERY_LIMITS.maxDirectives, ...atValidation() },
    costLimit: {
      maxCost: QUERY_LIMITS.maxCost,
      objectCost: 2,
      scalarCost: 1,
      depthCostFactor: 1.5,
      flattenFragments: true,
      ignoreIntrospection: false,
      ...atValidation(),
    },
    // Thrown by the parser itself, before any document is built: the flood never reaches memory.
    maxTokens: { n: QUERY_LIMITS.maxTokens, exposeLimits: true, propagateOnRejection: true },
    blockFieldSuggestion: { enabled: false },
  };
}

/** The envelop plugin yoga runs (parse with a token budget, validation rules for the rest). */
export function armorPlugin() {
  return EnvelopArmorPlugin(armorConfig());
}

export interface DocumentMeasure {
  errors: string[];
  tokens: number;
  aliases: number;
  depth: number;
  directives: number;
  cost: number;
}

/**
 * Measures a document against the same limits (for the test over the web client's documents):
 * the errors the service would answer with and the measured figure of each limit.
 */
export function measureDocument(schema: GraphQLSchema, source: string): DocumentMeasure {
  const cfg = armorConfig();
  const measure: DocumentMeasure = { errors: [], tokens: 0, aliases: 0, depth: 0, directives: 0, cost: 0 };
  const seen =
    (key: "aliases" | "depth" | "directives" | "cost") =>
    (_ctx: ValidationContext | null, details: { n: number }): void => {
      measure[key] = Math.max(measure[key], details.n);
    };
  const parser = new MaxTokensParserWLexer(source, { n: QUERY_LIMITS.maxTokens, propagateOnRejection: true });
  let document;
  try {
    document = parser.parseDocument();
  } catch (e) {
    measure.errors.push((e as Error).message);
    return measure;
  }
  measure.tokens = parser.tokenCount;
  const errors = validate(schema, document, [
    ...specifiedRules,
    maxAliasesRule({ ...cfg.maxAliases, onAccept: [seen("aliases")] }),
    maxDepthRule({ ...cfg.maxDepth, onAccept: [seen("depth")] }),
    maxDirectivesRule({ ...cfg.maxDirectives, onAccept: [seen("directives")] }),
    costLimitRule({ ...cfg.costLimit, onAccept: [seen("cost")] }),
  ]);
  measure.errors.push(...errors.map((e) => e.message));
  return measure;
}
