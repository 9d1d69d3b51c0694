/**
 * INSTANCE_ROLE: an `api` instance serves the API and starts no background work (no schedule has a
 * next run, the workers take nothing); a `worker` instance runs the schedules and answers only the
 * health check over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "./utils.ts";

let api: TestApp;
let worker: TestApp;

beforeAll(async () => {
  [api, worker] = await Promise.all([
    createTestApp({ env: { INSTANCE_ROLE: "api" } }),
    createTestApp({ env: { INSTANCE_ROLE: "worker" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([api?.dispose(), worker?.dispose()]);
});

describe("INSTANCE_ROLE", () => {
  it("api: serves the API, and no schedule or worker runs", async () => {
    expect((await api.api("/api/manga")).status).toBe(200);
    expect(api.services.assemblyMonitor.status().nextRun).toBe(null);
    expect(api.services.wantedMonitor.status().nextRun).toBe(null);
    expect(api.services.catalogueRefresh.status().nextRun).toBe(null);
  });

  it("worker: runs the schedules and answers only the health check", async () => {
    expect(worker.services.assemblyMonitor.status().nextRun).not.toBe(null);
    expect(worker.services.wantedMonitor.status().nextRun).not.toBe(null);
    expect((await worker.api("/api/health")).status).toBe(200);
    const refused = await worker.api("/api/manga");
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { code: string }).code).toBe("not_found");
    expect((await worker.api("/graphql", { method: "POST", json: { query: "{ seriesList { id } }" } })).status).toBe(
      404,
    );
  });
});
