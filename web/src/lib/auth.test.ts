import { CombinedError } from "@urql/core";
import { describe, expect, it } from "vitest";
import { isUnauthenticated, loginHref, safeNext } from "./auth";

describe("safeNext", () => {
  it("keeps same-site paths with their query and hash", () => {
    expect(safeNext("/series/3")).toBe("/series/3");
    expect(safeNext("/?q=one%20piece#top")).toBe("/?q=one%20piece#top");
  });

  it("falls back to the library for anything that could leave the site", () => {
    for (const bad of [
      null,
      undefined,
      "",
      "series/3",
      "//evil.example/x",
      "/\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "/\t/evil.example",
      "/\n/evil.example",
    ]) {
      expect(safeNext(bad), String(bad)).toBe("/");
    }
  });

  it("never sends the user back to the login page", () => {
    expect(safeNext("/login")).toBe("/");
    expect(safeNext("/login?next=/series/1")).toBe("/");
  });
});

describe("loginHref", () => {
  it("carries the page to return to", () => {
    expect(loginHref("/series/12?x=1")).toBe("/login?next=%2Fseries%2F12%3Fx%3D1");
  });

  it("is plain for the library and for unsafe targets", () => {
    expect(loginHref("/")).toBe("/login");
    expect(loginHref("//evil.example")).toBe("/login");
  });
});

describe("isUnauthenticated", () => {
  it("recognises HTTP 401", () => {
    const error = new CombinedError({
      networkError: new Error("Unauthorized"),
      response: new Response("", { status: 401 }),
    });
    expect(isUnauthenticated(error)).toBe(true);
  });

  it("recognises extensions.code unauthenticated in any case", () => {
    for (const code of ["unauthenticated", "UNAUTHENTICATED"]) {
      const error = new CombinedError({ graphQLErrors: [{ message: "Log in", extensions: { code } }] });
      expect(isUnauthenticated(error)).toBe(true);
    }
  });

  it("ignores other failures", () => {
    expect(isUnauthenticated(undefined)).toBe(false);
    expect(
      isUnauthenticated(new CombinedError({ graphQLErrors: [{ message: "x", extensions: { code: "not_found" } }] })),
    ).toBe(false);
    expect(
      isUnauthenticated(
        new CombinedError({ networkError: new Error("boom"), response: new Response("", { status: 500 }) }),
      ),
    ).toBe(false);
  });
});
