import type { IncomingMessage, Server } from "node:http";
import { GraphQLError, getOperationAST, visit, type DocumentNode } from "graphql";
import { createYoga, type Plugin, type YogaInitialContext } from "graphql-yoga";
import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention";
import { useGraphQlJit } from "@envelop/graphql-jit";
import { Kind, type ExecutionArgs } from "graphql";
import { getVariableValues } from "graphql/execution/values.js";
import type { OperationResult } from "graphql-ws";
import { CloseCode } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer, type WebSocket } from "ws";
import { isAppError, AppError } from "../errors.ts";
import type { Authenticator, Principal } from "../http/auth.ts";
import { JSON_BODY_LIMIT } from "../http/body-limits.ts";
import { csrfRefused, isOwnOrigin } from "../http/csrf.ts";
import { isJsonType } from "../http/request.ts";
import { refuseUnsafeString, refuseUnsafeText } from "../services/input.ts";
import type { AppContext } from "../services/context.ts";
import type { Services } from "../services/index.ts";
import type { GraphQLContext } from "./builder.ts";
import { armorPlugin, QUERY_TOO_COMPLEX, queryTooComplex } from "./limits.ts";
import { schema } from "./schema.ts";
import { useCompiledSubscriptions } from "./subscriptions.ts";
import { ProviderError, providerFailed } from "../providers/provider.ts";

/** The coded extensions of an AppError: `code` and `status` are the error's own, whatever `extra` holds. */
function appErrorExtensions(e: AppError): Record<string, unknown> {
  return { ...e.extra, code: e.code, status: e.status };
}

/** A client's mistake in the document itself: 400 `bad_request`, in any Accept. */
function badDocument(message: string, error?: GraphQLError): GraphQLError {
  return new GraphQLError(message, {
    ...(error ? { nodes: error.nodes, source: error.source, positions: error.positions } : {}),
    // `spec: false`: yoga would otherwise answer 200 to a client that accepts application/json.
    extensions: { code: "bad_request", status: 400, http: { status: 400, spec: false } },
  });
}

/** Resolver errors carry the same stable codes as REST problems, in `extensions.code`. */
function maskError(error: unknown, log: (m: string) => void): Error {
  const unwrapped = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const original = unwrapped instanceof ProviderError ? providerFailed(unwrapped) : unwrapped;
  if (isAppError(original)) {
    return new GraphQLError(original.message, {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
      extensions: appErrorExtensions(original),
    });
  }
  if (error instanceof GraphQLError && !error.originalError) {
    const code = error.extensions.code;
    if (code === QUERY_TOO_COMPLEX || typeof code === "string") return error;
    // Syntax and validation errors (yoga marks them for GraphQL over HTTP's 200-with-JSON): always 400 here.
    const http = error.extensions.http as { spec?: boolean; status?: number } | undefined;
    if (http?.spec || !error.path) return badDocument(error.message, error);
    return error;
  }
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

interface Enveloped {
  execute: (args: unknown) => OperationResult;
  subscribe: (args: unknown) => OperationResult;
}

interface ServerContext {
  principal?: Principal;
  req?: IncomingMessage;
}

/**
 * Parse and validation never fail "internally": a document that makes the parser or a rule throw
 * something else (a list literal nested thousands deep exhausting the stack) is the client's
 * mistake, answered 400 like any syntax error.
 */
function useDocumentErrorsAs400(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        try {
          return parseFn(source, options);
        } catch (e) {
          if (e instanceof GraphQLError) {
            if (/Token limit of \d+ exceeded/.test(e.message)) {
              throw queryTooComplex(e.message);
            }
            throw badDocument(e.message, e);
          }
          throw badDocument(
            e instanceof RangeError ? "the document is nested too deeply" : "the document cannot be parsed",
          );
        }
      });
    },
    onValidate({ validateFn, setValidationFn }) {
      setValidationFn((schema, document, rules, typeInfo, options) => {
        try {
          // Every validation error is the document's fault: 400, coded bad_request unless coded already.
          return validateFn(schema, document, rules, typeInfo, options).map((e: GraphQLError) =>
            e.extensions.code === QUERY_TOO_COMPLEX ? e : badDocument(e.message, e),
          );
        } catch (e) {
          if (e instanceof GraphQLError) return [badDocument(e.message, e)];
          return [
            badDocument(e instanceof RangeError ? "the document is nested too deeply" : "the document is not valid"),
          ];
        }
      });
    },
  };
}

const methodRefused = (e: GraphQLError) => (e.extensions.http as { status?: number } | undefined)?.status === 405;

/** A mutation sent as GET: yoga's 405 with its Allow header, coded. */
function wrongMethod(e: GraphQLError): GraphQLError {
  return new GraphQLError(e.message, {
    extensions: { code: "method_not_allowed", status: 405, http: e.extensions.http },
  });
}

/** Codes of a refused document (nothing ran): the answer is 400, whatever the client accepts. */
const DOCUMENT_CODES = new Set<unknown>(["bad_request", QUERY_TOO_COMPLEX]);

/**
 * Yoga answers parse and validation errors with 200 to a client accepting application/json (the
 * GraphQL-over-HTTP "legacy" mode) and marks them so at parse time; a result-level status wins.
 */
function useDocumentErrorStatus(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !result || typeof result !== "object" || !("errors" in result)) return;
      const { data } = result as { data?: unknown };
      // Yoga's own refusals of the request's shape (no query, a body that is not JSON, a batch) carry
      // its code BAD_REQUEST, sometimes the JSON parser's error and a 200: coded like a bad document.
      const errors = (result as { errors?: readonly GraphQLError[] }).errors?.map((e) =>
        e.extensions?.code !== "BAD_REQUEST" ? e : methodRefused(e) ? wrongMethod(e) : badDocument(e.message),
      );
      if (!errors?.length) return;
      const refused = data === undefined && errors.every((e) => DOCUMENT_CODES.has(e.extensions?.code));
      const extensions = (result as { extensions?: Record<string, unknown> }).extensions ?? {};
      setResult({
        ...result,
        errors,
        ...(refused ? { extensions: { ...extensions, http: { status: 400 } } } : {}),
      } as typeof result);
    },
  };
}

/** Text in a document (string literals) and in its variables follows the REST rules: 400 `invalid_field`. */
function refuseUnsafeDocumentText(document: DocumentNode, variables: unknown): void {
  visit(document, {
    StringValue(node) {
      refuseUnsafeString(node.value, "a string literal", { multiline: true });
    },
  });
  if (variables !== undefined && variables !== null) refuseUnsafeText(variables, "variables");
}

function useSafeText(): Plugin {
  return {
    onExecute({ args }) {
      refuseUnsafeDocumentText(args.document, args.variableValues);
    },
    onSubscribe({ args }) {
      refuseUnsafeDocumentText(args.document, args.variableValues);
    },
  };
}

/**
 * Cross-site requests ridden on the session cookie: yoga's CSRF prevention (a request in a
 * content type a plain HTML form can send must carry a custom header, which another site cannot add
 * without a preflight) applies to ambient credentials; mutations travel only as POST
 * application/json. API-key requests are not affected.
 */
function useCrossSiteRules(): Plugin<{ request?: Request; principal?: Principal }> {
  const yogaCsrf = useCSRFPrevention({ requestHeaders: ["x-graphql-yoga-csrf"] });
  return {
    async onRequestParse(payload) {
      const principal = (payload.serverContext as ServerContext | undefined)?.principal;
      if (!principal?.ambient) return;
      try {
        await yogaCsrf.onRequestParse?.(payload);
      } catch {
        throw new GraphQLError(csrfRefused().message, {
          extensions: { code: "csrf_refused", status: 403, http: { status: 403 } },
        });
      }
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (!request) return; // WebSocket: the upgrade's origin was checked at connection.
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== "mutation") return;
      if (request.method !== "POST" || !isJsonType(request.headers.get("content-type"))) {
        throw new AppError("unsupported_media_type", "mutations are sent as POST with application/json");
      }
    },
  };
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

export function createGraphQL(ctx: AppContext, services: Services, authenticate: Authenticator) {
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: false,
    landingPage: false,
    // No cross-origin reads at all: the web client is same-origin, other clients are not browsers.
    cors: false,
    // Uploads are REST routes; a multipart body here is only ever a forged form.
    multipart: false,
    // Order matters: the armour sets the token-counting parser, which the next plugin wraps.
    plugins: [
      armorPlugin(),
      useDocumentErrorsAs400(),
      useCrossSiteRules(),
      useSafeText(),
      useDocumentErrorStatus(),
      useGraphQlJit({}, { enableIf: compiled }),
      useCompiledSubscriptions(),
    ],
    maskedErrors: { maskError: (e) => maskError(e, ctx.log) },
    // Yoga would log every error its mask replaced, coded AppErrors (answers such as a stale
    // revision) included, to the console whatever LOG_LEVEL says. maskError already logs the
    // unexpected ones through ctx.log.
    logging: false,
    context: (init: YogaInitialContext & ServerContext) => ({
      db: ctx.db,
      rows: ctx.repos.graph,
      services,
      events: ctx.events,
      // HTTP requests carry the principal found by the REST layer; WebSocket operations were
      // authenticated at connection (onConnect).
      user: init.req ? "websocket" : (init.principal?.user ?? null),
    }),
  });

  /** Subscriptions over graphql-ws on the same port and path, with the same authentication. */
  function attachWebSocket(server: Server): WebSocketServer {
    // One message is bounded like an HTTP body.
    const wss = new WebSocketServer({ server, path: "/graphql", maxPayload: JSON_BODY_LIMIT });
    // Live connections opened with a session close when it ends (logout, sign out everywhere).
    const bySession = new Map<number, Set<WebSocket>>();
    const stopWatching = services.sessions.onRevoked((ids) => {
      for (const id of ids) {
        for (const socket of bySession.get(id) ?? []) socket.close(CloseCode.Unauthorized, "Session ended");
        bySession.delete(id);
      }
    });
    // A password changed (here, or on another instance once this one re-read the secrets file):
    // the sessions opened under the old one end, and so do their live connections.
    const stampOf = new WeakMap<WebSocket, string>();
    const stopStamps = ctx.secrets.onPasswordChanged(() => {
      const stamp = ctx.secrets.passwordStamp();
      for (const [id, sockets] of bySession) {
        for (const socket of sockets)
          if (stampOf.get(socket) !== stamp) {
            sockets.delete(socket);
            socket.close(CloseCode.Unauthorized, "Session ended");
          }
        if (sockets.size === 0) bySession.delete(id);
      }
    });
    // The `sessions` event may not come (no Redis, or lost while Redis reconnected): each lease
    // renewal also looks for sessions that are gone (one select, only with live connections).
    ctx.cluster.onRenew(() => services.sessions.endedSince([...bySession.keys()]));
    wss.on("close", () => {
      stopWatching();
      stopStamps();
    });
    useServer(
      {
        schema,
        onConnect: async (wsCtx) => {
          const req = wsCtx.extra.request as IncomingMessage;
          const params = (wsCtx.connectionParams ?? {}) as { apiKey?: unknown };
          const header = (name: string) => {
            if (name === "x-api-key" && typeof params.apiKey === "string") return params.apiKey;
            const v = req.headers[name];
            return Array.isArray(v) ? v[0] : v;
          };
          // Taken before the check: a password changed meanwhile ends this connection rather than keeps it.
          const stamp = ctx.secrets.passwordStamp();
          const principal = await authenticate(header);
          if (!principal) return false;
          // A browser page of another site must not ride on the session cookie (cross-site WebSocket):
          // browsers always send Origin with a WebSocket handshake.
          const origin = header("origin");
          if (principal.ambient && origin !== undefined && !isOwnOrigin(origin, header)) return false;
          if (principal.sessionId !== undefined) {
            const socket = wsCtx.extra.socket;
            stampOf.set(socket, stamp);
            const set = bySession.get(principal.sessionId) ?? new Set<WebSocket>();
            set.add(socket);
            bySession.set(principal.sessionId, set);
            socket.once("close", () => {
              set.delete(socket);
              if (set.size === 0) bySession.delete(principal.sessionId as number);
            });
          }
          return true;
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
          let document: DocumentNode;
          try {
            document = parse(payload.query);
          } catch (e) {
            return [e instanceof GraphQLError ? e : badDocument("the document cannot be parsed")];
          }
          const args = {
            schema: s,
            operationName: payload.operationName,
            document,
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
