/**
 * How a subscription runs: the source stream as graphql-js makes it (the field's `subscribe`
 * with the field's own arguments), then each event through the subscription's selection set
 * compiled by graphql-jit.
 *
 * Measured by `pnpm bench instances` (1,000 graphql-ws subscribers on two instances, a burst of
 * events): the default executor's per-event execution and the async iterators around it were
 * about a quarter of an instance's time and most of its garbage. graphql-jit's own `subscribe`
 * cannot be used: it hands the field's `subscribe` the operation's variables instead of the field's
 * arguments (`libraryEvents(seriesId: 3)` would hear every series), so only its compiled query runs
 * here, once per event, as graphql-jit's subscribe would run it.
 */
import { createSourceEventStream, execute, type DocumentNode, type ExecutionArgs, type ExecutionResult } from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import type { Plugin } from "graphql-yoga";

type RunEvent = (event: unknown, context: unknown, variables: ExecutionArgs["variableValues"]) => unknown;

/** Compiled per document (yoga's parser cache hands every subscriber of one text the same document). */
const compiledByDocument = new WeakMap<DocumentNode, Map<string, RunEvent>>();

function eventRunner(args: ExecutionArgs): RunEvent {
  const key = args.operationName ?? "";
  let byName = compiledByDocument.get(args.document);
  if (!byName) compiledByDocument.set(args.document, (byName = new Map()));
  let run = byName.get(key);
  if (!run) {
    const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    run = isCompiledQuery(compiled)
      ? (event, context, variables) => compiled.query(event, context, variables)
      : // What graphql-jit cannot compile runs as graphql-js runs a subscription's events.
        (event, context, variables) =>
          execute({ ...args, rootValue: event, contextValue: context, variableValues: variables });
    byName.set(key, run);
  }
  return run;
}

/** The source's events, each executed: plain promise chains, one per event (no async generator). */
function executeEach(source: AsyncIterator<unknown>, args: ExecutionArgs): AsyncIterableIterator<ExecutionResult> {
  const run = eventRunner(args);
  const { contextValue, variableValues } = args;
  const step = (
    r: IteratorResult<unknown>,
  ): IteratorResult<ExecutionResult> | Promise<IteratorResult<ExecutionResult>> => {
    if (r.done) return { value: undefined, done: true };
    const result = run(r.value, contextValue, variableValues) as ExecutionResult | Promise<ExecutionResult>;
    return result instanceof Promise
      ? result.then((value) => ({ value, done: false }))
      : { value: result, done: false };
  };
  return {
    next: () => source.next().then(step),
    return: async () => {
      await source.return?.();
      return { value: undefined, done: true };
    },
    throw: async (e: unknown) => {
      if (source.throw) return source.throw(e).then(step);
      throw e;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

async function compiledSubscribe(
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream;
  return executeEach(stream[Symbol.asyncIterator](), args);
}

/** Subscriptions run as above; everything else is left to the other plugins. */
export function useCompiledSubscriptions(): Plugin {
  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(compiledSubscribe as Parameters<typeof setSubscribeFn>[0]);
    },
  };
}
