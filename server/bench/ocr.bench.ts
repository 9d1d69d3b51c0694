/**
 * `pnpm bench ocr`: local OCR (server/src/translation/ocr.ts, a warm tesseract.js worker per model)
 * in seconds per page, against the native `tesseract` CLI reading the same crop files in the same
 * run, interleaved rounds, OMP_THREAD_LIMIT=1 for both (tesseract.js is single-threaded wasm).
 * Goal: ours ≤ 1.2× the native time per page.
 *
 * The judged native side reads ALL crops of one model in ONE invocation through a list file
 * (`tesseract list.txt - -l jpn_vert --psm 5 --dpi 300 --oem 1`): like a warm worker it loads its
 * model once, so the comparison is recognition against recognition (the strictest native figure).
 * Information: one CLI process per page and model, one per crop, worker start, and the region
 * finding + cropping that precede OCR on our side.
 *
 * Pages: rendered by test/fakes/manga-pages.ts (Japanese vertical bubbles + captions, English
 * bubbles + captions); crops by translation/page-image.ts, exactly as the local path makes them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { cjkFont, renderMangaPage, type MangaPageSpec } from "../test/fakes/manga-pages.ts";
import { createOcrPool, normaliseOcrText } from "../src/translation/ocr.ts";
import { cropGrayForOcr, decodeGray, findRegions } from "../src/translation/page-image.ts";
import { resolveModels, type ResolvedModel } from "../src/translation/tessdata.ts";
import {
  fail,
  intEnv,
  machineLine,
  median,
  printTable,
  requireTools,
  runBench,
  timeCommand,
  toolVersion,
  type Goal,
} from "./harness.ts";

process.env.OMP_THREAD_LIMIT = "1"; // inherited by every tesseract child process
const ROUNDS = intEnv("BENCH_OCR_ROUNDS", 5);
const GOAL = 1.2;

function pageSpecs(): { language: string; spec: MangaPageSpec }[] {
  const cjk = cjkFont();
  const ja = (a: string[], b: string[], c: string): MangaPageSpec => ({
    width: 1000,
    height: 1400,
    bubbles: [
      { x: 620, y: 60, width: 300, height: 460, text: a, vertical: true },
      { x: 120, y: 360, width: 300, height: 460, text: b, vertical: true },
      { x: 600, y: 760, width: 300, height: 420, text: ["大丈夫ですか"], vertical: true },
    ],
    captions: [{ x: 60, y: 1220, width: 440, height: 90, text: c, font: cjk, fontSize: 30 }],
  });
  const en = (a: string[], b: string[], c: string): MangaPageSpec => ({
    width: 1000,
    height: 1400,
    captions: [{ x: 40, y: 40, width: 460, height: 90, text: c }],
    bubbles: [
      { x: 560, y: 160, width: 400, height: 240, text: a },
      { x: 60, y: 560, width: 440, height: 260, text: b },
      { x: 520, y: 980, width: 420, height: 240, text: ["Thank you.", "Really."] },
    ],
  });
  return [
    { language: "ja", spec: ja(["どこへ行くの", "ありがとう"], ["また明日ね", "待って"], "次の日の朝") },
    { language: "ja", spec: ja(["ここはどこ", "静かだね"], ["早く来て", "遅いよ"], "三日後") },
    {
      language: "en",
      spec: en(["WHERE ARE", "YOU GOING?"], ["We have to find", "my brother now."], "Meanwhile, in Tokyo"),
    },
    {
      language: "en",
      spec: en(["WAIT FOR ME!", "DON'T LEAVE!"], ["The door was", "already open."], "The next morning"),
    },
  ];
}

interface Crop {
  file: string;
  data: Buffer;
  model: ResolvedModel;
  vertical: boolean;
}
interface Page {
  language: string;
  crops: Crop[];
  prepMs: number;
}

const psm = (vertical: boolean) => (vertical ? "5" : "6");
const cliArgs = (input: string, c: Pick<Crop, "model" | "vertical">) => [
  input,
  "-",
  "--tessdata-dir",
  c.model.langPath,
  "-l",
  c.model.name,
  "--oem",
  "1",
  "--psm",
  psm(c.vertical),
  "--dpi",
  "300",
];

async function main(): Promise<Goal[]> {
  requireTools([{ command: "tesseract", pkg: "tesseract-ocr" }]);
  const dir = await mkdtemp(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "mls-bench-ocr-"));
  const pool = createOcrPool();
  try {
    console.log(
      `ocr: ${ROUNDS} interleaved rounds; ${machineLine()}; ${toolVersion("tesseract", ["--version"])}; OMP_THREAD_LIMIT=1`,
    );
    const pages: Page[] = [];
    for (const [i, { language, spec }] of pageSpecs().entries()) {
      const image = await renderMangaPage(spec);
      const t = performance.now();
      const models = resolveModels(language);
      const regions = await findRegions(image);
      const gray = await decodeGray(image);
      const crops: Crop[] = [];
      for (const [k, r] of regions.entries()) {
        const vertical = r.vertical && models.vertical !== null;
        crops.push({
          file: path.join(dir, `p${i}-r${k}.png`),
          data: await cropGrayForOcr(gray, r),
          model: vertical ? models.vertical! : models.horizontal,
          vertical,
        });
      }
      const prepMs = performance.now() - t;
      if (crops.length < 4) fail(`page ${i + 1} (${language}): expected 4 regions, found ${crops.length}`);
      for (const c of crops) await writeFile(c.file, c.data);
      pages.push({ language, crops, prepMs });
    }
    const allCrops = pages.flatMap((p) => p.crops);

    // Worker start, timed apart: the local path keeps its workers warm across pages and jobs.
    const starts: string[][] = [];
    for (const c of allCrops) {
      if (starts.some((s) => s[0] === `${c.model.name} psm ${psm(c.vertical)}`)) continue;
      const t = performance.now();
      await pool.warm(c.model, c.vertical);
      starts.push([`${c.model.name} psm ${psm(c.vertical)}`, ((performance.now() - t) / 1000).toFixed(2)]);
    }
    // Warm-up: one pass each side (JIT; the binary, its libraries and models in the page cache).
    for (const c of allCrops) await pool.recognise(c.data, c.model, c.vertical);
    for (const c of allCrops.slice(0, 3)) await timeCommand("tesseract", cliArgs(c.file, c));

    // List files: one per page and model group, the CLI reading all of them in one process.
    const groups: { page: number; args: string[]; crops: Crop[] }[] = [];
    for (const [i, p] of pages.entries()) {
      const keys = [...new Set(p.crops.map((c) => `${c.model.name}:${c.vertical}`))];
      for (const key of keys) {
        const members = p.crops.filter((c) => `${c.model.name}:${c.vertical}` === key);
        const list = path.join(dir, `p${i}-${key.replace(":", "-")}.txt`);
        await writeFile(list, members.map((c) => c.file).join("\n") + "\n");
        groups.push({ page: i, args: cliArgs(list, members[0]!), crops: members });
      }
    }

    // Information: every crop of every page of one model in one process (model loaded once per run).
    const whole: { args: string[] }[] = [];
    for (const key of [...new Set(allCrops.map((c) => `${c.model.name}:${c.vertical}`))]) {
      const members = allCrops.filter((c) => `${c.model.name}:${c.vertical}` === key);
      const list = path.join(dir, `all-${key.replace(":", "-")}.txt`);
      await writeFile(list, members.map((c) => c.file).join("\n") + "\n");
      whole.push({ args: cliArgs(list, members[0]!) });
    }

    const ours: number[] = [],
      native: number[] = [],
      perCrop: number[] = [],
      oneRun: number[] = [];
    const oursTexts = new Map<string, string>();
    let nativeText = "";
    for (let round = 0; round < ROUNDS; round++) {
      const steps = {
        ours: async () => {
          for (const p of pages) {
            const t = performance.now();
            for (const c of p.crops)
              oursTexts.set(
                c.file,
                normaliseOcrText((await pool.recognise(c.data, c.model, c.vertical)).text, p.language),
              );
            ours.push(performance.now() - t);
          }
        },
        native: async () => {
          for (const [i] of pages.entries()) {
            let ms = 0;
            for (const g of groups.filter((x) => x.page === i)) {
              const r = await timeCommand("tesseract", g.args);
              ms += r.ms;
              if (round === 0) nativeText += r.stdout;
            }
            native.push(ms);
          }
        },
        perCrop: async () => {
          for (const p of pages) {
            let ms = 0;
            for (const c of p.crops) ms += (await timeCommand("tesseract", cliArgs(c.file, c))).ms;
            perCrop.push(ms);
          }
        },
        oneRun: async () => {
          let ms = 0;
          for (const g of whole) ms += (await timeCommand("tesseract", g.args)).ms;
          oneRun.push(ms / pages.length);
        },
      };
      const order = (["ours", "native", "perCrop", "oneRun"] as const).map((_, k, a) => a[(k + round) % a.length]!);
      for (const side of order) await steps[side]();
    }

    const crops = allCrops.length;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const perPage = (xs: number[]) => sum(xs) / xs.length / 1000;
    printTable(
      ["measure", "pages", "s/page", "median s/page"],
      [
        [
          "ours: warm tesseract.js worker per model, crops one by one",
          ours.length,
          perPage(ours).toFixed(3),
          (median(ours) / 1000).toFixed(3),
        ],
        [
          "native (judged): tesseract CLI, one process per model for all pages (model loaded once)",
          oneRun.length * pages.length,
          perPage(oneRun).toFixed(3),
          (median(oneRun) / 1000).toFixed(3),
        ],
        [
          "info: native, one process per page and model (list file)",
          native.length,
          perPage(native).toFixed(3),
          (median(native) / 1000).toFixed(3),
        ],
        [
          "info: native, one process per crop",
          perCrop.length,
          perPage(perCrop).toFixed(3),
          (median(perCrop) / 1000).toFixed(3),
        ],
        [
          "info: ours, region finding + cropping (before OCR)",
          pages.length,
          (sum(pages.map((p) => p.prepMs)) / pages.length / 1000).toFixed(3),
          "",
        ],
      ],
    );
    console.log(
      `\n${pages.length} pages, ${crops} crops (${(crops / pages.length).toFixed(1)} a page); worker start (excluded above):`,
    );
    printTable(["model", "start s"], starts);
    console.log("\nours read:", [...oursTexts.values()].join(" | "));
    console.log("native read (round 1, first bytes of each run):", normaliseOcrText(nativeText, "ja").slice(0, 400));
    const ratio = perPage(ours) / perPage(oneRun);
    return [
      {
        ok: ratio <= GOAL,
        text: `s/page ours / tesseract CLI = ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×; ${perPage(ours).toFixed(3)} vs ${perPage(oneRun).toFixed(3)} s/page, warm worker vs model loaded once)`,
      },
    ];
  } finally {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runBench("ocr", main);
