/**
 * The demo library written on first start with an empty library: five small series of real CBZ
 * files with real JPEG pages, so that a newcomer sees every series shape (books, chapters, mixed
 * with and without an operator map, webtoon) within a minute. This module only writes files and
 * returns the plan; the service records the plan through its own repositories.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { lstat, mkdir, rename, rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import sharp from "sharp";
import { ZipFile } from "yazl";
import { label, type Label } from "../domain/labels.ts";
import type { FileKind, MapEntryFacts, SeriesStatus } from "../domain/types.ts";

/* ---------------------------------- ComicInfo.xml writer ---------------------------------- */

export type ComicInfoYesNo = "Unknown" | "No" | "Yes";
export type ComicInfoManga = ComicInfoYesNo | "YesAndRightToLeft";
export type ComicInfoAgeRating =
  | "Unknown" | "Adults Only 18+" | "Early Childhood" | "Everyone" | "Everyone 10+" | "G" | "Kids to Adults"
  | "M" | "MA15+" | "Mature 17+" | "PG" | "R18+" | "Rating Pending" | "Teen" | "X18+";
export type ComicPageType =
  | "FrontCover" | "InnerCover" | "Roundup" | "Story" | "Advertisement" | "Editorial" | "Letters" | "Preview"
  | "BackCover" | "Other" | "Deleted";

export interface ComicInfoPage {
  Image: number;
  Type?: ComicPageType | ComicPageType[];
  DoublePage?: boolean;
  ImageSize?: number;
  Key?: string;
  Bookmark?: string;
  ImageWidth?: number;
  ImageHeight?: number;
}

/** ComicInfo v2.1 draft fields; Translator, Tags, StoryArcNumber and GTIN are v2.1-only. */
export interface ComicInfoFields {
  Title?: string; Series?: string; Number?: string; Count?: number; Volume?: number;
  AlternateSeries?: string; AlternateNumber?: string; AlternateCount?: number; Summary?: string; Notes?: string;
  Year?: number; Month?: number; Day?: number; Writer?: string; Penciller?: string; Inker?: string;
  Colorist?: string; Letterer?: string; CoverArtist?: string; Editor?: string; Translator?: string;
  Publisher?: string; Imprint?: string; Genre?: string; Tags?: string; Web?: string; PageCount?: number;
  LanguageISO?: string; Format?: string; BlackAndWhite?: ComicInfoYesNo; Manga?: ComicInfoManga;
  Characters?: string; Teams?: string; Locations?: string; ScanInformation?: string; StoryArc?: string;
  StoryArcNumber?: string; SeriesGroup?: string; AgeRating?: ComicInfoAgeRating; Pages?: ComicInfoPage[];
  CommunityRating?: number; MainCharacterOrTeam?: string; Review?: string; GTIN?: string;
}

/** The XSD's xs:sequence: readers validating the schema reject any other order. */
const COMIC_INFO_ORDER = [
  "Title", "Series", "Number", "Count", "Volume", "AlternateSeries", "AlternateNumber", "AlternateCount",
  "Summary", "Notes", "Year", "Month", "Day", "Writer", "Penciller", "Inker", "Colorist", "Letterer",
  "CoverArtist", "Editor", "Translator", "Publisher", "Imprint", "Genre", "Tags", "Web", "PageCount",
  "LanguageISO", "Format", "BlackAndWhite", "Manga", "Characters", "Teams", "Locations", "ScanInformation",
  "StoryArc", "StoryArcNumber", "SeriesGroup", "AgeRating", "Pages", "CommunityRating", "MainCharacterOrTeam",
  "Review", "GTIN",
] as const satisfies readonly (keyof ComicInfoFields)[];
// Compile-time guard: a field added to the interface but not to the order fails here.
const _allOrdered: Exclude<keyof ComicInfoFields, (typeof COMIC_INFO_ORDER)[number]> extends never ? true : never = true;

const INT_FIELDS = new Set<string>(["Count", "Volume", "AlternateCount", "Year", "Month", "Day", "PageCount"]);

/** Drops characters XML 1.0 cannot carry (control characters, lone surrogates), then escapes. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function xsInt(name: string, v: number, min = -2147483648, max = 2147483647): string {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`ComicInfo ${name} must be an integer, got ${v}`);
  return String(v);
}

function pageXml(p: ComicInfoPage): string {
  const attrs: string[] = [`Image="${xsInt("Page Image", p.Image)}"`];
  if (p.Type !== undefined) attrs.push(`Type="${(Array.isArray(p.Type) ? p.Type : [p.Type]).join(" ")}"`);
  if (p.DoublePage !== undefined) attrs.push(`DoublePage="${p.DoublePage}"`);
  if (p.ImageSize !== undefined) attrs.push(`ImageSize="${xsInt("ImageSize", p.ImageSize, 0, Number.MAX_SAFE_INTEGER)}"`);
  if (p.Key !== undefined) attrs.push(`Key="${escapeXml(p.Key)}"`);
  if (p.Bookmark !== undefined) attrs.push(`Bookmark="${escapeXml(p.Bookmark)}"`);
  if (p.ImageWidth !== undefined) attrs.push(`ImageWidth="${xsInt("ImageWidth", p.ImageWidth)}"`);
  if (p.ImageHeight !== undefined) attrs.push(`ImageHeight="${xsInt("ImageHeight", p.ImageHeight)}"`);
  return `    <Page ${attrs.join(" ")} />`;
}

/** A ComicInfo.xml valid against the v2.1 draft (and v2.0 when no v2.1-only field is set). */
export function comicInfoXml(fields: ComicInfoFields): string {
  const lines = [
    `<?xml version="1.0" encoding="utf-8"?>`,
    `<ComicInfo xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`,
  ];
  for (const key of COMIC_INFO_ORDER) {
    const v = fields[key];
    if (v === undefined || v === null) continue;
    if (key === "Pages") {
      lines.push("  <Pages>", ...(v as ComicInfoPage[]).map(pageXml), "  </Pages>");
    } else if (key === "CommunityRating") {
      const r = v as number;
      if (!(r >= 0 && r <= 5) || Math.round(r * 10) !== r * 10) throw new RangeError(`CommunityRating ${r}: 0–5, one decimal`);
      lines.push(`  <${key}>${r.toFixed(1)}</${key}>`);
    } else {
      const text = INT_FIELDS.has(key) ? xsInt(key, v as number) : escapeXml(String(v));
      lines.push(`  <${key}>${text}</${key}>`);
    }
  }
  lines.push("</ComicInfo>", "");
  return lines.join("\n");
}

/* --------------------------------------- The plan ---------------------------------------- */

export interface DemoFile {
  /** File name inside the series folder. */
  name: string;
  kind: FileKind;
  volume: Label | null;
  chapter: Label | null;
  part: number | null;
  pageCount: number;
  hasComicInfo: boolean;
}

export interface DemoSeries {
  /** Folder directly under the library root (its name is the title). */
  folder: string;
  title: string;
  status: SeriesStatus;
  knownBookCount: number | null;
  webtoon: boolean;
  language: "en";
  volumes: Label[];
  chapters: { number: Label; parts: number; extra: boolean }[];
  operatorMap: MapEntryFacts[] | null;
  /** What was written, for logs and tests; the scan reads the files themselves. */
  files: DemoFile[];
}

export interface DemoPlan {
  series: DemoSeries[];
}

export interface DemoOptions {
  /** Archives built at once; default 2–4 by the machine's parallelism. */
  concurrency?: number;
}

export interface DemoPalette { bg: string; paper: string; ink: string; accent: string; accent2: string }
interface ArchiveSpec { file: DemoFile; heading: string; comicInfo: ComicInfoFields | null }
interface SeriesDef { series: DemoSeries; palette: DemoPalette; archives: ArchiveSpec[]; width: number; height: number }
interface DefInput {
  series: Omit<DemoSeries, "files" | "folder" | "language" | "webtoon"> & { webtoon?: boolean };
  palette: DemoPalette;
  archives: ArchiveSpec[];
  width?: number;
  height?: number;
}

const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const pad = (n: number, w: number): string => String(n).padStart(w, "0");
/** Small deterministic hash, so that the demo is the same on every machine. */
const hash = (s: string): number => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
const chapterPages = (key: string): number => 4 + (hash(key) % 5);
/** "c010.5": three-digit whole part, as release groups name chapters. */
const chapterTag = (l: Label): string => `c${pad(Number(l.split(".")[0]), 3)}${l.includes(".") ? `.${l.split(".")[1]}` : ""}`;
const NOTES = "Demo library generated by the library service on first start; safe to delete.";

function book(title: string, n: number, pages: number, count: number | null, withInfo: boolean): ArchiveSpec {
  const name = `${title} v${pad(n, 2)}.cbz`;
  const file: DemoFile = { name, kind: "book", volume: label(n), chapter: null, part: null, pageCount: pages, hasComicInfo: withInfo };
  // A volume archive writes Volume and leaves Number out (Kavita reads Number as a chapter).
  const info: ComicInfoFields = {
    Series: title, Count: count ?? undefined, Volume: n, Summary: `Volume ${n} of ${title}, a demo series.`, Notes: NOTES,
    Year: 2020 + n, Writer: "Demo Studio", PageCount: pages, LanguageISO: "en", BlackAndWhite: "No", Manga: "YesAndRightToLeft",
    Pages: range(0, pages - 1).map((i) => ({ Image: i, ...(i === 0 ? { Type: "FrontCover" as const } : {}), ImageWidth: 600, ImageHeight: 900 })),
  };
  return { file, heading: `Vol. ${n}`, comicInfo: withInfo ? info : null };
}

function chapter(title: string, l: Label, part: number | null = null, withInfo = false): ArchiveSpec {
  const suffix = part === null ? "" : ` (part ${part})`;
  const pages = chapterPages(`${title}${l}${suffix}`);
  const name = `${title} - ${chapterTag(l)}${suffix}.cbz`;
  const file: DemoFile = { name, kind: "chapter", volume: null, chapter: l, part, pageCount: pages, hasComicInfo: withInfo };
  const info: ComicInfoFields = {
    Title: l === "0" ? "Prologue" : `Chapter ${l}`, Series: title, Number: l, Notes: NOTES, PageCount: pages,
    LanguageISO: "en", Manga: "YesAndRightToLeft",
  };
  return { file, heading: `Ch. ${l}${part === null ? "" : ` · part ${part}`}`, comicInfo: withInfo ? info : null };
}

function seriesDefs(): SeriesDef[] {
  const slot = (n: number | Label, parts = 1) => ({ number: label(n), parts, extra: false });

  const lanterns = "Lanterns of the Salt Road";
  const clock = "The Clockmaker's Apprentice";
  const clockChapters = [...range(0, 10).map(String), "10.5", ...range(11, 24).map(String)].map(label);

  // Finished, 5 books: 1–3 owned as books; book 4 misses chapter 28 (7 of 8 on disk); book 5 is
  // complete, with chapter 36 split in two parts and an optional extra 40.5.
  const harbor = "Harbor of Paper Cranes";
  const harborMap: MapEntryFacts[] = range(1, 5).map((b) => ({ volume: label(b), chapters: range(8 * b - 7, 8 * b).map(label) }));
  harborMap[4]?.chapters.push(label("40.5"));
  const harborFiles = [
    ...range(1, 3).map((n) => book(harbor, n, 10 + (n % 3), 5, n === 1)),
    ...range(25, 40).filter((c) => c !== 28).flatMap((c) => (c === 36 ? [1, 2].map((p) => chapter(harbor, label(c), p)) : [chapter(harbor, label(c))])),
    chapter(harbor, label("40.5")),
  ];

  const moss = "Moss & Meteor";
  const sky = "Skyline Greenhouse";
  const episode = (n: number): ArchiveSpec => ({
    file: { name: `${sky} - Episode ${pad(n, 2)}.cbz`, kind: "chapter", volume: null, chapter: label(n), part: null, pageCount: 3, hasComicInfo: false },
    heading: `Episode ${n}`,
    comicInfo: null,
  });

  const defs: DefInput[] = [
    {
      series: { title: lanterns, status: "finished", knownBookCount: 4, volumes: range(1, 4).map(label), chapters: [], operatorMap: null },
      palette: { bg: "#e9d8b4", paper: "#fffaf0", ink: "#2b2118", accent: "#c8553d", accent2: "#2d6a8f" },
      archives: range(1, 4).map((n) => book(lanterns, n, 10 + (n % 3), 4, n <= 3)),
    },
    {
      series: { title: clock, status: "running", knownBookCount: null, volumes: [], chapters: clockChapters.map((l) => slot(l)), operatorMap: null },
      palette: { bg: "#c9d6df", paper: "#f7f9fb", ink: "#1e2a33", accent: "#b5838d", accent2: "#52796f" },
      archives: clockChapters.map((l, i) => chapter(clock, l, null, i % 4 === 0)),
    },
    {
      series: {
        title: harbor, status: "finished", knownBookCount: 5, volumes: range(1, 5).map(label),
        chapters: [...range(1, 40).map((c) => slot(c, c === 36 ? 2 : 1)), { ...slot("40.5"), extra: true }],
        operatorMap: harborMap,
      },
      palette: { bg: "#f4c7c3", paper: "#fffdf9", ink: "#3a2e39", accent: "#1b998b", accent2: "#f2a541" },
      archives: harborFiles,
    },
    {
      // Books 1–2 and later chapters, no map: which chapters the books hold stays unknown.
      series: { title: moss, status: "paused", knownBookCount: null, volumes: [label(1), label(2)], chapters: range(1, 20).map((c) => slot(c)), operatorMap: null },
      palette: { bg: "#cfe1b9", paper: "#fbfdf7", ink: "#283618", accent: "#bc6c25", accent2: "#606c38" },
      archives: [...[1, 2].map((n) => book(moss, n, 11, null, n === 2)), ...range(13, 20).map((c) => chapter(moss, label(c)))],
    },
    {
      series: { title: sky, status: "running", knownBookCount: null, webtoon: true, volumes: [], chapters: range(1, 12).map((c) => slot(c)), operatorMap: null },
      palette: { bg: "#a2d2ff", paper: "#ffffff", ink: "#22223b", accent: "#ffafcc", accent2: "#4a4e69" },
      archives: range(1, 12).map(episode),
      width: 800,
      height: 2400,
    },
  ];
  return defs.map((d) => ({
    palette: d.palette,
    archives: d.archives,
    width: d.width ?? 600,
    height: d.height ?? 900,
    series: { webtoon: false, ...d.series, language: "en", folder: d.series.title, files: d.archives.map((a) => a.file) },
  }));
}

/* --------------------------------------- Rendering --------------------------------------- */

const FONT = `font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif"`;
/** Panel layouts as fractions of the panel area; pages cycle through them. */
const LAYOUTS: [number, number, number, number][][] = [
  [[0, 0, 1, 0.42], [0, 0.42, 0.5, 0.58], [0.5, 0.42, 0.5, 0.58]],
  [[0, 0, 0.6, 0.5], [0.6, 0, 0.4, 0.5], [0, 0.5, 0.4, 0.5], [0.4, 0.5, 0.6, 0.5]],
  [[0, 0, 1, 0.3], [0, 0.3, 1, 0.4], [0, 0.7, 1, 0.3]],
  [[0, 0, 0.5, 1], [0.5, 0, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]],
];

function text(x: number, y: number, size: number, fill: string, s: string, anchor = "middle", weight = "normal"): string {
  return `<text x="${x}" y="${y}" ${FONT} font-size="${size}" font-weight="${weight}" text-anchor="${anchor}" fill="${fill}">${escapeXml(s)}</text>`;
}

/** Font size that keeps a line inside the width (DejaVu Sans averages ~0.6 em per glyph). */
const fit = (s: string, width: number, max: number): number => Math.max(10, Math.min(max, Math.floor(width / (0.6 * s.length))));

/** A panel with a small scene (sun, hills, a figure), varied by seed; shapes only, no text. */
function panel(x: number, y: number, w: number, h: number, p: DemoPalette, seed: number): string {
  const r = Math.max(8, Math.min(w, h) * (0.12 + (seed % 5) * 0.02));
  const cx = x + w * (0.2 + ((seed >> 3) % 7) * 0.1);
  const hy = y + h * (0.6 + ((seed >> 6) % 3) * 0.08);
  const fx = x + w * (0.3 + ((seed >> 9) % 5) * 0.1);
  return [
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${p.paper}" stroke="${p.ink}" stroke-width="4"/>`,
    `<circle cx="${cx.toFixed(1)}" cy="${(y + h * 0.3).toFixed(1)}" r="${r.toFixed(1)}" fill="${p.accent}" opacity="0.85"/>`,
    `<path d="M${x + 2} ${hy.toFixed(1)} Q${(x + w / 2).toFixed(1)} ${(hy - h * 0.2).toFixed(1)} ${x + w - 2} ${hy.toFixed(1)}` +
      ` L${x + w - 2} ${y + h - 2} L${x + 2} ${y + h - 2} Z" fill="${p.accent2}" opacity="0.7"/>`,
    `<rect x="${(fx - 6).toFixed(1)}" y="${(hy - h * 0.18).toFixed(1)}" width="12" height="${(h * 0.18).toFixed(1)}" rx="5" fill="${p.ink}"/>`,
    `<circle cx="${fx.toFixed(1)}" cy="${(hy - h * 0.2).toFixed(1)}" r="9" fill="${p.ink}"/>`,
  ].join("");
}

export interface DemoPageSpec { title: string; heading: string; page: number; pages: number; width: number; height: number; palette: DemoPalette; strip: boolean }

/** The SVG of one page. Every text is decoration: without fonts the page still reads by its shapes. */
export function pageSvg(s: DemoPageSpec): string {
  const { width: W, height: H, palette: p } = s;
  const seed = hash(`${s.title}|${s.heading}|${s.page}`);
  const parts: string[] = [];
  if (s.strip) {
    parts.push(`<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.bg}"/><stop offset="1" stop-color="${p.accent}"/></linearGradient></defs>`);
    parts.push(`<rect width="${W}" height="${H}" fill="url(#g)"/>`);
    let y = 60;
    if (s.page === 1) {
      parts.push(text(W / 2, 110, fit(s.title, W - 80, 56), p.ink, s.title, "middle", "bold"), text(W / 2, 170, 36, p.ink, s.heading));
      y = 230;
    }
    for (let i = 0; y < H - 200; i++) {
      const h = Math.min(H - 140 - y, 480 + ((seed >> i) % 4) * 90);
      parts.push(panel(60, y, W - 120, h, p, seed >> i));
      y += h + 150; // webtoon gutters are wide: the scroll is the pacing
    }
  } else if (s.page === 1) {
    parts.push(`<rect width="${W}" height="${H}" fill="${p.accent2}"/>`, panel(40, 200, W - 80, H - 360, p, seed));
    parts.push(`<rect x="0" y="40" width="${W}" height="120" fill="${p.bg}"/>`);
    parts.push(text(W / 2, 112, fit(s.title, W - 60, 44), p.ink, s.title, "middle", "bold"), text(W / 2, H - 90, 48, p.paper, s.heading, "middle", "bold"));
  } else {
    parts.push(`<rect width="${W}" height="${H}" fill="${p.bg}"/>`);
    parts.push(text(30, 56, fit(s.title, W * 0.62, 26), p.ink, s.title, "start"), text(W - 30, 56, 24, p.ink, s.heading, "end", "bold"));
    const layout = LAYOUTS[(s.page - 2) % LAYOUTS.length] ?? [];
    const [ax, ay, aw, ah, gap] = [30, 80, W - 60, H - 170, 14];
    layout.forEach(([fx, fy, fw, fh], i) =>
      parts.push(panel(ax + fx * aw + gap / 2, ay + fy * ah + gap / 2, fw * aw - gap, fh * ah - gap, p, seed >> i)),
    );
  }
  // Reading progress as a bar: the page position shows even when no font is installed.
  const barW = W - 60;
  parts.push(`<rect x="30" y="${H - 36}" width="${barW}" height="10" fill="${p.ink}" opacity="0.25"/>`);
  parts.push(`<rect x="30" y="${H - 36}" width="${((barW * s.page) / s.pages).toFixed(1)}" height="10" fill="${p.ink}"/>`);
  parts.push(text(W - 30, H - 46, 18, p.ink, `${s.page} / ${s.pages}`, "end"));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${parts.join("")}</svg>`;
}

export async function renderPage(s: DemoPageSpec): Promise<Buffer> {
  // Every page paints an opaque background, so dropping alpha is exact and cheaper than flatten;
  // Huffman optimisation would cost a third of the encode for a few percent of size.
  return sharp(Buffer.from(pageSvg(s))).removeAlpha().jpeg({ quality: 70, optimiseCoding: false }).toBuffer();
}

/* ---------------------------------------- Writing ---------------------------------------- */

/** Fixed timestamps keep the archives byte-identical from run to run. */
const ENTRY_MTIME = new Date(Date.UTC(2024, 0, 1));

async function writeArchive(dir: string, def: SeriesDef, a: ArchiveSpec): Promise<void> {
  const zip = new ZipFile();
  if (a.comicInfo) zip.addBuffer(Buffer.from(comicInfoXml(a.comicInfo)), "ComicInfo.xml", { mtime: ENTRY_MTIME, compress: true });
  for (let page = 1; page <= a.file.pageCount; page++) {
    const jpeg = await renderPage({
      title: def.series.title, heading: a.heading, page, pages: a.file.pageCount,
      width: def.width, height: def.height, palette: def.palette, strip: def.series.webtoon,
    });
    // JPEG does not deflate: stored entries keep the archive cheap to write and to read.
    zip.addBuffer(jpeg, `${pad(page, 3)}.jpg`, { mtime: ENTRY_MTIME, compress: false });
  }
  zip.end();
  // A dot-file with a .tmp suffix: a scan running meanwhile never takes it for an archive.
  const tmp = join(dir, `.${a.file.name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await pipeline(zip.outputStream, createWriteStream(tmp, { flags: "wx" }));
    await rename(tmp, join(dir, a.file.name));
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Runs fn over items, limit at a time; after a failure no new item starts and the first error is thrown. */
async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (errors.length === 0 && next < items.length) {
      await fn(items[next++] as T).catch((e: unknown) => void errors.push(e));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (errors.length > 0) throw errors[0];
}

/**
 * Writes the demo series under libraryRoot and returns what the service must record. Refuses
 * when a series folder already exists: the demo never writes over an operator's files.
 */
export async function generateDemoLibrary(libraryRoot: string, options: DemoOptions = {}): Promise<DemoPlan> {
  const defs = seriesDefs();
  await mkdir(libraryRoot, { recursive: true });
  for (const d of defs) {
    const exists = await lstat(join(libraryRoot, d.series.folder)).then(() => true, () => false);
    if (exists) throw new Error(`demo library: "${d.series.folder}" already exists in ${libraryRoot}`);
  }
  for (const d of defs) await mkdir(join(libraryRoot, d.series.folder));
  const jobs = defs.flatMap((d) => d.archives.map((a) => ({ d, a })));
  // Biggest archives first, so no long archive starts last and stretches the total.
  jobs.sort((x, y) => y.a.file.pageCount * y.d.height - x.a.file.pageCount * x.d.height);
  const concurrency = options.concurrency ?? Math.max(2, Math.min(4, availableParallelism()));
  await mapLimit(jobs, concurrency, ({ d, a }) => writeArchive(join(libraryRoot, d.series.folder), d, a));
  return { series: defs.map((d) => d.series) };
}
