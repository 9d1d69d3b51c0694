/** CBZ files for the benchmarks, written with yazl: pages stored, not deflated, as CBZ tools do for JPEG. */
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { ZipFile } from "yazl";

export const pageName = (i: number) => `page${String(i + 1).padStart(3, "0")}.jpg`;

export async function writeCbz(file: string, pages: readonly Buffer[]): Promise<void> {
  const zip = new ZipFile();
  pages.forEach((p, i) => zip.addBuffer(p, pageName(i), { compress: false, mtime: new Date(0) }));
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}
