/**
 * `translationProgress(seriesId)` over graphql-ws on the service's port: a client sees the progress
 * the worker writes for its own series only, up to the import.
 */
import { createClient } from "graphql-ws";
import { expect, it } from "vitest";
import WebSocket from "ws";
import { queueJob, stateIs, translatedSeries, workerSuite } from "./translation-worker-harness.ts";
import { TEST_API_KEY, type TestApp } from "./utils.ts";

let app: TestApp;

workerSuite(30, (s) => {
  ({ app } = s);
});

interface Ev {
  jobId: string;
  seriesId: number;
  state: string;
  pagesDone: number | null;
  pagesTotal: number | null;
}

it("a subscriber sees progress of its own series only, through to imported", async () => {
  const mine = await translatedSeries(app, "Mine");
  const other = await translatedSeries(app, "Other");
  const client = createClient({
    url: `${app.baseUrl.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { apiKey: TEST_API_KEY },
    lazy: true,
    retryAttempts: 0,
  });
  const seen: Ev[] = [];
  const dispose = client.subscribe<{ translationProgress: Ev }>(
    {
      query: `subscription($s: Int!) { translationProgress(seriesId: $s) { jobId seriesId state pagesDone pagesTotal } }`,
      variables: { s: mine },
    },
    { next: (r) => void (r.data && seen.push(r.data.translationProgress)), error: () => {}, complete: () => {} },
  );
  await new Promise((r) => setTimeout(r, 200));
  const a = await queueJob(app, mine, "1", { pages: 5 });
  const b = await queueJob(app, other, "1", { pages: 5 });
  await stateIs(app, a.row.id, "imported");
  await stateIs(app, b.row.id, "imported");
  await new Promise((r) => setTimeout(r, 100));
  dispose();
  await client.dispose();
  expect(seen.length).toBeGreaterThan(2);
  expect(seen.every((e) => e.seriesId === mine && e.jobId === a.id)).toBe(true);
  expect(seen.some((e) => e.state === "running" && e.pagesTotal === 5)).toBe(true);
  expect(seen.at(-1)?.state).toBe("imported");
});
