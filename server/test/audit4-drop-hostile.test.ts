/**
 * Hostile input in the drop folder, probed from outside (an empty service, the public REST API): a
 * zip bomb, an entry leaving the archive, a chapter that is a symbolic link, an archive or folder
 * holding a page that is no image, a folder holding an image over the pixel limit. None of them
 * reaches the library; each that never opens is named in the work's problems with the reader's code,
 * each that is listed fails with a stable code; the good chapter beside them
 * arrives; the drop folder is left as it was (nothing moved, changed or deleted, nothing extracted).
 */
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { crc32 } from "node:zlib";
import { ZipFile } from "yazl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, zipBuffer, type RestUnits } from "./fixtures.ts";
import { drawnChapter } from "./fakes/suwayomi-server.ts";
import { folderSnapshot } from "./drop-folder-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

interface RestDownload {
  chapter: string | null;
  state: string;
  error: string | null;
}

/** A deflated zip (one entry of zeros: a ratio far over the reader's limit). */
async function bomb(): Promise<Buffer> {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.alloc(24 * 1024 ** 2), "001.jpg", { compress: true });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** A PNG whose header declares 60000 × 60000 pixels (its data is a few bytes). */
function hugePng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(60000, 0);
  ihdr.writeUInt32BE(60000, 4);
  ihdr.writeUInt8(8, 8);
  ihdr.writeUInt8(2, 9);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("hostile input in the drop folder", () => {
  let app: TestApp;
  const title = "Harrow Point";
  beforeAll(async () => {
    app = await createTestApp({ env: { ...FAST_ENV } });
  });
  afterAll(async () => {
    await app?.dispose();
  });

  it("is refused with a code, nothing of it published; the good chapter arrives; the drop folder is untouched", async () => {
    const work = path.join(app.config.dropFolder, title);
    const outside = path.join(app.dir, "outside");
    await mkdir(work, { recursive: true });
    await mkdir(outside, { recursive: true });
    const pages = (await drawnChapter(5, 1)).map((p) => p.bytes);
    const good = (names: string[], extra: { name: string; data: Buffer }[] = []) =>
      zipBuffer([...names.map((name, i) => ({ name, data: pages[i % pages.length]! })), ...extra]);
    await writeFile(path.join(work, `${title} c001.cbz`), await good(["001.jpg", "002.jpg", "003.jpg", "004.jpg"]));
    await writeFile(path.join(work, `${title} c002.cbz`), await bomb());
    // The zip writer refuses "../" names: the name is patched in place (local header and directory).
    const traversal = await good(["001.jpg", "002.jpg", "003.jpg"], [{ name: "QQ/QQ/escape.jpg", data: pages[0]! }]);
    await writeFile(
      path.join(work, `${title} c003.cbz`),
      Buffer.from(traversal.toString("latin1").replaceAll("QQ/QQ/", "../../"), "latin1"),
    );
    await writeFile(path.join(outside, "c004.cbz"), await good(["001.jpg", "002.jpg", "003.jpg", "004.jpg"]));
    await symlink(path.join(outside, "c004.cbz"), path.join(work, `${title} c004.cbz`));
    await writeFile(
      path.join(work, `${title} c005.cbz`),
      await good(["001.jpg", "002.jpg", "003.jpg"], [{ name: "004.jpg", data: Buffer.from("#!/bin/sh\necho hi\n") }]),
    );
    const notImage = path.join(work, `${title} c006`);
    await mkdir(notImage);
    for (const [i, p] of pages.slice(0, 3).entries()) await writeFile(path.join(notImage, `00${i + 1}.jpg`), p);
    await writeFile(path.join(notImage, "004.jpg"), "not an image at all");
    const huge = path.join(work, `${title} c007`);
    await mkdir(huge);
    for (const [i, p] of pages.slice(0, 3).entries()) await writeFile(path.join(huge, `00${i + 1}.jpg`), p);
    await writeFile(path.join(huge, "004.png"), hugePng());
    const before = await folderSnapshot(app.config.dropFolder);

    const s = await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title } }), 201);
    const linked = await expectJson<{ mapping: { id: number }; refresh: { status: string; offers: number } }>(
      await app.api(`/api/manga/${s.id}/sources`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: title, language: "en" },
      }),
      201,
    );
    expect(linked.refresh.status).toBe("ok");
    // What never opens is named with the reader's code, never silently dropped.
    const problems = await expectJson<{ problems: { name: string; code: string }[] }>(
      await app.api(`/api/manga/${s.id}/sources/${linked.mapping.id}/problems`),
      200,
    );
    expect(problems.problems.map((p) => [p.name, p.code])).toEqual([
      [`${title} c002.cbz`, "archive_ratio_exceeded"],
      [`${title} c003.cbz`, "archive_entry_unsafe"],
      [`${title} c004.cbz`, "symbolic_link"],
    ]);
    const rows = await until(
      "downloads settled",
      async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${s.id}/downloads`), 200),
      (r) => r.length > 0 && r.every((d) => ["published", "degraded", "failed", "cancelled"].includes(d.state)),
      60_000,
    );
    const outcome = Object.fromEntries(
      rows.map((r) => [r.chapter, `${r.state}${r.error ? ` ${r.error.split(":")[0]}` : ""}`]),
    );
    // The bomb, the escaping entry and the link never open: they are not offered at all. A page
    // that is no image, or too large, fails its download with the image check's code, from an
    // archive as from a folder.
    expect(outcome).toEqual({
      "1": "published",
      "5": "failed image_unreadable",
      "6": "failed image_unreadable",
      "7": "failed image_too_large",
    });
    const u = await expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
    expect(u.units.filter((x) => x.owned).map((x) => x.number)).toEqual(["1"]);
    expect(await folderSnapshot(app.config.dropFolder)).toEqual(before);
    expect(await readdir(app.dir)).not.toContain("escape.jpg");
  });
});
