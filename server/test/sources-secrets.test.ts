/** Named integration secrets (server/src/secrets.ts): stored only in the 0600 secrets file, across restarts. */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyedLock } from "../src/library/keyed-lock.ts";
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

  it("two instances on one file: changes made at once both stay, and each sees the other's after a stat", async () => {
    const shared = await mkdtemp(path.join(os.tmpdir(), "secrets-shared-"));
    try {
      // The lock every instance honours (the cluster's keyed lock, in the database, in the service).
      const held = createKeyedLock();
      const options = { lock: <T>(fn: () => Promise<T>) => held.run(["file"], fn) };
      const overrides = { apiKey: null, adminPassword: null };
      const a = await loadSecrets(shared, overrides, options);
      const b = await loadSecrets(shared, overrides, options);
      const written: string[] = [];
      a.onWritten(() => written.push("a"));
      let passwordChanges = 0;
      b.onPasswordChanged(() => passwordChanges++);
      await Promise.all([a.setIntegrationSecret("one", "1"), b.setIntegrationSecret("two", "2")]);
      expect(written).toEqual(["a"]);
      // B wrote after A or before it; either way its copy is behind on one of them until it looks.
      await Promise.all([a.refresh(), b.refresh()]);
      for (const s of [a, b])
        expect([s.getIntegrationSecret("one"), s.getIntegrationSecret("two")]).toEqual(["1", "2"]);
      const stamp = b.passwordStamp();
      await a.setAdminPassword("a password set on a");
      expect(b.passwordStamp()).toBe(stamp);
      expect(await b.checkAdminPassword("a password set on a")).toBe(true);
      expect(b.passwordStamp()).toBe(a.passwordStamp());
      expect(passwordChanges).toBe(1);
      // Nothing changed since: a second look costs one stat and re-reads nothing.
      await b.refresh();
      expect(passwordChanges).toBe(1);
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });
  it("instances started at once on an empty data folder share the first one's secrets and password", async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), "secrets-first-"));
    try {
      const overrides = { apiKey: null, adminPassword: null };
      const started = await Promise.all(Array.from({ length: 4 }, () => loadSecrets(empty, overrides)));
      const generated = started.map((s) => s.generatedPassword).filter((p) => p !== null);
      // One of them created the file and printed its password; the others read that file.
      expect(generated).toHaveLength(1);
      for (const s of started) {
        expect(s.apiKey).toBe(started[0]!.apiKey);
        expect(s.signingKey).toBe(started[0]!.signingKey);
        expect(await s.checkAdminPassword(generated[0]!)).toBe(true);
      }
      const stored = JSON.parse(await readFile(path.join(empty, "secrets.json"), "utf8")) as { apiKey: string };
      expect(stored.apiKey).toBe(started[0]!.apiKey);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
