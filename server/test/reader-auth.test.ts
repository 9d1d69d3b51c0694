/**
 * The reader apps' credentials on a secrets file as a real first start writes it (no
 * ADMIN_PASSWORD): HTTP Basic with the generated password or the API key, KOReader's MD5 of the
 * password (kept as a scrypt hash in the 0600 secrets file, never the MD5 itself), and what a
 * restart keeps.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { readerAuth } from "../src/http/reader-auth.ts";
import { loadSecrets } from "../src/secrets.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "mls-reader-auth-"));
let generated = "";
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null });
const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}` });

describe("reader-app credentials", () => {
  it("takes the generated password (Basic and KOReader's MD5) and the API key; refuses the rest", async () => {
    const secrets = await loadSecrets(dir, { apiKey: null, adminPassword: null });
    const password = secrets.generatedPassword!;
    expect(password).toBeTruthy();
    generated = password;
    const auth = readerAuth(secrets, null);
    expect(auth.authenticate(headers(basic("admin", password)))).toBe("admin");
    expect(auth.authenticate(headers(basic("whoever", secrets.apiKey)))).toBe("admin");
    expect(auth.authenticate(headers({ "x-api-key": secrets.apiKey }))).toBe("admin");
    expect(auth.authenticate(headers({ "x-auth-user": "admin", "x-auth-key": md5(password) }))).toBe("admin");
    expect(auth.authenticate(headers({ "x-auth-user": secrets.apiKey, "x-auth-key": md5("x") }))).toBe("admin");

    expect(auth.authenticate(headers(basic("admin", "wrong")))).toBeNull();
    expect(auth.authenticate(headers(basic("someone", password)))).toBeNull();
    expect(auth.authenticate(headers({ authorization: "Bearer abc" }))).toBeNull();
    expect(auth.authenticate(headers({ "x-auth-user": "admin", "x-auth-key": md5("wrong") }))).toBeNull();
    expect(auth.authenticate(headers({ "x-api-key": "nope" }))).toBeNull();
    expect(auth.authenticate(headers({}))).toBeNull();

    // The file holds a scrypt hash of the MD5, never the MD5 or the password.
    // The secrets file is rewritten asynchronously: wait for the entry, not for a time.
    await vi.waitFor(() =>
      expect(readFileSync(path.join(dir, "secrets.json"), "utf8")).toContain("koreader.passwordMd5"),
    );
    const file = readFileSync(path.join(dir, "secrets.json"), "utf8");
    expect(file).not.toContain(md5(password));
    expect(file).not.toContain(password);
    expect(file).toMatch(/"koreader\.passwordMd5": "scrypt\$/);
  });

  it("after a restart (no password printed) KOReader's key still works", async () => {
    const secrets = await loadSecrets(dir, { apiKey: null, adminPassword: null });
    expect(secrets.generatedPassword).toBeNull();
    const auth = readerAuth(secrets, null);
    const stored = JSON.parse(readFileSync(path.join(dir, "secrets.json"), "utf8")) as {
      integrations: Record<string, string>;
    };
    expect(stored.integrations["koreader.passwordMd5"]).toBeTruthy();
    expect(auth.authenticate(headers({ "x-auth-user": "admin", "x-auth-key": md5(generated) }))).toBe("admin");
    expect(auth.authenticate(headers({ "x-auth-user": "admin", "x-auth-key": md5("wrong") }))).toBeNull();
  });

  it("with ADMIN_PASSWORD the MD5 is that password's", async () => {
    const other = mkdtempSync(path.join(os.tmpdir(), "mls-reader-auth-env-"));
    try {
      const secrets = await loadSecrets(other, { apiKey: "k".repeat(32), adminPassword: "from the environment" });
      const auth = readerAuth(secrets, "from the environment");
      expect(auth.authenticate(headers({ "x-auth-user": "admin", "x-auth-key": md5("from the environment") }))).toBe(
        "admin",
      );
      expect(auth.authenticate(headers(basic("admin", "from the environment")))).toBe("admin");
      expect(auth.authenticate(headers({ "x-auth-user": "admin", "x-auth-key": md5("other") }))).toBeNull();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
