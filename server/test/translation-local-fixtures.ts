/**
 * A small Japanese source book for the local translation path, rendered by the tests (sharp + a CJK
 * system font) and a "translator" for the fake chat server that knows its phrases. OCR may read a
 * character differently, so a line is matched to the phrase it shares most characters with.
 */
import { makeCbz, renderMangaPage } from "./fakes/manga-pages.ts";

export const PHRASES: readonly [string, string][] = [
  ["どこへ行くの", "Where are you going? I thought that you would stay with us tonight."],
  ["大丈夫ですか", "Are you all right? You do not look well at all today."],
  ["ありがとう", "Thank you so much for everything that you have done for me."],
  ["本当に", "Really? I did not know that it was true."],
];

const overlap = (a: string, b: string) => {
  const chars = new Set([...b]);
  return [...a].filter((c) => chars.has(c)).length / Math.max(1, [...a].length);
};

/** The English of the phrase a line matches best (or a sentence that is plainly English). */
export function dictionaryTranslate(text: string): string {
  const best = [...PHRASES].sort((x, y) => overlap(y[0], text) - overlap(x[0], text))[0]!;
  return overlap(best[0], text) >= 0.5 ? best[1] : "I am not sure what this line says at all.";
}

export const PAGE_SIZE = { width: 720, height: 1000 } as const;

/** Page names and their specs: text on 001 and 003, art only on 002. */
export async function japaneseBook(): Promise<{ cbz: Buffer; pages: { name: string; data: Buffer }[] }> {
  const pages = [
    {
      name: "001.png",
      data: await renderMangaPage({
        ...PAGE_SIZE,
        bubbles: [
          { x: 430, y: 60, width: 220, height: 330, text: ["どこへ", "行くの"], vertical: true, fontSize: 40 },
          { x: 80, y: 420, width: 220, height: 330, text: ["大丈夫", "ですか"], vertical: true, fontSize: 40 },
        ],
      }),
    },
    { name: "002.png", data: await renderMangaPage({ ...PAGE_SIZE }) },
    {
      name: "003.png",
      data: await renderMangaPage({
        ...PAGE_SIZE,
        bubbles: [{ x: 400, y: 80, width: 240, height: 360, text: ["ありがとう"], vertical: true, fontSize: 40 }],
      }),
    },
  ];
  return { cbz: await makeCbz(pages), pages };
}
