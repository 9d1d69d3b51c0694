/**
 * Security headers and the Content-Security-Policy, against the real service and Debian's Chromium:
 * every web page says frame-ancestors 'none', nosniff and Referrer-Policy same-origin and carries a
 * CSP whose only inline script is SvelteKit's start-up script with this response's nonce; the web
 * client works under it (no violation reported on the library, a series page with its live
 * connection, the audit thumbnails, the reader, the settings). "Sign out everywhere" in the
 * settings ends the session, and the old cookie no longer opens anything.
 */
import { describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { browserSuite, loggedInContext, seriesId, watchErrors, type Service } from "./harness.ts";

let service: Service;
let browser: Browser;
browserSuite((s, b) => {
  service = s;
  browser = b;
});

/** Collects every CSP violation the page reports (the listener is installed by the DevTools protocol, not by a script). */
async function watchViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
}
const violations = (page: Page) => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);

describe("security headers", () => {
  it("are on every web page, its assets and the API", async () => {
    const html = await fetch(`${service.base}/login`);
    const body = await html.text();
    const csp = html.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(csp).toMatch(/base-uri 'self'/);
    // The one inline script is SvelteKit's, allowed by this response's nonce and nothing else.
    const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(body).toContain(`nonce="${nonce}"`);
    const again = await fetch(`${service.base}/login`);
    expect(again.headers.get("content-security-policy")).not.toContain(nonce);

    const asset = /\/_app\/immutable\/[^"]+\.js/.exec(body)?.[0];
    expect(asset).toBeTruthy();
    // The reader apps' paths too (their 401 answers included).
    const readerPaths = ["/opds/v1.2/catalog", "/opds/v2/catalog", "/komga/api/v1/series", "/koreader/users/auth"];
    for (const url of [
      "/",
      "/login",
      "/settings",
      "/calendar",
      "/series/1",
      "/no-such-page",
      asset as string,
      "/api/health",
      ...readerPaths,
    ]) {
      const res = await fetch(`${service.base}${url}`, { redirect: "manual" });
      expect(
        {
          url,
          frame: res.headers.get("x-frame-options"),
          sniff: res.headers.get("x-content-type-options"),
          referrer: res.headers.get("referrer-policy"),
          frameAncestors: /frame-ancestors 'none'/.test(res.headers.get("content-security-policy") ?? ""),
        },
        url,
      ).toEqual({ url, frame: "DENY", sniff: "nosniff", referrer: "same-origin", frameAncestors: true });
    }
    // An API answer opened on its own can run nothing.
    const api = await fetch(`${service.base}/api/health`);
    expect(api.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
  });
});

describe("the web client under its CSP", () => {
  it("works with no violation: library, series page (live connection), calendar, audit thumbnails, reader (its place saved), settings", async () => {
    const context = await loggedInContext(browser, service);
    await watchViolations(context);
    const page = await context.newPage();
    const errors = watchErrors(page);
    const id = await seriesId(service, "Lanterns of the Salt Road");

    // Each page load starts a new list: collect it before leaving the page.
    const seen: string[] = [];
    const collect = async () => seen.push(...(await violations(page)).map((v) => `${page.url()}: ${v}`));

    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
    await page
      .getByRole("img", { name: /^Cover of / })
      .first()
      .waitFor();
    await collect();

    await page.goto(`/series/${id}`);
    await page.getByRole("heading", { level: 1, name: "Lanterns of the Salt Road" }).waitFor();
    await collect();

    await page.goto("/calendar");
    await page.getByRole("heading", { level: 1 }).waitFor();
    await collect();

    await page.goto(`/series/${id}/audit`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    // Thumbnails: images of the API, made on first request.
    await page.waitForFunction(
      () => [...document.images].some((i) => i.src.includes("/thumbnail") && i.complete && i.naturalWidth > 0),
      null,
      { timeout: 60_000 },
    );
    await collect();

    const files = await service.gql<{ units: { units: { kind: string; fileIds: number[] }[] } }>(
      "query($id: Int!) { units(seriesId: $id) { units { kind fileIds } } }",
      { id },
    );
    const fileId = files.units.units.find((u) => u.fileIds.length > 0)?.fileIds[0];
    await page.goto(`/read/${fileId}`);
    await page.waitForFunction(() => [...document.images].some((i) => i.complete && i.naturalWidth > 0), null, {
      timeout: 15_000,
    });
    // The reader stores the place as pages settle (a cookie-authenticated change from our own page).
    await expect
      .poll(
        async () =>
          (await service.api("GET", `/api/files/${fileId}/progress`).then((r) => r.json())) as {
            updated_at: string | null;
          },
        { timeout: 15_000 },
      )
      .toMatchObject({ updated_at: expect.any(String) });
    await collect();

    await page.goto("/settings");
    await page.getByRole("heading", { level: 2, name: "Signed-in browsers" }).waitFor();
    await page.getByText("this browser").waitFor();
    await collect();

    expect(seen).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("cannot be framed by another page", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent(`<iframe src="${service.base}/login"></iframe>`);
    // Chromium refuses the frame (frame-ancestors 'none', X-Frame-Options DENY) and shows its error page instead.
    await expect
      .poll(
        () =>
          page
            .frames()
            .find((f) => f !== page.mainFrame())
            ?.url() ?? "",
        { timeout: 15_000 },
      )
      .toBe("chrome-error://chromewebdata/");
    await context.close();
  });
});

describe("sign out everywhere in the settings", () => {
  it("ends every session: this browser lands on the login page, another browser's cookie stops working", async () => {
    const other = await loggedInContext(browser, service);
    const otherCookies = await other.cookies();
    const context = await loggedInContext(browser, service);
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto("/settings");
    await page.getByRole("heading", { level: 2, name: "Signed-in browsers" }).waitFor();
    await expect.poll(() => page.getByTestId("sessions").getByRole("listitem").count()).toBeGreaterThanOrEqual(2);

    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Sign out everywhere" }).click();
    await page.waitForURL(/\/login/);

    const cookie = otherCookies.map((c) => `${c.name}=${c.value}`).join("; ");
    expect((await fetch(`${service.base}/api/session`, { headers: { cookie } })).status).toBe(401);
    const otherPage = await other.newPage();
    await otherPage.goto("/settings");
    await otherPage.waitForURL(/\/login/);
    expect(errors.filter((e) => !/401|Unauthorized/.test(e))).toEqual([]);
    await other.close();
    await context.close();
  });

  it("says clearly why the password cannot be changed when ADMIN_PASSWORD sets it", async () => {
    const context = await loggedInContext(browser, service);
    const page = await context.newPage();
    await page.goto("/settings");
    await page.getByLabel("Current password").fill("browser-test-password");
    await page.getByLabel("New password (at least 8 characters)").fill("another password");
    await page.getByLabel("New password again").fill("another password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("alert").filter({ hasText: "ADMIN_PASSWORD" }).first().waitFor();
    expect(
      (
        await fetch(`${service.base}/api/session`, {
          headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
        })
      ).status,
    ).toBe(200);
    await context.close();
  });
});
