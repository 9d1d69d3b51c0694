/**
 * Text fields: a lone surrogate (answered 500 before), a NUL (which cut the title short in the
 * database) or any other control character but tab is refused with 400 `invalid_field` naming
 * the field — in REST bodies, query parameters, GraphQL variables and GraphQL string literals —
 * and nothing changes. A multi-line note keeps its line breaks. GraphQL documents the parser or
 * validator cannot take (a list literal nested 3,000 deep, a variable nested as deep, any syntax
 * error) are 400, never `internal`; a REST body nested too deep is 400 too.
 */
import { describe, expect, it } from "vitest";
import { expectProblem } from "./fixtures.ts";
import { shareTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

const BAD: [string, string, string][] = [
  ["a lone high surrogate", "Blue \ud800Harbor", "lone_surrogate"],
  ["a lone low surrogate", "Blue \udc00Harbor", "lone_surrogate"],
  ["a NUL", "Blue\u0000Harbor", "control_character"],
  ["a bell", "Blue\u0007Harbor", "control_character"],
  ["a line feed", "Blue\nHarbor", "control_character"],
  ["DEL", "Blue\u007fHarbor", "control_character"],
  ["a C1 control (NEL)", "Blue\u0085Harbor", "control_character"],
];

interface GqlBody {
  data?: unknown;
  errors?: { message: string; extensions?: { code?: string; field?: string } }[];
}

describe("text fields", () => {
  let app!: TestApp;
  let id = 0;
  shareTestApp((a) => (app = a));

  const titles = async () => ((await (await app.api("/api/manga")).json()) as { title: string }[]).map((s) => s.title);

  it("a title with a tab and any script is fine", async () => {
    const res = await app.api("/api/manga", { method: "POST", json: { title: "Blue\tHarbor 青い港 😀" } });
    expect(res.status).toBe(201);
    id = ((await res.json()) as { id: number }).id;
    expect(await titles()).toEqual(["Blue\tHarbor 青い港 😀"]);
  });

  it.each(BAD)(
    "REST refuses %s in a title (create and change) with 400 invalid_field",
    async (_name, title, reason) => {
      const created = await expectProblem(
        await app.api("/api/manga", { method: "POST", json: { title } }),
        400,
        "invalid_field",
      );
      expect(created).toMatchObject({ field: expect.stringMatching(/title$/), reason });
      await expectProblem(
        await app.api(`/api/manga/${id}`, { method: "PATCH", json: { title } }),
        400,
        "invalid_field",
      );
      expect(await titles()).toEqual(["Blue\tHarbor 青い港 😀"]);
    },
  );

  it.each(BAD.filter(([n]) => n !== "a line feed"))(
    "REST refuses %s in any string of a body, even one the route does not read",
    async (_name, value) => {
      const p = await expectProblem(
        await app.api("/api/manga", { method: "POST", json: { title: "Fine", extra: { list: ["ok", value] } } }),
        400,
        "invalid_field",
      );
      expect(p.field).toBe("body.extra.list[1]");
      expect(await titles()).toHaveLength(1);
    },
  );

  it("REST refuses a control character in a query parameter", async () => {
    await expectProblem(await app.api(`/api/manga?x=${encodeURIComponent("a\u0000b")}`), 400, "invalid_field");
  });

  it("the reader apps refuse a control character in a search too; their JSON bodies are checked like REST's", async () => {
    const key = { "x-api-key": TEST_API_KEY };
    const q = encodeURIComponent("a\u0001b");
    for (const url of [`/opds/v1.2/series?q=${q}`, `/komga/api/v1/series?search=${q}`])
      await expectProblem(await fetch(`${app.baseUrl}${url}`, { headers: key }), 400, "invalid_field");
    await expectProblem(
      await fetch(`${app.baseUrl}/koreader/syncs/progress`, {
        method: "PUT",
        headers: { "x-auth-user": TEST_API_KEY, "content-type": "application/json" },
        body: JSON.stringify({ document: "0".repeat(32), progress: "2\u0000", device: "\ud800" }),
      }),
      400,
      "invalid_field",
    );
    expect(await app.ctx.db.readProgress.count()).toBe(0);
  });

  it.each(BAD)("GraphQL refuses %s in a variable and in a literal", async (_name, title, reason) => {
    const byVariable = (await app.gql("mutation($t: String!) { createSeries(input: { title: $t }) { id } }", {
      t: title,
    })) as GqlBody;
    expect(byVariable.data ?? null).toBeNull();
    // Named by its path among the variables (or, for a line break, by the single-line field's own rule).
    expect(byVariable.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_field",
      field: expect.stringMatching(/^(variables\.t|title)$/),
    });
    const literal = JSON.stringify(title);
    const byLiteral = (await app.gql(`mutation { createSeries(input: { title: ${literal} }) { id } }`)) as GqlBody;
    // GraphQL's own lexer already refuses a lone surrogate written as an escape (a syntax error).
    expect(byLiteral.errors?.[0]?.extensions?.code).toBe(reason === "lone_surrogate" ? "bad_request" : "invalid_field");
    expect(await titles()).toHaveLength(1);
  });

  it("a multi-line field keeps its line breaks (and still refuses NUL)", async () => {
    const reject = (reason: string) =>
      app.api(`/api/manga/${id}/audit/reject-source/preview`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: "nothing", reason },
      });
    // Not a source of this series: the reason passed the text rules and the route answered on.
    const multi = await reject("wrong series\r\nanother edition");
    expect((await multi.json()) as { code?: string }).not.toMatchObject({ code: "invalid_field" });
    await expectProblem(await reject("wrong\u0000series"), 400, "invalid_field");
  });
});

describe("documents the parser or validator cannot take", () => {
  let app!: TestApp;
  shareTestApp((a) => (app = a));

  async function post(body: unknown): Promise<{ status: number; body: GqlBody }> {
    const res = await app.api("/graphql", { method: "POST", json: body });
    return { status: res.status, body: (await res.json()) as GqlBody };
  }

  it("a list literal nested 3,000 deep is 400 (it answered internal before)", async () => {
    const deep = `${"[".repeat(3000)}1${"]".repeat(3000)}`;
    const r = await post({ query: `{ series(id: ${deep}) { id } }` });
    expect(r.status).toBe(400);
    // The parser's recursion gives up before the token limit is reached: said in words, as the client's mistake.
    expect(r.body.errors?.[0]).toMatchObject({
      message: "the document is nested too deeply",
      extensions: { code: "bad_request" },
    });
    const shallower = `${"[".repeat(900)}1${"]".repeat(900)}`;
    const r2 = await post({ query: `{ series(id: ${shallower}) { id } }` });
    expect(r2.status).toBe(400);
    expect(r2.body.errors?.[0]?.extensions?.code).toBe("bad_request");
  });

  it("a variable nested 3,000 deep is 400", async () => {
    let v: unknown = 1;
    for (let i = 0; i < 3000; i++) v = [v];
    const r = await post({ query: "query($x: Int!) { series(id: $x) { id } }", variables: { x: v } });
    expect(r.status).toBe(400);
    expect(["bad_request", "invalid_field"]).toContain(r.body.errors?.[0]?.extensions?.code);
  });

  it.each([
    ["an unclosed selection", "{ seriesList { id "],
    ["a bad token", "{ seriesList { id } } }"],
    ["an unterminated string", '{ series(id: "1) { id } }'],
    ["an unknown field", "{ noSuchField }"],
    ["a missing variable definition", "{ series(id: $nope) { id } }"],
    ["an empty document", " "],
  ])("%s is 400 bad_request", async (_name, query) => {
    const r = await post({ query });
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.extensions?.code).toBe("bad_request");
  });

  it.each([
    ["no query at all", {}],
    ["a query that is not a string", { query: 5 }],
    ["variables that are not an object", { query: "{ seriesList { id } }", variables: "x" }],
    ["a batch", [{ query: "{ seriesList { id } }" }]],
  ])("a request with %s is 400 bad_request, like a bad document", async (_name, body) => {
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(r.body.errors?.map((e) => e.extensions)).toEqual([{ code: "bad_request", status: 400 }]);
  });

  it("a body that is not JSON is 400 bad_request, and the parser's own error stays inside", async () => {
    const res = await app.api("/graphql", {
      method: "POST",
      body: "garbage",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as GqlBody;
    expect(body.errors?.map((e) => e.extensions)).toEqual([{ code: "bad_request", status: 400 }]);
  });

  it("a REST body nested 100,000 deep is 400, not a crash", async () => {
    const body = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    const res = await app.api("/api/manga", { method: "POST", body, headers: { "content-type": "application/json" } });
    expect([400]).toContain(res.status);
    expect(((await res.json()) as { code: string }).code).toBe("bad_request");
    expect((await app.api("/api/health")).status).toBe(200);
  });
});
