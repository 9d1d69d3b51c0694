import sharp from "sharp";
import { renderPage } from "../src/library/demo.ts";
import { pageRasters } from "../src/library/page-signatures.ts";
const palette = { bg: "#cfe1b9", paper: "#fbfdf7", ink: "#283618", accent: "#bc6c25", accent2: "#606c38" };
const pages: Buffer[] = [];
for (let c = 1; c <= 4; c++) for (let p = 1; p <= 6; p++)
  pages.push(await renderPage({ title: "Moss & Meteor", heading: `Ch. ${c}`, page: p, pages: 6, width: 600, height: 900, palette, strip: false }));
async function variant(b: Buffer, kind: string) {
  const s = sharp(b);
  if (kind === "q") return s.jpeg({ quality: 40 }).toBuffer();
  if (kind === "crop") return s.extract({ left: 12, top: 18, width: 576, height: 864 }).resize(600, 900, { fit: "fill" }).jpeg({ quality: 55 }).toBuffer();
  if (kind === "crop4") return s.extract({ left: 24, top: 36, width: 552, height: 828 }).jpeg({ quality: 55 }).toBuffer();
  if (kind === "small") return s.resize(300).webp({ quality: 50 }).toBuffer();
  return b;
}
const N = 32, B = 2, D = 36;
function bits(grey: Uint8Array, K: number): number[] {
  const px = new Float64Array(N * N);
  for (let y = 0; y < N; y++) for (let x = 0; x < N; x++) px[y * N + x] = grey[(y + B) * D + x + B]!;
  const cos = (u: number, x: number) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N));
  const c: number[] = [];
  for (let u = 0; u < K; u++) for (let v = 0; v < K; v++) {
    if (u === 0 && v === 0) continue;
    let a = 0;
    for (let y = 0; y < N; y++) for (let x = 0; x < N; x++) a += px[y * N + x]! * cos(u, y) * cos(v, x);
    c.push(a);
  }
  const m = [...c].sort((a, b) => a - b)[c.length >> 1]!;
  return c.map((x) => (x > m ? 1 : 0));
}
function dh(grey: Uint8Array): number[] {
  // gradient over the inner 32x32 → 16 cols x 16 rows averaged 2x2 → horizontal diffs
  const out: number[] = [];
  const g = (x: number, y: number) => grey[(y + B) * D + x + B]!;
  const cell = (cx: number, cy: number) => g(2 * cx, 2 * cy) + g(2 * cx + 1, 2 * cy) + g(2 * cx, 2 * cy + 1) + g(2 * cx + 1, 2 * cy + 1);
  for (let y = 0; y < 16; y++) for (let x = 0; x < 15; x++) out.push(cell(x + 1, y) > cell(x, y) ? 1 : 0);
  for (let x = 0; x < 16; x++) for (let y = 0; y < 15; y++) out.push(cell(x, y + 1) > cell(x, y) ? 1 : 0);
  return out;
}
const ham = (a: number[], b: number[]) => a.reduce((s, x, i) => s + (x !== b[i] ? 1 : 0), 0) / a.length;
const rast = async (b: Buffer) => (await pageRasters(b))[0]!;
const base = await Promise.all(pages.map(rast));
for (const [name, f] of [["dct8", (g: Uint8Array) => bits(g, 8)], ["dct12", (g: Uint8Array) => bits(g, 12)], ["dct16", (g: Uint8Array) => bits(g, 16)], ["grad", dh]] as const) {
  const hb = base.map(f);
  for (const kind of ["q", "crop", "crop4", "small"]) {
    const v = (await Promise.all(pages.map(async (p) => rast(await variant(p, kind))))).map(f);
    const same = hb.map((b, i) => ham(b, v[i]!));
    const diff: number[] = [];
    for (let i = 0; i < hb.length; i++) for (let j = 0; j < hb.length; j++) if (i !== j) diff.push(ham(hb[i]!, v[j]!));
    diff.sort((a, b) => a - b);
    console.log(name, kind, "same max", Math.max(...same).toFixed(3), "| diff min", diff[0]!.toFixed(3), "p1", diff[Math.floor(diff.length * 0.01)]!.toFixed(3), "p5", diff[Math.floor(diff.length * 0.05)]!.toFixed(3));
  }
}
{
  const hb = base.map((g) => bits(g, 8));
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < hb.length; i++) for (let j = i + 1; j < hb.length; j++) pairs.push([ham(hb[i]!, hb[j]!), i, j]);
  pairs.sort((a, b) => a[0] - b[0]);
  console.log(pairs.slice(0, 8).map(([d, i, j]) => `${d.toFixed(3)} c${Math.floor(i / 6) + 1}p${(i % 6) + 1}~c${Math.floor(j / 6) + 1}p${(j % 6) + 1}`).join("  "));
}
