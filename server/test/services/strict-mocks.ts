/**
 * Strict mocks for the service tests: every repository method is a mock that fails the test when
 * called without being set up, the calls are logged in the order they happened, and the service
 * context has no database (ctx.db is an empty frozen object that nothing may use).
 */
import { expect, vi, type Mock } from "vitest";
import type { Config } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import type { SeriesRow } from "../../src/repositories/series-repo.ts";
import type { Secrets } from "../../src/secrets.ts";
import { createEventBus } from "../../src/events.ts";
import { requestActivity } from "../../src/request-activity.ts";
import { createCluster } from "../../src/library/cluster.ts";
import type { LeaseRepo } from "../../src/repositories/lease-repo.ts";
import { createRepos, type AppContext, type Repos } from "../../src/services/context.ts";

type Procedure = (...args: never[]) => unknown;
export type StrictRepos = {
  [R in keyof Repos]: { [M in keyof Repos[R]]: Repos[R][M] extends Procedure ? Mock<Repos[R][M]> : never };
};

/** An implementation for a mock nobody set up: records `name` in `unexpected` and throws. */
export function failing(name: string, unexpected: string[]) {
  return (): never => {
    unexpected.push(name);
    throw new Error(`unexpected call to ${name}: set it up in the test`);
  };
}

/** One strict mock per method of the real repositories (their factories only close over db). */
export function strictRepos(unexpected: string[]): StrictRepos {
  const shape = createRepos({} as Db);
  return Object.fromEntries(
    Object.entries(shape).map(([repo, methods]) => [
      repo,
      Object.fromEntries(
        Object.keys(methods).map((method) => [method, vi.fn(failing(`${repo}.${method}`, unexpected))]),
      ),
    ]),
  ) as unknown as StrictRepos;
}

/**
 * Repository calls in the order they happened, as "repo.method", together with the calls of the
 * other mocked functions named in `others` (as their name).
 */
export function callLog(
  repos: StrictRepos,
  others: Record<string, { mock: { invocationCallOrder: number[] } }> = {},
): string[] {
  const calls: { name: string; order: number }[] = [];
  for (const [repo, methods] of Object.entries(repos)) {
    for (const [method, fn] of Object.entries(methods as Record<string, Mock>)) {
      fn.mock.invocationCallOrder.forEach((order) => calls.push({ name: `${repo}.${method}`, order }));
    }
  }
  for (const [name, fn] of Object.entries(others))
    fn.mock.invocationCallOrder.forEach((order) => calls.push({ name, order }));
  return calls.sort((a, b) => a.order - b.order).map((c) => c.name);
}

/** For afterEach: no strict mock was called without being set up. */
export function expectNoUnexpectedCalls(unexpected: string[]): void {
  expect(unexpected, "repository methods called without being set up").toEqual([]);
}

/** A service context over strict repositories: no database, no secrets, a real event bus, a silent log. */
export function strictContext(repos: StrictRepos, libraryRoot: string): AppContext {
  return {
    config: { libraryRoot } as Config,
    db: Object.freeze({}) as Db,
    queries: { count: 0, statements: [], reset() {} },
    repos: repos as unknown as Repos,
    secrets: {} as Secrets,
    events: createEventBus(),
    activity: requestActivity(),
    cluster: createCluster(Object.freeze({}) as LeaseRepo, { exclusive: true, leaseMs: 30_000, log: () => {} }),
    log: () => {},
  };
}

/** A stored series row: series 7 "Alpha", running, monitored, no book count. */
export function seriesRow(over: Partial<SeriesRow> = {}): SeriesRow {
  return {
    id: 7,
    title: "Alpha",
    folder: "Alpha",
    form: null,
    language: "en",
    originalLanguage: null,
    status: "running",
    knownBookCount: null,
    editionBookCount: null,
    webtoon: false,
    planWording: "books_first",
    monitored: true,
    assembleBooksAutomatically: false,
    translationFallbackEnabled: false,
    translationSourceLanguages: "[]",
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...over,
  };
}
