/**
 * Ordinary short comic pages for the translation tests, rendered with sharp and system fonts: one
 * or two bubbles a page holding a short line or two, in French and Spanish (DejaVu Sans Bold
 * capitals, as comics are lettered) and Japanese (Noto Sans CJK, vertical). One French page is a
 * JPEG stored sideways with an EXIF orientation tag, another has its bubble cut by the page border.
 * A "translator" for the fake chat server that knows the books' lines (OCR may misread a letter,
 * so a line is matched to the one it shares most characters with), and can answer wrongly on
 * purpose.
 */
import sharp from "sharp";
import { makeCbz, renderMangaPage, type BubbleSpec } from "./fakes/manga-pages.ts";

export interface ShortBook {
  language: "fr" | "es" | "ja";
  pages: { name: string; data: Buffer }[];
  cbz: Buffer;
}

/** Source lines (one bubble each) and their English. */
export const LINES: Readonly<Record<ShortBook["language"], readonly (readonly [string[], string])[]>> = {
  fr: [
    [["BONJOUR MON AMI !", "TU VAS BIEN ?"], "Hello, my friend! Are you okay?"],
    [["JE SUIS EN RETARD,", "ATTENDS-MOI ICI."], "I'm late, wait for me here."],
    [["MERCI BEAUCOUP", "POUR TON AIDE."], "Thanks a lot!"],
  ],
  es: [
    [["¡HOLA, AMIGO MÍO!", "¿ESTÁS BIEN?"], "Hello, my friend! Are you okay?"],
    [["¡LLEGO TARDE!", "ESPÉRAME AQUÍ."], "I'm late, wait for me here."],
    [["MUCHAS GRACIAS", "POR TU AYUDA."], "Thanks a lot!"],
  ],
  ja: [
    [["どこへ", "行くの"], "Where are you going?"],
    [["大丈夫", "ですか"], "Are you all right?"],
    [["ありがとう"], "Thank you!"],
  ],
};

/** The Japanese of the French lines (a destination in kana and kanji). */
export const JAPANESE_OF_FRENCH = ["こんにちは、友よ！元気？", "遅刻だ、ここで待ってて。", "本当にありがとう！"];

/** The same three pages answered in German: short, confidently not English once pooled. */
export const GERMAN = ["Hallo, Freund!", "Ich bin spät!", "Vielen Dank!"];

const SIZE = { width: 720, height: 1000 } as const;
/** Where the Japanese bubbles sit (vertical columns read right to left). */
const JAPANESE_BUBBLES = [
  { x: 430, y: 60, width: 220, height: 330 },
  { x: 80, y: 420, width: 220, height: 330 },
  { x: 400, y: 80, width: 240, height: 360 },
];

/** A page stored sideways: pixels turned a quarter, EXIF orientation 6 telling readers to turn them back. */
export async function sideways(page: Buffer): Promise<Buffer> {
  return sharp(page).rotate(270).withMetadata({ orientation: 6 }).jpeg({ quality: 92 }).toBuffer();
}

function latinBubble(text: string[], where: "middle" | "border" | "top"): BubbleSpec {
  const common = { text, bold: true, fontSize: 34 };
  if (where === "border") return { x: -70, y: 380, width: 520, height: 280, ...common };
  if (where === "top") return { x: 120, y: 90, width: 480, height: 280, ...common };
  return { x: 110, y: 360, width: 500, height: 290, ...common };
}

/** A three-page book of `language` (pages 001.png, 002.jpg sideways for French, 003.png). */
export async function shortBook(language: ShortBook["language"]): Promise<ShortBook> {
  const lines = LINES[language];
  const pages: { name: string; data: Buffer }[] = [];
  for (const [i, [text]] of lines.entries()) {
    const bubbles: BubbleSpec[] =
      language === "ja"
        ? [{ ...JAPANESE_BUBBLES[i]!, text, vertical: true, fontSize: 40 }]
        : [latinBubble(text, i === 2 && language === "fr" ? "border" : i === 0 ? "top" : "middle")];
    const png = await renderMangaPage({ ...SIZE, background: i === 1 ? "white" : "art", bubbles });
    if (language === "fr" && i === 1) pages.push({ name: "002.jpg", data: await sideways(png) });
    else pages.push({ name: `00${i + 1}.png`, data: png });
  }
  return { language, pages, cbz: await makeCbz(pages) };
}

/** Pairs of neighbouring characters (spaces left out). */
const bigrams = (s: string) => {
  const c = [...s.replace(/\s/g, "")];
  return c.slice(1).map((x, i) => `${c[i]}${x}`);
};
/** The share of `a`'s character pairs found in `b`. */
const overlap = (a: string, b: string) => {
  const theirs = new Set(bigrams(b));
  const own = bigrams(a);
  return own.filter((g) => theirs.has(g)).length / Math.max(1, own.length);
};

/** How the fake provider answers a region. */
export type Answering = "translate" | "german" | "echo";

/** The English or Japanese (or, on purpose, German or the source itself) of an OCR line of the books. */
export function shortTranslate(text: string, answering: Answering = "translate", target = "en"): string {
  if (answering === "echo") return text;
  const all = Object.values(LINES).flatMap((lines) => lines.map(([source, english], i) => ({ source, english, i })));
  const score = (l: { source: string[] }) => overlap(l.source.join(""), text);
  const best = [...all].sort((x, y) => score(y) - score(x))[0]!;
  if (score(best) < 0.5) return "I am not sure what this line says.";
  if (answering === "german") return GERMAN[best.i]!;
  return target === "ja" ? JAPANESE_OF_FRENCH[best.i]! : best.english;
}
