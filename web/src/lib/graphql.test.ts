import { describe, expect, it, vi } from "vitest";
import { createGraphqlClient, sameOriginWsUrl } from "./graphql";
import { LIBRARY_QUERY } from "./queries";

function fakeFetch(status: number, body: unknown, contentType = "application/json") {
  return vi.fn<typeof fetch>(
    async () =>
      new Response(typeof body === "string" ? body : JSON.stringify(body), {
        status,
        headers: { "content-type": contentType },
      }),
  );
}

describe("createGraphqlClient", () => {
  it("posts the query same-origin to /graphql with cookies", async () => {
    const fetch = fakeFetch(200, { data: { seriesList: [] } });
    const onUnauthenticated = vi.fn();
    const client = createGraphqlClient({ url: "http://app.test/graphql", fetch, onUnauthenticated });
    const result = await client.query(LIBRARY_QUERY, {}).toPromise();
    expect(result.data).toEqual({ seriesList: [] });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe("http://app.test/graphql");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("same-origin");
    expect(JSON.parse(String(init?.body)).operationName).toBe("Library");
    expect(onUnauthenticated).not.toHaveBeenCalled();
  });

  it("reports an HTTP 401 problem answer", async () => {
    const fetch = fakeFetch(
      401,
      { type: "about:blank", title: "Unauthorized", status: 401, code: "unauthenticated" },
      "application/problem+json",
    );
    const onUnauthenticated = vi.fn();
    const client = createGraphqlClient({ url: "http://app.test/graphql", fetch, onUnauthenticated });
    const result = await client.query(LIBRARY_QUERY, {}).toPromise();
    expect(result.error).toBeDefined();
    expect(onUnauthenticated).toHaveBeenCalledTimes(1);
  });

  it("reports a GraphQL error with extensions.code unauthenticated", async () => {
    const fetch = fakeFetch(200, {
      data: null,
      errors: [{ message: "Sign in first", extensions: { code: "unauthenticated" } }],
    });
    const onUnauthenticated = vi.fn();
    const client = createGraphqlClient({ url: "http://app.test/graphql", fetch, onUnauthenticated });
    const result = await client.query(LIBRARY_QUERY, {}).toPromise();
    expect(result.error?.graphQLErrors[0]?.message).toBe("Sign in first");
    expect(onUnauthenticated).toHaveBeenCalledTimes(1);
  });

  it("does not treat other errors as a lost session", async () => {
    const fetch = fakeFetch(500, "oops", "text/plain");
    const onUnauthenticated = vi.fn();
    const client = createGraphqlClient({ url: "http://app.test/graphql", fetch, onUnauthenticated });
    const result = await client.query(LIBRARY_QUERY, {}).toPromise();
    expect(result.error).toBeDefined();
    expect(onUnauthenticated).not.toHaveBeenCalled();
  });
});

describe("sameOriginWsUrl", () => {
  it("follows the page's scheme and host", () => {
    expect(sameOriginWsUrl({ protocol: "http:", host: "localhost:8080" })).toBe("ws://localhost:8080/graphql");
    expect(sameOriginWsUrl({ protocol: "https:", host: "manga.example" })).toBe("wss://manga.example/graphql");
  });
});
