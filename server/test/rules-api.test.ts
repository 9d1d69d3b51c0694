/**
 * What the web client takes from the API instead of deciding itself, through REST and GraphQL on a
 * real app: the rules' figures (GET /api/rules == `rules`), whether a download may be cancelled and
 * whether a translation attempt may be retried or cancelled (both decided by the job machines).
 * Jobs are prepared in the database in the states they can reach; the workers are not running.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transition as downloadTransition } from "../src/domain/download-jobs.ts";
import { DEFAULT_THRESHOLDS } from "../src/domain/conformity.ts";
import { FEW_PAGES } from "../src/domain/audit.ts";
import { MAX_INTERVAL_DAYS, MIN_INTERVAL_DAYS, MIN_RELEASES, OVERDUE_AFTER } from "../src/domain/calendar.ts";
import { OVERSIZED_BOOK_PAGES } from "../src/domain/types.ts";
import { MAX_ORDERED_LABELS, parseLabel, sortLabels } from "../src/domain/labels.ts";
import { expectJson } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seriesId: number;

beforeAll(async () => {
  // A retention other than the default: the figure is the configured one.
  app = await createTestApp({ env: { RECYCLE_RETENTION_DAYS: "9" } });
  seriesId = (
    await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title: "Rules" } }), 201)
  ).id;
});
afterAll(() => app.dispose());

describe("the rules' figures", () => {
  it("REST == GraphQL, and they are the deciding modules' constants", async () => {
    const rest = await expectJson<Record<string, number>>(await app.api("/api/rules"), 200);
    const g = await app.gql<{ rules: Record<string, number> }>(
      `{ rules { maxBlackShare fewPages oversizedBookPages sourcePriorityMin sourcePriorityMax calendarMinReleases calendarMinIntervalDays calendarMaxIntervalDays calendarOverdueIntervals recycleRetentionDays } }`,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data?.rules).toEqual({
      maxBlackShare: DEFAULT_THRESHOLDS.maxBlackShare,
      fewPages: FEW_PAGES,
      oversizedBookPages: OVERSIZED_BOOK_PAGES,
      sourcePriorityMin: -1000,
      sourcePriorityMax: 1000,
      calendarMinReleases: MIN_RELEASES,
      calendarMinIntervalDays: MIN_INTERVAL_DAYS,
      calendarMaxIntervalDays: MAX_INTERVAL_DAYS,
      calendarOverdueIntervals: OVERDUE_AFTER,
      recycleRetentionDays: 9,
    });
    expect(rest).toEqual({
      max_black_share: g.data?.rules.maxBlackShare,
      few_pages: g.data?.rules.fewPages,
      oversized_book_pages: g.data?.rules.oversizedBookPages,
      source_priority_min: g.data?.rules.sourcePriorityMin,
      source_priority_max: g.data?.rules.sourcePriorityMax,
      calendar_min_releases: g.data?.rules.calendarMinReleases,
      calendar_min_interval_days: g.data?.rules.calendarMinIntervalDays,
      calendar_max_interval_days: g.data?.rules.calendarMaxIntervalDays,
      calendar_overdue_intervals: g.data?.rules.calendarOverdueIntervals,
      recycle_retention_days: 9,
    });
  });
});

describe("the label order", () => {
  const ask = async (labels: string[]) => {
    const rest = await expectJson<{ labels: string[]; rejected: string[]; next_whole: string }>(
      await app.api("/api/labels/order", { method: "POST", json: { labels } }),
      200,
    );
    const g = await app.gql<{ labelOrder: { labels: string[]; rejected: string[]; nextWhole: string } }>(
      `query ($labels: [String!]!) { labelOrder(labels: $labels) { labels rejected nextWhole } }`,
      { labels },
    );
    expect(g.errors).toBeUndefined();
    expect(rest).toEqual({
      labels: g.data?.labelOrder.labels,
      rejected: g.data?.labelOrder.rejected,
      next_whole: g.data?.labelOrder.nextWhole,
    });
    return g.data!.labelOrder;
  };

  it("REST == GraphQL: canonical labels, each once, in the domain's order, and the next whole number", async () => {
    const typed = ["11", "10.5", "010", "2", "10.50", "9.9", "chapter", "1.05", "1.5"];
    const order = await ask(typed);
    expect(order).toEqual({
      labels: sortLabels([...new Set(typed.flatMap((t) => parseLabel(t) ?? []))]),
      rejected: ["chapter"],
      nextWhole: "12",
    });
    expect(order.labels).toEqual(["1.05", "1.5", "2", "9.9", "10", "10.5", "11"]);
    expect(await ask([])).toEqual({ labels: [], rejected: [], nextWhole: "1" });
    expect((await ask(["6.5"])).nextWhole).toBe("7");
  });

  it("refuses a body that is not a list of strings, and too long a list, with invalid_field", async () => {
    const bad = await app.api("/api/labels/order", { method: "POST", json: { labels: [1, 2] } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe("invalid_field");
    const many = Array.from({ length: MAX_ORDERED_LABELS + 1 }, (_, i) => String(i));
    const long = await app.api("/api/labels/order", { method: "POST", json: { labels: many } });
    expect(long.status).toBe(400);
    const g = await app.gql(`query ($labels: [String!]!) { labelOrder(labels: $labels) { labels } }`, {
      labels: many,
    });
    expect(g.errors?.[0]?.extensions?.code).toBe("invalid_field");
  });
});

describe("cancellable downloads", () => {
  const cases: [string, boolean][] = [
    ["queued", false],
    ["waiting", false],
    ["fetching", false],
    ["judging", false],
    ["judging", true],
    ["publishing", false],
    ["published", false],
    ["degraded", false],
    ["failed", false],
    ["cancelled", false],
  ];

  it("REST == GraphQL, as the job machine decides; a pending cancel is not offered again", async () => {
    const ids: number[] = [];
    for (const [i, [state, cancelRequested]] of cases.entries()) {
      const row = await app.ctx.db.download.create({
        data: {
          seriesId,
          kind: "chapter",
          chapter: String(i + 1),
          language: "en",
          state,
          cancelRequested,
          nextAttemptAt: state === "waiting" ? new Date(Date.now() + 86_400_000) : null,
          verdict: null,
        },
      });
      ids.push(row.id);
    }
    const rest = await expectJson<{ id: number; state: string; cancellable: boolean }[]>(
      await app.api(`/api/manga/${seriesId}/downloads`),
      200,
    );
    const g = await app.gql<{ downloads: { id: number; cancellable: boolean }[] }>(
      `query($id: Int!) { downloads(seriesId: $id) { id cancellable } }`,
      { id: seriesId },
    );
    expect(g.errors).toBeUndefined();
    const byRest = new Map(rest.map((d) => [d.id, d.cancellable]));
    const byGql = new Map(g.data!.downloads.map((d) => [d.id, d.cancellable]));
    const expected = cases.map(
      ([state, requested]) => !requested && downloadTransition(state as never, { type: "cancel" }) !== null,
    );
    expect(ids.map((id) => byRest.get(id))).toEqual(expected);
    expect(ids.map((id) => byGql.get(id))).toEqual(expected);
    // The states the queue shows a Cancel button for.
    expect(expected).toEqual([true, true, true, true, false, false, false, false, false, false]);
  });
});

describe("retryable and cancellable translation attempts", () => {
  it("REST == GraphQL: only the newest failed or cancelled attempt with its source is retryable", async () => {
    const job = (jobKey: string, attempt: number, state: string, extra: Record<string, unknown> = {}) =>
      app.ctx.db.translationJob.create({
        data: {
          jobKey,
          attempt,
          seriesId,
          kind: "chapter",
          number: String(attempt + 1),
          sourceLanguage: "ja",
          targetLanguage: "en",
          engine: "external",
          origin: "upload",
          sourcePath: "/staging/source.cbz",
          state,
          ...extra,
        },
      });
    const a = "a".repeat(32);
    const b = "b".repeat(32);
    const c = "c".repeat(32);
    const d = "d".repeat(32);
    const e = "e".repeat(32);
    await job(a, 0, "failed");
    await job(a, 1, "failed");
    await job(b, 0, "imported");
    await job(c, 0, "running");
    await job(d, 0, "cancelling", { cancelPending: true });
    await job(e, 0, "cancelled", { sourcePath: null });
    const rest = await expectJson<{ id: string; retryable: boolean; cancellable: boolean }[]>(
      await app.api(`/api/translations?manga_id=${seriesId}`),
      200,
    );
    const g = await app.gql<{ translationJobs: { id: string; retryable: boolean; cancellable: boolean }[] }>(
      `query($id: Int!) { translationJobs(seriesId: $id) { id retryable cancellable } }`,
      { id: seriesId },
    );
    expect(g.errors).toBeUndefined();
    const pick = (list: { id: string; retryable: boolean; cancellable: boolean }[]) =>
      Object.fromEntries(list.map((j) => [j.id, [j.retryable, j.cancellable]]));
    expect(pick(g.data!.translationJobs)).toEqual(pick(rest));
    expect(pick(rest)).toEqual({
      [`${a}-0`]: [false, false], // an older attempt: already retried
      [`${a}-1`]: [true, false],
      [`${b}-0`]: [false, false], // completed (imported)
      [`${c}-0`]: [false, true],
      [`${d}-0`]: [false, false], // the cancel is already pending
      [`${e}-0`]: [false, false], // its source archive is gone
    });
  });
});
