/**
 * KOReader sync (the kosync protocol) from an empty service: KOReader's own authentication headers
 * (admin with the MD5 of the web password, or the API key as the user name), documents named by
 * KOReader's partial MD5 — computed in the test exactly as KOReader does (./koreader-hash.ts) — or
 * by the MD5 of the file name, progress shared with the REST store.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expectJson, scanLibrary, zipBuffer } from "./fixtures.ts";
import { koreaderFileNameMd5, koreaderPartialMd5 } from "./koreader-hash.ts";
import { readerSeries, unitFileIds } from "./readers-fixtures.ts";
import { shareTestApp, TEST_API_KEY, TEST_PASSWORD, type TestApp } from "./utils.ts";

let app: TestApp;
shareTestApp((a) => (app = a));

const KOSYNC = "application/vnd.koreader.v1+json";
const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const admin = { "x-auth-user": "admin", "x-auth-key": md5(TEST_PASSWORD), accept: KOSYNC };
const byKey = { "x-auth-user": TEST_API_KEY, "x-auth-key": md5("anything"), accept: KOSYNC };

const ko = (pathname: string, headers: Record<string, string>, init: RequestInit = {}) =>
  fetch(`${app.baseUrl}/koreader${pathname}`, {
    ...init,
    headers: { ...headers, ...(init.body ? { "content-type": "application/json" } : {}) },
  });

let big: { id: number; hash: string; pages: number };
let small: { id: number; name: string };

beforeAll(async () => {
  const s = await readerSeries(app, "Sync Tale", [{ name: "Sync Tale c002.cbz", pages: 4 }]);
  // A 6 MB book: KOReader samples it at 0, 1 KiB, 4 KiB, … 4 MiB (past the end: the loop stops).
  const entries = Array.from({ length: 12 }, (_, i) => ({
    name: `${String(i + 1).padStart(3, "0")}.jpg`,
    data: randomBytes(500_000),
  }));
  const file = path.join(s.dir, "Sync Tale v01.cbz");
  await writeFile(file, await zipBuffer(entries));
  await scanLibrary(app);
  big = {
    id: (await unitFileIds(app, s.id, "book", "1"))[0]!,
    hash: koreaderPartialMd5(await readFile(file)),
    pages: 12,
  };
  small = { id: (await unitFileIds(app, s.id, "chapter", "2"))[0]!, name: "Sync Tale c002.cbz" };
});

describe("KOReader sync", () => {
  it("authorizes admin with the password's MD5 and the API key as the user name; refuses anything else", async () => {
    for (const h of [admin, byKey]) {
      const res = await ko("/users/auth", h);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/vnd\.koreader\.v1\+json/);
      expect(await res.json()).toEqual({ authorized: "OK" });
    }
    const refused: Record<string, string>[] = [
      { ...admin, "x-auth-key": md5("wrong") },
      { "x-auth-user": "someone", "x-auth-key": md5(TEST_PASSWORD) },
      {},
    ];
    for (const h of refused) {
      const res = await ko("/users/auth", h);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
      expect(await res.json()).toEqual({ code: 2001, message: "Unauthorized" });
    }
    expect(
      (await ko("/users/create", admin, { method: "POST", body: JSON.stringify({ username: "x", password: "y" }) }))
        .status,
    ).toBe(403);
  });

  it("a document never opened answers {}; KOReader's page becomes the place; GET gives it back", async () => {
    expect(await expectJson(await ko(`/syncs/progress/${big.hash}`, admin), 200)).toEqual({});
    const put = await ko("/syncs/progress", admin, {
      method: "PUT",
      body: JSON.stringify({
        document: big.hash,
        progress: "5",
        percentage: 0.3333,
        device: "Kobo Libra",
        device_id: "ABC",
      }),
    });
    expect(put.status).toBe(200);
    const ack = (await put.json()) as { document: string; timestamp: number };
    expect(ack.document).toBe(big.hash);
    expect(Math.abs(ack.timestamp - Date.now() / 1000)).toBeLessThan(120);
    expect(await expectJson(await app.api(`/api/files/${big.id}/progress`), 200)).toMatchObject({
      page: 5,
      completed: false,
      device: "koreader",
    });
    const got = await expectJson<Record<string, unknown>>(await ko(`/syncs/progress/${big.hash}`, byKey), 200);
    expect(got).toMatchObject({ document: big.hash, progress: "5", percentage: 0.3333, timestamp: ack.timestamp });

    // A place set in the web reader reads back as KOReader's page number.
    await expectJson(await app.api(`/api/files/${big.id}/progress`, { method: "PUT", json: { page: 9 } }), 200);
    expect(await expectJson(await ko(`/syncs/progress/${big.hash}`, admin), 200)).toMatchObject({
      progress: "9",
      percentage: 0.6667,
    });
    // The last page completes the book.
    await ko("/syncs/progress", admin, {
      method: "PUT",
      body: JSON.stringify({ document: big.hash, progress: "12", percentage: 1, device: "Kobo", device_id: "A" }),
    });
    expect(await expectJson(await app.api(`/api/files/${big.id}/progress`), 200)).toMatchObject({
      page: 12,
      completed: true,
    });
  });

  it("what KOReader pushed comes back as pushed: progress, percentage, device and device_id", async () => {
    const s = await readerSeries(app, "Echo Tale", [{ name: "Echo Tale c001.cbz", pages: 10 }]);
    const hash = koreaderPartialMd5(await readFile(path.join(s.dir, "Echo Tale c001.cbz")));
    const [id] = await unitFileIds(app, s.id, "chapter", "1");
    // KOReader's percentage of an image book is page / pages (its own rounding), not the page to open next.
    const pushed = { document: hash, progress: "4", percentage: 0.4, device: "Kobo Libra 2", device_id: "9F2C61D0" };
    const put = await ko("/syncs/progress", admin, {
      method: "PUT",
      body: JSON.stringify({ ...pushed, metadata: { filename: "Echo Tale c001.cbz", title: "Echo Tale" } }),
    });
    const ack = await expectJson<{ timestamp: number }>(put, 200);
    // KOReader tells "Latest progress is coming from this device" by device and device_id.
    expect(await expectJson(await ko(`/syncs/progress/${hash}`, admin), 200)).toEqual({
      ...pushed,
      timestamp: ack.timestamp,
    });
    // Another device's push replaces them; a place the web reader sets is described from its page.
    const other = { document: hash, progress: "6", percentage: 0.6, device: "PocketBook", device_id: "PB-77" };
    await expectJson(await ko("/syncs/progress", byKey, { method: "PUT", body: JSON.stringify(other) }), 200);
    expect(await expectJson(await ko(`/syncs/progress/${hash}`, admin), 200)).toMatchObject(other);
    await expectJson(await app.api(`/api/files/${id}/progress`, { method: "PUT", json: { page: 3 } }), 200);
    const web = await expectJson<Record<string, unknown>>(await ko(`/syncs/progress/${hash}`, admin), 200);
    expect(web).toMatchObject({ progress: "3", percentage: 0.2 });
    expect(web.device_id).not.toBe("PB-77");
  });

  it("KOReader's file-name matching: the MD5 of the file name finds the file", async () => {
    const doc = koreaderFileNameMd5(small.name);
    const put = await ko("/syncs/progress", admin, {
      method: "PUT",
      body: JSON.stringify({ document: doc, progress: "3", percentage: 0.5, device: "Kobo", device_id: "A" }),
    });
    expect(put.status).toBe(200);
    expect(await expectJson(await app.api(`/api/files/${small.id}/progress`), 200)).toMatchObject({ page: 3 });
  });

  it("an unknown document is 404 and changes nothing; malformed bodies are 400", async () => {
    const res = await ko(`/syncs/progress/${md5("not a file")}`, admin);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/document/);
    const bad = await ko("/syncs/progress", admin, { method: "PUT", body: JSON.stringify({ progress: "3" }) });
    expect(bad.status).toBe(400);
    const notPage = await ko("/syncs/progress", admin, {
      method: "PUT",
      body: JSON.stringify({ document: big.hash, progress: "/body/DocFragment[3]", device: "x", device_id: "y" }),
    });
    expect(notPage.status).toBe(400);
  });
});
