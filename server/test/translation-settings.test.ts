/**
 * Global translation settings over REST and GraphQL (docs/api.md, "Translation settings"): masking, keeping
 * a secret sent back masked, secrets only in the 0600 file, the service login refused, validation, the
 * engine, and the per-series fields of PATCH /api/manga/{id}. A real app on a real database.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  AI_KEY_SECRET,
  PROCESSOR_TOKEN_SECRET,
  TRANSLATION_SETTING_KEY,
  maskSecret,
} from "../src/services/translation/translation-settings.ts";
import { readWorkerSettings } from "../src/services/translation/translation-worker-settings.ts";
import { expectJson, expectProblem } from "./fixtures.ts";
import { TEST_API_KEY, TEST_PASSWORD, shareTestApp, type TestApp } from "./utils.ts";

const AI_KEY = "sk-test-ai-key-abcdef123456";
const TOKEN = "processor-token-zyxw9876";

interface RestSettings {
  enabled: boolean;
  source_languages: string[];
  ai: { base_url: string; model: string; api_key: string; api_key_set: boolean };
  processor: { url: string; token: string; token_set: boolean };
  engine: string;
}

const GQL_FIELDS =
  "enabled sourceLanguages engine ai { baseUrl model apiKey apiKeySet } processor { url token tokenSet }";
/** The GraphQL answer in the REST spelling, to compare the two transports. */
const fromGql = (g: {
  enabled: boolean;
  sourceLanguages: string[];
  engine: string;
  ai: { baseUrl: string; model: string; apiKey: string; apiKeySet: boolean };
  processor: { url: string; token: string; tokenSet: boolean };
}): RestSettings => ({
  enabled: g.enabled,
  source_languages: g.sourceLanguages,
  ai: { base_url: g.ai.baseUrl, model: g.ai.model, api_key: g.ai.apiKey, api_key_set: g.ai.apiKeySet },
  processor: { url: g.processor.url, token: g.processor.token, token_set: g.processor.tokenSet },
  engine: g.engine.toLowerCase(),
});

describe("translation settings", () => {
  let app!: TestApp;
  shareTestApp((a) => (app = a));
  const get = async () => expectJson<RestSettings>(await app.api("/api/settings/translation"), 200);
  const put = (json: unknown) => app.api("/api/settings/translation", { method: "PUT", json });

  it("defaults: off, no languages, local engine, no secret", async () => {
    expect(await get()).toEqual({
      enabled: false,
      source_languages: [],
      ai: { base_url: "", model: "", api_key: "", api_key_set: false },
      processor: { url: "", token: "", token_set: false },
      engine: "local",
    });
  });

  it("stores keys only in the 0600 secrets file, answers them masked, never logs them", async () => {
    const logged: string[] = [];
    const original = app.ctx.log;
    app.ctx.log = (m) => {
      logged.push(m);
      original(m);
    };
    try {
      const body = await expectJson<RestSettings>(
        await put({
          enabled: true,
          source_languages: ["original", "ja", "fr"],
          ai: { base_url: "http://127.0.0.1:9/v1/", model: "gpt-test", api_key: AI_KEY },
          processor: { url: "http://127.0.0.1:8095", token: TOKEN },
        }),
        200,
      );
      expect(body).toEqual({
        enabled: true,
        source_languages: ["original", "ja", "fr"],
        ai: { base_url: "http://127.0.0.1:9/v1", model: "gpt-test", api_key: "****3456", api_key_set: true },
        processor: { url: "http://127.0.0.1:8095", token: "****9876", token_set: true },
        engine: "external",
      });
    } finally {
      app.ctx.log = original;
    }
    const raw = await app.api("/api/settings/translation").then((r) => r.text());
    const gqlRaw = JSON.stringify(await app.gql(`{ translationSettings { ${GQL_FIELDS} } }`));
    const rows = JSON.stringify(await app.ctx.db.setting.findMany());
    for (const text of [raw, gqlRaw, rows, logged.join("\n")]) {
      expect(text).not.toContain(AI_KEY);
      expect(text).not.toContain(TOKEN);
    }
    expect(logged.some((l) => l.includes("translation settings updated"))).toBe(true);
    const file = path.join(app.config.dataDir, "secrets.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const integrations = JSON.parse(await readFile(file, "utf8")).integrations as Record<string, string>;
    expect([integrations[AI_KEY_SECRET], integrations[PROCESSOR_TOKEN_SECRET]]).toEqual([AI_KEY, TOKEN]);
    expect(await app.ctx.db.setting.findUnique({ where: { key: TRANSLATION_SETTING_KEY } })).not.toBeNull();
  });

  it("the worker reads exactly what was stored (same row and secret names)", async () => {
    expect(await readWorkerSettings(app.ctx)).toEqual({
      enabled: true,
      processor: { url: "http://127.0.0.1:8095", token: TOKEN },
      ai: { baseUrl: "http://127.0.0.1:9/v1", model: "gpt-test", apiKey: AI_KEY },
    });
    const resolved = await app.services.translationSettings.resolved();
    expect([resolved.apiKey, resolved.processorToken, resolved.engine]).toEqual([AI_KEY, TOKEN, "external"]);
  });

  it("a masked value sent back keeps the secret; absent keeps; null clears; a new value replaces", async () => {
    const read = await get();
    await expectJson(await put({ ...read, enabled: true }), 200);
    expect(app.ctx.secrets.getIntegrationSecret(AI_KEY_SECRET)).toBe(AI_KEY);
    expect(app.ctx.secrets.getIntegrationSecret(PROCESSOR_TOKEN_SECRET)).toBe(TOKEN);
    await expectJson(await put({ ai: { model: "gpt-test-2" } }), 200);
    expect(app.ctx.secrets.getIntegrationSecret(AI_KEY_SECRET)).toBe(AI_KEY);
    const cleared = await expectJson<RestSettings>(await put({ processor: { token: null } }), 200);
    expect(cleared.processor).toEqual({ url: "http://127.0.0.1:8095", token: "", token_set: false });
    expect(app.ctx.secrets.getIntegrationSecret(PROCESSOR_TOKEN_SECRET)).toBeNull();
    await expectJson(await put({ processor: { token: TOKEN } }), 200);
    expect(app.ctx.secrets.getIntegrationSecret(PROCESSOR_TOKEN_SECRET)).toBe(TOKEN);
  });

  it("refuses the service's own API key or login password as a key or token (secret_is_service_login)", async () => {
    for (const body of [
      { ai: { api_key: TEST_API_KEY } },
      { processor: { token: TEST_API_KEY } },
      { ai: { api_key: TEST_PASSWORD } },
      { processor: { token: TEST_PASSWORD } },
    ]) {
      await expectProblem(await put(body), 422, "secret_is_service_login");
    }
    const p = await expectProblem(await put({ processor: { token: TEST_API_KEY } }), 422, "secret_is_service_login");
    expect(JSON.stringify(p)).not.toContain(TEST_API_KEY);
    await expectProblem(await put({ ai: { api_key: TEST_API_KEY } }), 422, "secret_is_service_login");
    expect(app.ctx.secrets.getIntegrationSecret(AI_KEY_SECRET)).toBe(AI_KEY);
    expect(app.ctx.secrets.getIntegrationSecret(PROCESSOR_TOKEN_SECRET)).toBe(TOKEN);
    const g = await app.gql(
      `mutation { updateTranslationSettings(input: { processor: { token: "${TEST_API_KEY}" } }) { enabled } }`,
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("secret_is_service_login");
  });

  it("the processor token must differ from the AI key", async () => {
    await expectProblem(await put({ processor: { token: AI_KEY } }), 400, "invalid_field");
  });

  it.each([
    ["an ftp URL", { ai: { base_url: "ftp://x/v1" } }],
    ["a URL with credentials", { processor: { url: "http://u:p@127.0.0.1:8095" } }],
    ["a URL with a query (keys in URLs leak into logs)", { ai: { base_url: "http://127.0.0.1/v1?key=abc" } }],
    ["not a URL", { processor: { url: "localhost:8095" } }],
    ["a bad language code", { source_languages: ["english"] }],
    ["languages not in a list", { source_languages: "ja" }],
    ["a non-boolean toggle", { enabled: "yes" }],
    ["a key with white space", { ai: { api_key: "sk one" } }],
  ])("refuses %s (invalid_field)", async (_name, body) => {
    const before = await get();
    await expectProblem(await put(body), 400, "invalid_field");
    expect(await get()).toEqual(before);
  });

  it("a malformed body is 400 bad_request", async () => {
    await expectProblem(await app.api("/api/settings/translation", { method: "PUT", json: ["x"] }), 400, "bad_request");
  });

  it("clearing the processor URL returns to local processing", async () => {
    expect((await expectJson<RestSettings>(await put({ processor: { url: "" } }), 200)).engine).toBe("local");
    expect(await app.services.translationSettings.engine()).toBe("local");
    expect((await readWorkerSettings(app.ctx)).processor).toBeNull();
    expect(
      (await expectJson<RestSettings>(await put({ processor: { url: "https://processor.example:8443/" } }), 200))
        .engine,
    ).toBe("external");
    expect(await app.services.translationSettings.engine()).toBe("external");
  });

  it("REST and GraphQL answer the same, and a GraphQL update shows in REST", async () => {
    const g = await app.gql<{ translationSettings: Parameters<typeof fromGql>[0] }>(
      `{ translationSettings { ${GQL_FIELDS} } }`,
    );
    expect(fromGql(g.data!.translationSettings)).toEqual(await get());
    const u = await app.gql<{ updateTranslationSettings: Parameters<typeof fromGql>[0] }>(
      `mutation { updateTranslationSettings(input: { enabled: false, sourceLanguages: ["fr", "original"], ai: { apiKey: "****3456", model: "m2" }, processor: { url: "" } }) { ${GQL_FIELDS} } }`,
    );
    expect(u.errors).toBeUndefined();
    const rest = await get();
    expect(fromGql(u.data!.updateTranslationSettings)).toEqual(rest);
    expect(rest).toMatchObject({
      enabled: false,
      source_languages: ["fr", "original"],
      engine: "local",
      ai: { model: "m2", api_key: "****3456" },
    });
    expect(app.ctx.secrets.getIntegrationSecret(AI_KEY_SECRET)).toBe(AI_KEY);
  });

  it("tells the registered listeners when the global toggle changes (and only then)", async () => {
    const seen: boolean[] = [];
    app.services.translationSettings.onEnabledChanged((on) => {
      seen.push(on);
    });
    await expectJson(await put({ enabled: true }), 200);
    await expectJson(await put({ enabled: true }), 200);
    await expectJson(await put({ enabled: false }), 200);
    expect(seen).toEqual([true, false]);
  });

  it("per series: PATCH /api/manga/{id} takes translation_fallback_enabled, translation_source_languages and language", async () => {
    const created = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Translated Harbor", language: "en" } }),
      201,
    );
    const patched = await expectJson<Record<string, unknown>>(
      await app.api(`/api/manga/${created.id}`, {
        method: "PATCH",
        json: { translation_fallback_enabled: true, translation_source_languages: ["original", "ja"], language: "de" },
      }),
      200,
    );
    expect(patched).toMatchObject({
      translation_fallback_enabled: true,
      translation_source_languages: ["original", "ja"],
      language: "de",
    });
    const inherit = await expectJson<Record<string, unknown>>(
      await app.api(`/api/manga/${created.id}`, { method: "PATCH", json: { translation_source_languages: [] } }),
      200,
    );
    expect(inherit.translation_source_languages).toEqual([]);
    await expectProblem(
      await app.api(`/api/manga/${created.id}`, {
        method: "PATCH",
        json: { translation_source_languages: ["klingon!"] },
      }),
      400,
      "invalid_field",
    );
  });
});

describe("maskSecret", () => {
  it('"****" plus at most the last 4 characters; short secrets show nothing of themselves', () => {
    expect(maskSecret(null)).toBe("");
    expect(maskSecret("abc")).toBe("****");
    expect(maskSecret("abcdefghijk")).toBe("****");
    expect(maskSecret("abcdefghijkl")).toBe("****ijkl");
  });
});
