/**
 * Fetched pages read into reused buffers (`providers/page-buffers.ts`) and the Suwayomi client's
 * capped page read on top of it, against a real HTTP server on 127.0.0.1: exact bytes whatever the
 * chunking, a buffer given back is the next page's, the size cap refuses early, and a cut transfer
 * is transient.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PageBuffers, readIntoPooled } from "../src/providers/page-buffers.ts";
import { ProviderError } from "../src/providers/provider.ts";
import { SuwayomiClient } from "../src/providers/suwayomi-client.ts";

async function* chunks(parts: readonly Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield p;
}
const tooLarge = () => new ProviderError("too large", false);

describe("readIntoPooled", () => {
  it("any chunking gives the body's exact bytes; each buffer given back serves a later page", async () => {
    const pool = new PageBuffers(4);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 300_000 }), { maxLength: 6 }),
        fc.boolean(),
        async (parts, declare) => {
          const body = Buffer.concat(parts);
          const page = await readIntoPooled(chunks(parts), {
            max: 4 * 1024 * 1024,
            declared: declare ? body.length : undefined,
            pool,
            tooLarge,
          });
          expect(page.bytes.equals(body)).toBe(true);
          page.release();
          expect(pool.kept).toBeGreaterThanOrEqual(1);
          expect(pool.kept).toBeLessThanOrEqual(4);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a page's buffer is the next page's once given back, and not before", async () => {
    const pool = new PageBuffers(4);
    const a = await readIntoPooled(chunks([Buffer.alloc(1000, 1)]), { max: 1 << 20, pool, tooLarge });
    const b = await readIntoPooled(chunks([Buffer.alloc(1000, 2)]), { max: 1 << 20, pool, tooLarge });
    expect(b.bytes.buffer).not.toBe(a.bytes.buffer);
    expect(a.bytes.every((x) => x === 1)).toBe(true);
    a.release();
    a.release(); // twice: given back once
    expect(pool.kept).toBe(1);
    const c = await readIntoPooled(chunks([Buffer.alloc(500, 3)]), { max: 1 << 20, pool, tooLarge });
    expect(c.bytes.buffer).toBe(a.bytes.buffer);
    expect(c.bytes.length).toBe(500);
    expect(pool.kept).toBe(0);
  });

  it("a body larger than the buffer grows it (no Content-Length); larger than max is refused and the buffer kept", async () => {
    const pool = new PageBuffers(4);
    const big = Buffer.alloc(1_300_000);
    for (let i = 0; i < big.length; i++) big[i] = i % 251;
    const parts = Array.from({ length: 20 }, (_, i) => big.subarray(i * 65_000, (i + 1) * 65_000));
    const page = await readIntoPooled(chunks(parts), { max: 2_000_000, pool, tooLarge });
    expect(page.bytes.equals(big)).toBe(true);
    page.release();
    await expect(readIntoPooled(chunks(parts), { max: 1_000_000, pool, tooLarge })).rejects.toThrow("too large");
    expect(pool.kept).toBeGreaterThanOrEqual(1);
  });

  it("a declared length sizes the first buffer up to 8 MB only; a larger page is read whole and not kept", async () => {
    const pool = new PageBuffers(4);
    const nothing = await readIntoPooled(chunks([Buffer.alloc(100, 5)]), {
      max: 64 << 20,
      declared: 60 << 20,
      pool,
      tooLarge,
    });
    expect(nothing.bytes.buffer.byteLength).toBeLessThanOrEqual(8 << 20);
    nothing.release();
    const huge = Buffer.alloc(9 << 20, 9);
    const page = await readIntoPooled(chunks([huge.subarray(0, 5 << 20), huge.subarray(5 << 20)]), {
      max: 64 << 20,
      pool,
      tooLarge,
    });
    expect(page.bytes.equals(huge)).toBe(true);
    const kept = pool.kept;
    page.release();
    expect(pool.kept).toBe(kept);
  });

  it("keeps at most `keep` free buffers, and none once nothing was taken for the idle time", async () => {
    const pool = new PageBuffers(2, 40);
    const pages = await Promise.all(
      [1, 2, 3].map((n) => readIntoPooled(chunks([Buffer.alloc(10, n)]), { max: 100, pool, tooLarge })),
    );
    for (const p of pages) p.release();
    expect(pool.kept).toBe(2);
    await new Promise((r) => setTimeout(r, 150));
    expect(pool.kept).toBe(0);
  });
});

describe("the Suwayomi client's page read", () => {
  let server: http.Server;
  let base = "";
  const body = Buffer.alloc(700_000);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7) % 256;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/exact") return void res.writeHead(200, { "content-length": body.length }).end(body);
      if (req.url === "/chunked") {
        // No Content-Length: several writes, so the body arrives in pieces.
        res.writeHead(200, { "content-type": "image/jpeg" });
        for (let i = 0; i < body.length; i += 100_000) res.write(body.subarray(i, i + 100_000));
        return void res.end();
      }
      if (req.url === "/declared-too-big") return void res.writeHead(200, { "content-length": 5_000_000 }).end();
      if (req.url === "/cut") {
        res.writeHead(200, { "content-length": body.length });
        res.write(body.subarray(0, 1000));
        return void setTimeout(() => res.destroy(), 20);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = (maxPageBytes: number) => new SuwayomiClient({ baseUrl: base, auth: { kind: "none" }, maxPageBytes });

  it("reads a page with and without Content-Length to its exact bytes", async () => {
    for (const p of ["/exact", "/chunked"]) {
      const page = await client(1_000_000).page(p);
      expect(page.bytes.equals(body)).toBe(true);
      page.release();
    }
  });

  it("refuses a page over the cap, declared or streamed, as not transient", async () => {
    for (const p of ["/declared-too-big", "/chunked"]) {
      const err = await client(500_000)
        .page(p)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).message).toContain("page larger than 500000 bytes");
      expect((err as ProviderError).transient).toBe(false);
    }
  });

  it("a transfer cut short is transient", async () => {
    const err = await client(1_000_000)
      .page("/cut")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).transient).toBe(true);
  });
});
