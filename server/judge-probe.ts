import sharp from "sharp";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
const pages = Array.from({ length: 32 }, (_, i) => readFileSync(`/tmp/jp/${i}.jpg`));
async function time(name: string, fn: (b: Buffer) => Promise<unknown>, conc = 1) {
  const c0 = process.cpuUsage();
  const t = performance.now();
  let i = 0;
  const N = 96;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (i < N) await fn(pages[i++ % 32]!);
    }),
  );
  const ms = performance.now() - t;
  const cu = process.cpuUsage(c0);
  console.log(
    name,
    "conc",
    conc,
    (ms / N).toFixed(2),
    "ms/page wall",
    ((cu.user + cu.system) / 1000 / N).toFixed(2),
    "ms cpu/page",
  );
}
const f = (b: Buffer) =>
  sharp(b).resize(32, 32, { fit: "inside", fastShrinkOnLoad: true }).greyscale().raw().toBuffer();
await time("w", f, 1);
await time("a", f, 1);
await time("b", f, 2);
await time("c", f, 4);
