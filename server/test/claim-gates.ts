/**
 * Test seams for several instances on one database: an instance that stalls at a chosen point (a
 * gate it waits at until the test opens it, as a SIGSTOP-ed process waits for SIGCONT), and a
 * database client whose chosen calls first run a hook (another instance acting at exactly that
 * moment). Both wrap the real client: every call still reaches the real database.
 */
import type { Db } from "../src/db/client.ts";

export interface Gate {
  /** Resolves once something waits at the gate. */
  reached: Promise<void>;
  /** Lets it through. */
  open(): void;
  /** Called by the one who waits: marks it reached and waits for the opening. */
  pass(): Promise<void>;
}

export function gate(): Gate {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (reach = r));
  return {
    reached,
    open,
    async pass() {
      reach();
      await opened;
    },
  };
}

const bound = (target: object, prop: string | symbol): unknown => {
  const v: unknown = Reflect.get(target, prop, target);
  return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
};

type Hook = (args: unknown) => Promise<void>;

/** `fn` with the hooks of `name` around it: `name` before the call, `name:after` once it returned. */
function wrapped(fn: (...a: unknown[]) => unknown, hooks: Record<string, Hook>, name: string) {
  const before = hooks[name];
  const after = hooks[`${name}:after`];
  if (!before && !after) return fn;
  return async (...args: unknown[]) => {
    await before?.(args[0]);
    const result = await fn(...args);
    await after?.(args[0]);
    return result;
  };
}

/**
 * `db` whose `model.method` calls (e.g. "download.updateMany", or "$transaction") first await
 * `hooks[name](args)`, and then `hooks["<name>:after"](args)` once they returned; everything else
 * goes straight through.
 */
export function hookedDb(db: Db, hooks: Record<string, Hook>): Db {
  const models = new Map<string, object>();
  const names = Object.keys(hooks).map((k) => k.replace(/:after$/, ""));
  return new Proxy(db, {
    get(target, prop) {
      if (typeof prop !== "string") return bound(target, prop);
      if (names.includes(prop)) return wrapped(bound(target, prop) as (...a: unknown[]) => unknown, hooks, prop);
      if (!names.some((k) => k.startsWith(`${prop}.`))) return bound(target, prop);
      let model = models.get(prop);
      if (!model) {
        const delegate = Reflect.get(target, prop, target) as object;
        model = new Proxy(delegate, {
          get(d, method) {
            const v = bound(d, method);
            if (typeof method !== "string" || typeof v !== "function") return v;
            return wrapped(v as (...a: unknown[]) => unknown, hooks, `${prop}.${method}`);
          },
        });
        models.set(prop, model);
      }
      return model;
    },
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `db` whose `n`th transaction from now waits at `stall`: before it runs, or (`"after"`) once it
 * committed. How a test stalls an instance at a chosen step of a journalled operation.
 */
export function stalledAtTransaction(db: Db, stall: Gate, n: number, when: "before" | "after" = "before"): Db {
  let transactions = 0;
  const hook: Hook = async () => {
    if (++transactions === n) await stall.pass();
  };
  return hookedDb(db, { [when === "after" ? "$transaction:after" : "$transaction"]: hook });
}
