import type { IncomingMessage, Server } from "node:http";
import { GraphQLError } from "graphql";
import { useGraphQlJit } from "@envelop/graphql-jit";
import { Kind, type ExecutionArgs } from "graphql";
import { getVariableValues } from "graphql/execution/values.js";
import { createYoga, type YogaInitialContext } from "graphql-yoga";
import type { OperationResult } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { isAppError } from "../errors.ts";
import { authenticate } from "../http/auth.ts";
import type { AppContext } from "../services/context.ts";
import type { Services } from "../services/index.ts";
import type { GraphQLContext } from "./builder.ts";
import { schema } from "./schema.ts";

/** Resolver errors carry the same stable codes as REST problems, in `extensions.code`. */
function maskError(error: unknown, log: (m: string) => void): Error {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (isAppError(original)) {
    return new GraphQLError(original.message, {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
      extensions: { code: original.code, status: original.status, ...original.extra },
    });
  }
  if (error instanceof GraphQLError && !error.originalError) return error;
  // A variable coercion error (e.g. an unknown enum value) arrives wrapped in another GraphQLError:
  // it is the client's mistake, said in words, not an internal failure.
  if (error instanceof GraphQLError && original instanceof GraphQLError) {
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: "bad_request", status: 400 },
    });
  }
  log(
    `internal error in GraphQL: ${original instanceof Error ? (original.stack ?? original.message) : String(original)}`,
  );
  return new GraphQLError("The service failed unexpectedly; see its log.", {
    extensions: { code: "internal", status: 500 },
  });
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

interface Enveloped {
  execute: (args: unknown) => OperationResult;
  subscribe: (args: unknown) => OperationResult;
}

/** Top-level fields whose answers are large trees of plain values (a series page: thousands of rows). */
const COMPILED_FIELDS = new Set(["seriesPage"]);

/**
 * Queries that select only such fields run compiled by graphql-jit: graphql-js resolved the series
 * page of 2,000 chapters (~60,000 fields) at twice the time of the same data over REST (measured by
 * `pnpm bench units`); everything else keeps graphql-js. So do queries whose variables do not
 * coerce: graphql-js words that error as maskError expects (bad_request).
 */
function compiled(args: ExecutionArgs): boolean {
  const ops = args.document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = ops[0];
  if (ops.length !== 1 || !op || op.operation !== "query") return false;
  if (!op.selectionSet.selections.every((s) => s.kind === Kind.FIELD && COMPILED_FIELDS.has(s.name.value)))
    return false;
  const vars = getVariableValues(args.schema, op.variableDefinitions ?? [], args.variableValues ?? {});
  return vars.errors === undefined;
}

export function createGraphQL(ctx: AppContext, services: Services) {
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: false,
    landingPage: false,
    maskedErrors: { maskError: (e) => maskError(e, ctx.log) },
    // Yoga would log every error its mask replaced, coded AppErrors (answers such as a stale
    // revision) included, to the console whatever LOG_LEVEL says. maskError already logs the
    // unexpected ones through ctx.log.
    logging: false,
    plugins: [useGraphQlJit({}, { enableIf: compiled })],
    context: (init: YogaInitialContext & { req?: IncomingMessage }) => ({
      db: ctx.db,
      services,
      events: ctx.events,
      // HTTP requests carry a fetch Request; WebSocket operations the upgrade request (checked in onConnect).
      user: init.req
        ? "websocket"
        : authenticate(ctx.secrets, {
            apiKey: init.request.headers.get("x-api-key"),
            cookie: init.request.headers.get("cookie"),
          }),
    }),
  });

  /** Subscriptions over graphql-ws on the same port and path, with the same authentication. */
  function attachWebSocket(server: Server): WebSocketServer {
    const wss = new WebSocketServer({ server, path: "/graphql" });
    useServer(
      {
        schema,
        onConnect: (wsCtx) => {
          const req = wsCtx.extra.request as IncomingMessage;
          // A browser page of another site must not ride on the session cookie (cross-site WebSocket).
          if (req.headers.origin && !sameOrigin(req.headers.origin, req.headers.host)) return false;
          const params = (wsCtx.connectionParams ?? {}) as { apiKey?: unknown };
          const apiKey =
            typeof params.apiKey === "string" ? params.apiKey : (req.headers["x-api-key"] as string | undefined);
          return authenticate(ctx.secrets, { apiKey: apiKey ?? null, cookie: req.headers.cookie ?? null }) !== null;
        },
        execute: (args) => (args.rootValue as Enveloped).execute(args),
        subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
        onSubscribe: async (wsCtx, _id, payload) => {
          const req = wsCtx.extra.request as IncomingMessage;
          const {
            schema: s,
            execute,
            subscribe,
            contextFactory,
            parse,
            validate,
          } = yoga.getEnveloped({
            ...wsCtx,
            req,
            socket: wsCtx.extra.socket,
            params: payload,
          });
          const args = {
            schema: s,
            operationName: payload.operationName,
            document: parse(payload.query),
            variableValues: payload.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
          };
          const errors = validate(args.schema, args.document);
          if (errors.length) return errors;
          return args;
        },
      },
      wss,
    );
    return wss;
  }

  return { yoga, attachWebSocket };
}
