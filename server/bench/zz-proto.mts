import sharp from "sharp";
import { renderPage } from "../src/library/demo.ts";
import { pageSignatures } from "../src/library/page-signatures.ts";
import { hamming, hashWords } from "../src/domain/page-signature.ts";
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
  if (kind === "png") return s.resize(1200).png().toBuffer();
  return b;
}
const base = await Promise.all(pages.map(async (p, i) => (await pageSignatures(p, i + 1))[0]!));
for (const kind of ["q", "crop", "crop4", "small", "png"]) {
  const v = await Promise.all(pages.map(async (p, i) => (await pageSignatures(await variant(p, kind), i + 1))[0]!));
  const same = base.map((b, i) => hamming(hashWords(b.hash), hashWords(v[i]!.hash)));
  const diff: number[] = [];
  for (let i = 0; i < base.length; i++) for (let j = 0; j < base.length; j++) if (i !== j) diff.push(hamming(hashWords(base[i]!.hash), hashWords(v[j]!.hash)));
  diff.sort((a, b) => a - b);
  console.log(kind, "same max", Math.max(...same), "same", same.join(","), "| diff min", diff[0], "p1", diff[Math.floor(diff.length * 0.01)], "p5", diff[Math.floor(diff.length * 0.05)], "median", diff[diff.length >> 1]);
}
console.log(base.map((b) => `${b.page}:${b.mean.toFixed(0)}/${b.stdev.toFixed(0)}`).join(" "));
