/** Named integration secrets (server/src/secrets.ts): stored only in the 0600 secrets file, across restarts. */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSecrets } from "../src/secrets.ts";

describe("integration secrets", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "secrets-test-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("sets, survives a reload, clears; concurrent writes all land; the file stays 0600", async () => {
    const overrides = { apiKey: null, adminPassword: "pw" };
    const a = await loadSecrets(dir, overrides);
    expect(a.getIntegrationSecret("suwayomi.password")).toBeNull();
    await Promise.all([
      a.setIntegrationSecret("suwayomi.password", "one"),
      a.setIntegrationSecret("prowlarr.apiKey", "two"),
      a.setIntegrationSecret("x", "three"),
    ]);
    await a.setIntegrationSecret("x", null);
    const file = path.join(dir, "secrets.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const b = await loadSecrets(dir, overrides);
    expect([
      b.getIntegrationSecret("suwayomi.password"),
      b.getIntegrationSecret("prowlarr.apiKey"),
      b.getIntegrationSecret("x"),
    ]).toEqual(["one", "two", null]);
    expect(b.apiKey).toBe(a.apiKey);
    expect(JSON.parse(await readFile(file, "utf8")).integrations).toEqual({
      "suwayomi.password": "one",
      "prowlarr.apiKey": "two",
    });
  });
});
