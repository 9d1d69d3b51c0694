/**
 * Every route that takes a body, sent what a broken or hostile client sends — text that is not
 * JSON, JSON that is no object (`null`, a list, a string, a number), an empty object, and objects
 * whose fields have the wrong types — answers with a coded refusal or does what an empty request
 * does; it never fails as the service's own error (500 `internal`). The routes are read from the
 * HTTP modules themselves, so a new route is covered without being listed here.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KOMGA } from "../src/http/readers/komga-dto.ts";
import { OPDS_V2 } from "../src/http/readers/opds-v2.ts";
import { expectJson } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const HTTP = path.join(import.meta.dirname, "../src/http");

/** `[method, path]` of every POST, PUT, PATCH and DELETE route registered in server/src/http. */
function bodyRoutes(): [string, string][] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts") && !p.endsWith(".test.ts"))
        for (const m of readFileSync(p, "utf8").matchAll(/app\.(post|put|patch|delete)\(\s*[`"]([^`"]+)[`"]/g))
          found.add(`${m[1]!.toUpperCase()} ${m[2]}`);
    }
  };
  walk(HTTP);
  return [...found].sort().map((r) => r.split(" ") as [string, string]);
}

const BODIES = [
  "not json",
  "{",
  "null",
  "[]",
  '"text"',
  "7",
  "{}",
  '{"a":{"b":[1,2,{"c":null}]}}',
  JSON.stringify({
    title: [],
    language: {},
    file_ids: "x",
    confirmation: 5,
    page: "x",
    progress: [],
    completed: "yes",
    enabled: "yes",
    chapters: {},
    entries: 7,
    priority: "high",
    monitored: "x",
    volume: [],
    provider: 7,
    source_id: [],
    mapping_id: "x",
    external_id: {},
    url: 5,
    username: [],
    password: {},
    languages: "en",
    document: 7,
    percentage: "x",
    fullTextSearch: 3,
    assignments: {},
  }),
];

describe("malformed bodies on every route that takes one", () => {
  let app: TestApp;
  let seriesId: number;
  beforeAll(async () => {
    app = await createTestApp();
    seriesId = (
      await expectJson<{ id: number }>(
        await app.api("/api/manga", { method: "POST", json: { title: "Odd Bodies" } }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    await app?.dispose();
  });

  it("are refused with a code or read as an empty request, never a 500", async () => {
    const routes = bodyRoutes();
    // The route list really is read (a broken pattern would make this test pass on nothing).
    expect(routes.length).toBeGreaterThan(60);
    expect(routes).toContainEqual(["PUT", "/koreader/syncs/progress"]);
    const failed: string[] = [];
    for (const [method, template] of routes) {
      // A scan would read the whole (empty) library each time; the session routes end the caller's session.
      if (template === "/api/library/scan" || template.startsWith("/api/session")) continue;
      const url = template
        .replace("${V1}", `${KOMGA}/api/v1`)
        .replace("${KOMGA}", KOMGA)
        .replace("${OPDS_V2}", OPDS_V2)
        .replace(":id", String(seriesId))
        .replace(":volume", "1")
        .replace(":kind", "chapter")
        .replace(":number", "1")
        .replace(":catalogue", "anilist")
        .replace(/:[a-z_]+/g, "1");
      expect(url, `a route template this test does not know: ${template}`).not.toContain("${");
      for (const body of BODIES) {
        const res = await app.api(url, { method, body, headers: { "content-type": "application/json" } });
        const text = await res.text();
        if (res.status === 500 || /"code":\s*"internal"/.test(text))
          failed.push(`${method} ${url} ${body.slice(0, 40)} → ${res.status} ${text.slice(0, 120)}`);
      }
    }
    expect(failed).toEqual([]);
  }, 300_000);

  it("reader apps: Komga's search lists take only an object (400), KOReader reads anything else as no document (2004)", async () => {
    for (const list of ["series", "books"])
      for (const body of ["null", "[]", '"x"']) {
        const res = await app.api(`${KOMGA}/api/v1/${list}/list`, {
          method: "POST",
          body,
          headers: { "content-type": "application/json" },
        });
        expect([list, body, res.status, ((await res.json()) as { code: string }).code]).toEqual([
          list,
          body,
          400,
          "bad_request",
        ]);
      }
    for (const body of ["null", "[]", "7"]) {
      const res = await app.api("/koreader/syncs/progress", {
        method: "PUT",
        body,
        headers: { "content-type": "application/json" },
      });
      expect([body, res.status, await res.json()]).toEqual([
        body,
        400,
        { code: 2004, message: "Field 'document' not provided." },
      ]);
    }
  });
});
