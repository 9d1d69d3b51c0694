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

/**
 * `db` whose `model.method` calls (e.g. "download.updateMany", or "$transaction") first await
 * `before(args)`; everything else goes straight through.
 */
export function hookedDb(db: Db, hooks: Record<string, (args: unknown) => Promise<void>>): Db {
  const models = new Map<string, object>();
  return new Proxy(db, {
    get(target, prop) {
      if (typeof prop !== "string") return bound(target, prop);
      const direct = hooks[prop];
      if (direct) {
        const fn = bound(target, prop) as (...a: unknown[]) => unknown;
        return async (...args: unknown[]) => {
          await direct(args[0]);
          return fn(...args);
        };
      }
      const own = Object.keys(hooks).filter((k) => k.startsWith(`${prop}.`));
      if (own.length === 0) return bound(target, prop);
      let model = models.get(prop);
      if (!model) {
        const delegate = Reflect.get(target, prop, target) as object;
        model = new Proxy(delegate, {
          get(d, method) {
            const hook = typeof method === "string" ? hooks[`${prop}.${method}`] : undefined;
            if (!hook) return bound(d, method);
            const fn = bound(d, method) as (...a: unknown[]) => unknown;
            return async (...args: unknown[]) => {
              await hook(args[0]);
              return fn(...args);
            };
          },
        });
        models.set(prop, model);
      }
      return model;
    },
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
