/**
 * Body limits while the body streams: a 50 MB chunked body (no Content-Length, so nothing to
 * check up front) is cut at 4 MB and answered 413 `payload_too_large`, on REST, GraphQL and the
 * login alike; a declared Content-Length over the limit is refused before any byte is read; the
 * health endpoint answers meanwhile, memory stays bounded and nothing is created. A WebSocket
 * message is bounded the same way. Uploads keep their own, larger limit.
 */
import http from "node:http";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { JSON_BODY_LIMIT } from "../src/http/body-limits.ts";
import { expectProblem, zipBuffer } from "./fixtures.ts";
import { shareTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

interface Streamed {
  status: number;
  body: Record<string, unknown>;
  /** Bytes the client had written when the answer came. */
  written: number;
}

/**
 * Streams up to `total` bytes as a chunked body (one 64 KiB buffer reused, so the client itself
 * holds nothing) and stops writing as soon as the answer arrives or the server closes.
 */
function streamBody(
  app: TestApp,
  pathname: string,
  total: number,
  headers: Record<string, string>,
  method = "POST",
): Promise<Streamed> {
  const { port } = new URL(app.baseUrl);
  const chunk = Buffer.alloc(64 * 1024, " ");
  chunk.write('{"title":"');
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: pathname,
        method,
        headers: { ...headers, "transfer-encoding": "chunked" },
      },
      (res) => {
        answered = true;
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown>, written }),
        );
      },
    );
    // The server closing mid-body is the point: a reset after the answer is expected.
    req.on("error", (e) => {
      if (!answered) reject(e);
    });
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const titles = async (app: TestApp) =>
  ((await (await app.api("/api/manga")).json()) as { title: string }[]).map((s) => s.title);

describe("a 50 MB chunked body", () => {
  let app!: TestApp;
  shareTestApp((a) => (app = a));
  const FIFTY_MB = 50 * 1024 * 1024;

  it("is cut at the limit with 413 payload_too_large; health answers meanwhile; memory bounded; nothing created", async () => {
    const before = process.resourceUsage().maxRSS;
    const uploads = [
      streamBody(app, "/api/manga", FIFTY_MB, { "x-api-key": TEST_API_KEY, "content-type": "application/json" }),
      streamBody(app, "/graphql", FIFTY_MB, { "x-api-key": TEST_API_KEY, "content-type": "application/json" }),
      // Without any credential: the login reads a body too.
      streamBody(app, "/api/session", FIFTY_MB, { "content-type": "application/json" }),
    ];
    const health = await fetch(`${app.baseUrl}/api/health`);
    expect(health.status).toBe(200);
    for (const answer of await Promise.all(uploads)) {
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({ code: "payload_too_large", status: 413, limit_bytes: JSON_BODY_LIMIT });
      // Answered long before the client could send it all.
      expect(answer.written).toBeLessThan(FIFTY_MB);
    }
    // Three bodies of 50 MB streamed at once: the service held at most the limit of each.
    expect((process.resourceUsage().maxRSS - before) / 1024).toBeLessThan(48);
    expect(await titles(app)).toEqual([]);
    expect(await app.ctx.db.session.count()).toBe(0);
    expect((await fetch(`${app.baseUrl}/api/health`)).status).toBe(200);
  });

  it("is cut the same way on the reader apps' changes (KOReader sync, Komga read progress)", async () => {
    const basic = { authorization: `Basic ${Buffer.from(`admin:${TEST_API_KEY}`).toString("base64")}` };
    const json = { "content-type": "application/json" };
    const before = process.resourceUsage().maxRSS;
    const answers = await Promise.all([
      streamBody(app, "/koreader/syncs/progress", FIFTY_MB, { "x-auth-user": TEST_API_KEY, ...json }, "PUT"),
      streamBody(app, "/komga/api/v1/books/1/read-progress", FIFTY_MB, { ...basic, ...json }, "PATCH"),
    ]);
    expect((await fetch(`${app.baseUrl}/api/health`)).status).toBe(200);
    for (const answer of answers) {
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({ code: "payload_too_large", limit_bytes: JSON_BODY_LIMIT });
      expect(answer.written).toBeLessThan(FIFTY_MB);
    }
    expect((process.resourceUsage().maxRSS - before) / 1024).toBeLessThan(48);
    expect(await app.ctx.db.readProgress.count()).toBe(0);
  });

  it("with a declared Content-Length over the limit is refused before any byte is read", async () => {
    const { port } = new URL(app.baseUrl);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/api/manga",
          method: "POST",
          headers: { "x-api-key": TEST_API_KEY, "content-type": "application/json", "content-length": FIFTY_MB },
        },
        (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      // Only the headers and a few bytes: the answer comes without the rest.
      req.write('{"title":"x');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "payload_too_large" });
  });

  it("just under the limit is read and answered by the route", async () => {
    const padding = "x".repeat(JSON_BODY_LIMIT - 100);
    const res = await app.api("/api/manga", { method: "POST", json: { title: "Just fits", padding } });
    expect(res.status).toBe(201);
    expect(await titles(app)).toEqual(["Just fits"]);
  });
});

describe("a WebSocket message", () => {
  let app!: TestApp;
  shareTestApp((a) => (app = a));

  it("over the limit closes the connection (1009) without reading it whole", async () => {
    const ws = new WebSocket(`${app.baseUrl.replace("http", "ws")}/graphql`, "graphql-transport-ws");
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(Buffer.alloc(JSON_BODY_LIMIT + 1024, " "));
    expect(await closed).toBe(1009);
    expect((await fetch(`${app.baseUrl}/api/health`)).status).toBe(200);
  });
});

describe("an upload", () => {
  let app!: TestApp;
  shareTestApp((a) => (app = a));

  it("keeps its own larger limit: a 6 MB source archive is accepted", async () => {
    await app.services.translationWorker.stop();
    const s = (await (await app.api("/api/manga", { method: "POST", json: { title: "Big Pages" } })).json()) as {
      id: number;
    };
    await app.ctx.db.volumeSlot.create({ data: { seriesId: s.id, number: "1" } });
    const noise = (seed: number) =>
      sharp({
        create: {
          width: 1000,
          height: 1000,
          channels: 3,
          background: { r: 0, g: 0, b: 0 },
          noise: { type: "gaussian", mean: 100 + seed, sigma: 60 },
        },
      })
        .png({ compressionLevel: 0 })
        .toBuffer();
    const archive = await zipBuffer([
      { name: "001.png", data: await noise(1) },
      { name: "002.png", data: await noise(2) },
    ]);
    expect(archive.length).toBeGreaterThan(JSON_BODY_LIMIT + 1024 * 1024);
    const res = await app.api(`/api/manga/${s.id}/translations/upload?source_language=ja&volume=1`, {
      method: "POST",
      body: new Uint8Array(archive),
      headers: { "content-type": "application/zip" },
    });
    expect(res.status).toBe(201);
    // A chunked upload is still refused for its missing length, not for its size.
    await expectProblem(
      await fetch(`${app.baseUrl}/api/manga/${s.id}/translations/upload?source_language=ja&volume=1`, {
        method: "POST",
        headers: { "x-api-key": TEST_API_KEY, "content-type": "application/zip" },
        body: new Blob([new Uint8Array(archive.subarray(0, 1000))]).stream(),
        duplex: "half",
      } as RequestInit),
      411,
      "length_required",
    );
  });
});
