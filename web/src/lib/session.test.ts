import { describe, expect, it, vi } from "vitest";
import { fetchSession, login, logout, problemMessage } from "./session";

function answer(status: number, body?: unknown, contentType = "application/json") {
  return vi.fn<typeof fetch>(
    async () =>
      new Response(status === 204 || body === undefined ? null : JSON.stringify(body), {
        status,
        headers: body === undefined ? {} : { "content-type": contentType },
      }),
  );
}

describe("login", () => {
  it("posts the credentials as JSON and succeeds on 204", async () => {
    const fake = answer(204);
    await expect(login(" admin ", "s3cret", fake)).resolves.toEqual({ ok: true });
    const [url, init] = fake.mock.calls[0]!;
    expect(url).toBe("/api/session");
    expect(init?.method).toBe("POST");
    expect(JSON.parse(String(init?.body))).toEqual({ username: "admin", password: "s3cret" });
  });

  it("says wrong credentials on 401 without echoing the server", async () => {
    const fake = answer(401, { title: "Unauthorized", detail: "bad password for admin" }, "application/problem+json");
    await expect(login("admin", "nope", fake)).resolves.toEqual({ ok: false, message: "Wrong username or password." });
  });

  it("uses the problem detail for other refusals", async () => {
    const fake = answer(400, { title: "Bad Request", detail: "username is required" }, "application/problem+json");
    await expect(login("admin", "x", fake)).resolves.toEqual({ ok: false, message: "username is required" });
  });

  it("refuses an empty password without asking the server", async () => {
    const fake = answer(204);
    await expect(login("admin", "", fake)).resolves.toEqual({ ok: false, message: "Enter the password." });
    expect(fake).not.toHaveBeenCalled();
  });

  it("explains an unreachable server", async () => {
    const fake = vi.fn<typeof fetch>(async () => {
      throw new TypeError("Failed to fetch");
    });
    const result = await login("admin", "x", fake);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.message).toMatch(/cannot be reached/);
  });
});

describe("fetchSession", () => {
  it("reads the signed-in user", async () => {
    await expect(fetchSession(answer(200, { username: "admin" }))).resolves.toEqual({
      state: "signed-in",
      username: "admin",
    });
  });

  it("is anonymous on 401", async () => {
    await expect(fetchSession(answer(401, { title: "Unauthorized" }, "application/problem+json"))).resolves.toEqual({
      state: "anonymous",
    });
  });

  it("is unknown when the server fails", async () => {
    const state = await fetchSession(answer(503, { title: "Service Unavailable" }, "application/problem+json"));
    expect(state).toEqual({ state: "unknown", message: "Service Unavailable" });
  });
});

describe("logout", () => {
  it("deletes the session and tolerates a network failure", async () => {
    const fake = answer(204);
    await logout(fake);
    expect(fake.mock.calls[0]![1]?.method).toBe("DELETE");
    await expect(
      logout(
        vi.fn<typeof fetch>(async () => {
          throw new TypeError("offline");
        }),
      ),
    ).resolves.toBeUndefined();
  });
});

describe("problemMessage", () => {
  it("falls back when the body is not JSON", async () => {
    await expect(problemMessage(new Response("<html>", { status: 502 }), "fallback")).resolves.toBe("fallback");
  });
});
