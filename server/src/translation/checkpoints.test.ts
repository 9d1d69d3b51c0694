import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RegionResult } from "../domain/translation-validation.ts";
import { identityHash, openCheckpoints, type CheckpointIdentity } from "./checkpoints.ts";

const ID: CheckpointIdentity = {
  sourceSha256: "b".repeat(64),
  sourceLanguage: "ja",
  targetLanguage: "en",
  aiBaseUrl: "http://127.0.0.1:1/v1",
  model: "m",
  ocrSettings: "o1",
  renderSettings: "r1",
};
const region = {
  box: { x: 1, y: 2, width: 3, height: 4 },
  kind: "bubble" as const,
  vertical: true,
  confidence: 91,
  source: "どこ",
  translation: "Where?",
  result: { verdict: "passed", evidence: { sourceScript: "japanese", translationScript: "latin" } } as RegionResult,
};

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "checkpoints-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("page checkpoints", () => {
  it("round-trip a page: image and record, no temporaries left", async () => {
    const cp = await openCheckpoints(root, ID);
    await cp.write({ index: 0, name: "001.png", model: "m", regions: [region] }, Buffer.from("image-bytes"));
    const again = await openCheckpoints(root, ID);
    const got = await again.read(0, "001.png");
    expect(got?.image.toString()).toBe("image-bytes");
    expect(got?.record).toMatchObject({ version: 1, index: 0, name: "001.png", model: "m", regions: [region] });
    // The image is immutable and named by its hash; the record is the page's.
    expect((await readdir(cp.dir)).sort()).toEqual([`${got!.record.imageSha256}.img`, "page-0001.json"]);
  });

  it("a changed identity (model, endpoint, languages, source, settings) finds nothing and removes the stale pages", async () => {
    const cp = await openCheckpoints(root, ID);
    await cp.write({ index: 0, name: "001.png", model: "m", regions: [] }, Buffer.from("x"));
    for (const change of [
      { model: "m2" },
      { aiBaseUrl: "http://other/v1" },
      { targetLanguage: "fr" },
      { sourceSha256: "c".repeat(64) },
      { ocrSettings: "o2" },
      { renderSettings: "r2" },
    ]) {
      expect(identityHash({ ...ID, ...change })).not.toBe(identityHash(ID));
    }
    const other = await openCheckpoints(root, { ...ID, model: "m2" });
    expect(await other.read(0, "001.png")).toBeNull();
    expect(await readdir(root)).toEqual([path.basename(other.dir)]);
    // A trailing slash on the endpoint is the same endpoint.
    expect(identityHash({ ...ID, aiBaseUrl: "http://127.0.0.1:1/v1/" })).toBe(identityHash(ID));
  });

  it("corrupt checkpoints are dropped so the page is regenerated", async () => {
    const cp = await openCheckpoints(root, ID);
    const one = await cp.write({ index: 0, name: "001.png", model: "m", regions: [] }, Buffer.from("one"));
    await cp.write({ index: 1, name: "002.png", model: "m", regions: [] }, Buffer.from("two"));
    const three = await cp.write({ index: 2, name: "003.png", model: "m", regions: [] }, Buffer.from("three"));
    await writeFile(cp.imagePath(one), "tampered");
    await writeFile(path.join(cp.dir, "page-0002.json"), "{ not json");
    expect(await cp.read(0, "001.png")).toBeNull();
    expect(await cp.read(1, "002.png")).toBeNull();
    expect(await cp.read(2, "other-name.png")).toBeNull(); // another source page layout
    const left = await readdir(cp.dir);
    expect(left.filter((n) => n.endsWith(".json"))).toEqual([]);
    expect(left).not.toContain(path.basename(cp.imagePath(one))); // the damaged image is gone too
    expect(left).toContain(path.basename(cp.imagePath(three))); // an intact image stays until a page rewrites it
  });

  it("record which pool decides the page's language, and forget a page on request", async () => {
    const cp = await openCheckpoints(root, ID);
    const language = {
      pool: "book" as const,
      target: { verdict: "undetermined" as const, reason: "too_short" as const, letters: 6, best: null },
    };
    await cp.write({ index: 0, name: "001.png", model: "m", regions: [region], language }, Buffer.from("x"));
    await cp.write({ index: 1, name: "002.png", model: "m", regions: [] }, Buffer.from("x"));
    expect((await cp.read(0, "001.png"))?.record.language).toEqual(language);
    await cp.remove(0);
    expect(await cp.read(0, "001.png")).toBeNull();
    // The other page keeps its record and the shared hash-named image.
    expect((await cp.read(1, "002.png"))?.image.toString()).toBe("x");
  });

  it("hold no credential: only the identity's hash names the folder", async () => {
    const cp = await openCheckpoints(root, ID);
    await cp.write({ index: 0, name: "001.png", model: "m", regions: [region] }, Buffer.from("x"));
    const json = await readFile(path.join(cp.dir, "page-0001.json"), "utf8");
    expect(json).not.toContain("127.0.0.1");
    expect(Object.keys(JSON.parse(json) as object).sort()).toEqual([
      "imageSha256",
      "index",
      "model",
      "name",
      "regions",
      "version",
    ]);
  });
});
