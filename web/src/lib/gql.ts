/**
 * The web client's GraphQL documents are typed from the committed `schema.graphql` by gql.tada:
 * `graphql(...)` infers each answer's type from the document itself, so no server type is written by
 * hand here. `generated/graphql-env.d.ts` is the schema's introspection, written by
 * `pnpm --filter web graphql:types` (also run by `pnpm schema:print`); a test fails when it is stale,
 * and another validates every document in `src/` against the schema.
 *
 * Fragments are unmasked: a query's answer carries its fragments' fields directly.
 */
import { initGraphQLTada } from "gql.tada";
import type { introspection } from "./generated/graphql-env.d.ts";

export const graphql = initGraphQLTada<{ introspection: introspection; disableMasking: true }>();

export type { FragmentOf, ResultOf, VariablesOf } from "gql.tada";

/** The TypeScript type of a schema enum or input type, e.g. `Schema<"SeriesForm">`. */
export type Schema<Name extends string> = ReturnType<typeof graphql.scalar<Name>>;
