/**
 * The chapter CBZ written as pages arrive (`StreamingCbz`): a page's `put` resolves only once that
 * page is written (its bytes may then be reused), pages arriving in any order are written in
 * reading order, and a failure or an early close settles every waiting page.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAGING_FOLDER } from "../src/config.ts";
import { openArchive } from "../src/library/archive-reader.ts";
import { StreamingCbz } from "../src/services/acquisition/download-packaging.ts";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "mls-streaming-cbz-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let n = 0;
const staged = () => path.join(dir, STAGING_FOLDER, `c${++n}`, "chapter.cbz");
/** Distinct bytes per page (not an image: the archive writer does not look inside). */
const pageBytes = (i: number) => Buffer.alloc(1000 + i * 37, i);

describe("StreamingCbz", () => {
  it("a page after a missing one is not written (its put waits) until the missing one comes", async () => {
    const cbz = await StreamingCbz.create(staged(), 3);
    let secondDone = false;
    const second = cbz.put(2, pageBytes(2), "image/jpeg").then(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(secondDone).toBe(false);
    await cbz.put(1, pageBytes(1), "image/jpeg");
    await second;
    expect(secondDone).toBe(true);
    await cbz.put(3, pageBytes(3), "image/jpeg");
    await cbz.finish("<ComicInfo/>");
  });

  it("any arrival order: pages in reading order, each with its own bytes though every buffer is overwritten once its put resolved", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 12 })
          .chain((count) =>
            fc.tuple(fc.constant(count), fc.shuffledSubarray([...Array(count).keys()], { minLength: count })),
          ),
        async ([count, order]) => {
          const file = staged();
          const cbz = await StreamingCbz.create(file, count);
          await Promise.all(
            order.map(async (i, k) => {
              await new Promise((r) => setTimeout(r, k % 3));
              const bytes = Buffer.from(pageBytes(i + 1));
              await cbz.put(i + 1, bytes, "image/jpeg");
              bytes.fill(0xee); // the buffer goes to another page: the archive must not see it
            }),
          );
          await cbz.finish("<ComicInfo/>");
          const archive = await openArchive(file);
          try {
            expect(archive.pages.map((p) => p.size)).toEqual(
              Array.from({ length: count }, (_, i) => pageBytes(i + 1).length),
            );
            for (let i = 0; i < count; i++) {
              const read = await archive.readEntry(archive.pages[i]!.name);
              expect(read.equals(pageBytes(i + 1))).toBe(true);
            }
          } finally {
            await archive.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("closed before a missing page came: the waiting pages are refused and finish says what is missing", async () => {
    const cbz = await StreamingCbz.create(staged(), 3);
    const refused = expect(cbz.put(3, pageBytes(3), "image/jpeg")).rejects.toThrow(
      "closed before this page was written",
    );
    await cbz.put(1, pageBytes(1), "image/jpeg");
    await cbz.close();
    await refused;
    await expect(cbz.finish("<ComicInfo/>")).rejects.toThrow();
  });

  it("a failed write refuses that page, the pages waiting, and every later one", async () => {
    const cbz = await StreamingCbz.create(staged(), 4);
    const third = expect(cbz.put(3, pageBytes(3), "image/jpeg")).rejects.toThrow();
    // The file closed underneath: the next write fails.
    await (cbz as unknown as { file: { close(): Promise<void> } }).file.close();
    await expect(cbz.put(1, pageBytes(1), "image/jpeg")).rejects.toThrow();
    await third;
    await expect(cbz.put(2, pageBytes(2), "image/jpeg")).rejects.toThrow();
    await expect(cbz.finish("<ComicInfo/>")).rejects.toThrow();
  });
});
