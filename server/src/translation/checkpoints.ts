/**
 * Page checkpoints of a translation (docs/rules.md, "Local translation"), used by the local
 * engine and by the reference processor's external engine. Each completed page is two files written
 * atomically under `<dir>/<identity hash>/`: the rendered page, immutable and named by its sha256
 * (`<sha256>.img`, so the files may be copied to durable storage as they are), and its record
 * (`page-0001.json`: OCR text, translations, validation evidence, the image's hash). The record is
 * written second, so it is the commit point: a record that does not parse, names another page, or
 * whose image is missing or differs is corrupt and the page is regenerated.
 *
 * The identity (source archive, languages, model, endpoint, OCR and render settings — never the API
 * key) names the folder: a changed identity finds no checkpoints, and opening removes everything
 * else under the root (other identities, a crashed run's leftovers) so stale pages never mix in.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { PoolJudgement } from "../domain/translation-language.ts";
import type { RegionResult } from "../domain/translation-validation.ts";
import { ensureDir, statOrNull } from "../library/durable-fs.ts";
import { removeTemporaries, writeFileAtomic, writeJsonAtomic } from "./atomic-files.ts";
import type { Box } from "./types.ts";

export interface CheckpointIdentity {
  sourceSha256: string;
  sourceLanguage: string;
  targetLanguage: string;
  /** The AI endpoint (base URL) and model; the key is not part of the identity. */
  aiBaseUrl: string;
  model: string;
  /** Versions of the OCR and render settings: a change regenerates every page. */
  ocrSettings: string;
  renderSettings: string;
}

export interface CheckpointRegion {
  box: Box;
  kind: "bubble" | "caption";
  vertical: boolean;
  confidence: number;
  source: string;
  translation: string;
  result: RegionResult;
}

export interface PageRecord<R = CheckpointRegion> {
  version: 1;
  index: number;
  name: string;
  imageSha256: string;
  /** The model the provider said answered (null for a page without text, or when unknown). */
  model: string | null;
  regions: R[];
  /**
   * The language evidence of the page's translations: which pool decides it ("page": its own text
   * was confirmed; "book": too short alone, the book's pooled text decides; null: nothing to judge)
   * and the page pool's judgement. Absent in the external engine's records: it validates the book at the end and
   * records the pools' figures in the receipt's evidence.
   */
  language?: { pool: "page" | "book" | null; target: PoolJudgement | null } | null;
}

export interface Checkpoints<R = CheckpointRegion> {
  /** The folder of this identity. */
  readonly dir: string;
  read(index: number, name: string): Promise<{ record: PageRecord<R>; image: Buffer } | null>;
  write(record: Omit<PageRecord<R>, "version" | "imageSha256">, image: Buffer): Promise<PageRecord<R>>;
  /** The image file of a record. */
  imagePath(record: Pick<PageRecord<R>, "imageSha256">): string;
  /** Forgets a page (its record; the hash-named image may be shared and stays): it is made again. */
  remove(index: number): Promise<void>;
}

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** 24 hex digits of sha256 over the identity's fields in a fixed order. */
export function identityHash(id: CheckpointIdentity): string {
  const fields = [
    id.sourceSha256.toLowerCase(),
    id.sourceLanguage,
    id.targetLanguage,
    id.aiBaseUrl.replace(/\/+$/, ""),
    id.model,
    id.ocrSettings,
    id.renderSettings,
  ];
  return sha256(`checkpoint-v1\n${fields.join("\n")}`).slice(0, 24);
}

const stem = (index: number) => `page-${String(index + 1).padStart(4, "0")}`;

function isRecord<R>(v: unknown, index: number, name: string): v is PageRecord<R> {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Partial<PageRecord<R>>;
  return (
    r.version === 1 &&
    r.index === index &&
    r.name === name &&
    typeof r.imageSha256 === "string" &&
    /^[0-9a-f]{64}$/.test(r.imageSha256) &&
    Array.isArray(r.regions)
  );
}

/**
 * Opens the checkpoints of one identity under `root` (the job's folder). `identity` is the identity
 * itself, or its hash when the caller computes one of its own (the processor's request identity).
 */
export async function openCheckpoints<R = CheckpointRegion>(
  root: string,
  identity: CheckpointIdentity | { hash: string },
): Promise<Checkpoints<R>> {
  const hash = "hash" in identity ? identity.hash : identityHash(identity);
  const dir = path.join(root, hash);
  await ensureDir(dir);
  // Checkpoints of another identity (changed source, languages, model, endpoint or settings) are stale.
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (entry.name !== hash) await rm(path.join(root, entry.name), { recursive: true, force: true });
  }
  await removeTemporaries(dir);
  const imagePath = (r: Pick<PageRecord<R>, "imageSha256">) => path.join(dir, `${r.imageSha256}.img`);
  const recordPath = (index: number) => path.join(dir, `${stem(index)}.json`);
  return {
    dir,
    imagePath,
    async read(index, name) {
      let record: unknown;
      try {
        record = JSON.parse(await readFile(recordPath(index), "utf8"));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
        if (!(e instanceof SyntaxError)) throw e;
        record = null;
      }
      const image = isRecord<R>(record, index, name) ? await readFile(imagePath(record)).catch(() => null) : null;
      if (!isRecord<R>(record, index, name) || !image || record.imageSha256 !== sha256(image)) {
        // Corrupt: the caller regenerates the page (a damaged image is rewritten then).
        await rm(recordPath(index), { force: true });
        if (isRecord<R>(record, index, name) && image) await rm(imagePath(record), { force: true });
        return null;
      }
      return { record, image };
    },
    async remove(index) {
      await rm(recordPath(index), { force: true });
    },
    async write(page, image) {
      const record: PageRecord<R> = { version: 1, ...page, imageSha256: sha256(image) };
      // Hash-named images are immutable: an identical page already there is not written again.
      if (!(await statOrNull(imagePath(record)))) await writeFileAtomic(imagePath(record), image);
      await writeJsonAtomic(recordPath(page.index), record);
      return record;
    },
  };
}
