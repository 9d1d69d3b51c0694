/**
 * Import of a fetched processor result: the ZIP is opened with the hardened archive reader (its
 * limits apply), must hold exactly the source's pages (same names, same order, same geometry) plus
 * `translation.json` and nothing else, and the receipt must pass validateReceipt. Then a CBZ with
 * the translated pages and a rebuilt ComicInfo (source hash, model, machine-translation provenance)
 * is written in the attempt's staging dir and published as origin "translation". A translated book
 * is suspect and never retires anything (no retireAfter). A refusal leaves the output in staging,
 * outside the library, and fails the job with the refusal's code.
 */
import { rm } from "node:fs/promises";
import { comicInfoProvenance, validateReceipt, type ReceiptJob } from "../../domain/translation-receipt.ts";
import { safeNameWithTail } from "../../domain/safe-names.ts";
import { formatJobId } from "../../domain/translation-jobs.ts";
import type { TranslationJobRow as TranslationJob } from "../../repositories/translation-repo.ts";
import { openArchive, type ArchiveHandle } from "../../library/archive-reader.ts";
import type { Publication } from "../../library/publication.ts";
import { releaseRepo } from "../../repositories/release-repo.ts";
import type { AppContext } from "../context.ts";
import { chapterComicInfo, paddedLabel, writeChapterCbz } from "../acquisition/download-packaging.ts";
import { imageInfo, IMAGE_HEADER_PREFIX_BYTES } from "../../library/image-header.ts";
import { ArchiveError } from "../../library/archive-reader.ts";

import { RECEIPT_ENTRY } from "../../translation/atomic-files.ts";
export { RECEIPT_ENTRY };

/** The result failed an import check: `code` is what the job records (receipt_*, result_*, archive_*). */
export class ImportRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function geometry(a: ArchiveHandle, index: number): Promise<{ width: number; height: number } | null> {
  const page = await a.readPage(index);
  const info = imageInfo(page.subarray(0, IMAGE_HEADER_PREFIX_BYTES));
  return info?.width && info.height ? { width: info.width, height: info.height } : null;
}

async function withOpen<T>(file: string, ctx: AppContext, fn: (a: ArchiveHandle) => Promise<T>): Promise<T> {
  let a: ArchiveHandle;
  try {
    a = await openArchive(file, ctx.config.archiveLimits);
  } catch (e) {
    if (e instanceof ArchiveError) throw new ImportRefused(e.code, e.message);
    throw e;
  }
  try {
    return await fn(a);
  } catch (e) {
    if (e instanceof ArchiveError) throw new ImportRefused(e.code, e.message);
    throw e;
  } finally {
    await a.close();
  }
}

export async function importTranslation(
  ctx: AppContext,
  publication: Pick<Publication, "publish">,
  row: TranslationJob,
  files: { result: string; output: string; isCurrent: () => Promise<boolean> },
): Promise<number> {
  // A crash after the publication committed but before the job was marked imported: the book is
  // already in the library under this attempt's release id; publishing again would duplicate it.
  const externalId = `translation:${formatJobId(row.jobKey, row.attempt)}`;
  const done = await releaseRepo(ctx.db).activeOfExternal(row.seriesId, externalId);
  if (done?.fileId) return done.fileId;
  if (!row.sourcePath || !row.sourceSha256)
    throw new ImportRefused("source_missing", "the job has no source archive in staging");
  const source = await withOpen(row.sourcePath, ctx, async (a) => {
    const dims = [];
    for (let i = 0; i < a.pages.length; i++) dims.push(await geometry(a, i));
    return { names: a.pages.map((p) => p.name), dims };
  });
  const job: ReceiptJob = {
    sourceSha256: row.sourceSha256,
    sourceLanguage: row.sourceLanguage,
    targetLanguage: row.targetLanguage,
    pageCount: source.names.length,
  };

  const { pages, receipt } = await withOpen(files.result, ctx, async (a) => {
    const extra = [
      ...a.ignored.filter((n) => n !== RECEIPT_ENTRY),
      ...(a.comicInfoXml !== null ? ["ComicInfo.xml"] : []),
    ];
    if (extra.length > 0)
      throw new ImportRefused(
        "result_extra_entry",
        `the result holds entries besides the pages and ${RECEIPT_ENTRY}: ${extra.slice(0, 3).join(", ").slice(0, 120)}`,
      );
    if (!a.ignored.includes(RECEIPT_ENTRY))
      throw new ImportRefused("receipt_missing", `the result has no ${RECEIPT_ENTRY}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse((await a.readEntry(RECEIPT_ENTRY)).toString("utf8"));
    } catch {
      throw new ImportRefused("receipt_invalid", `${RECEIPT_ENTRY} is not JSON`);
    }
    const check = validateReceipt(parsed, job);
    if (!check.ok) throw new ImportRefused(check.code, check.message);
    if (a.pages.length !== source.names.length)
      throw new ImportRefused(
        "result_page_count",
        `the result holds ${a.pages.length} pages, the source ${source.names.length}`,
      );
    const out: Buffer[] = [];
    for (const [i, p] of a.pages.entries()) {
      if (p.name !== source.names[i])
        throw new ImportRefused(
          "result_page_names",
          `page ${i + 1} is ${p.name.slice(0, 80)}, the source's is ${(source.names[i] ?? "").slice(0, 80)}`,
        );
      const dim = await geometry(a, i);
      const want = source.dims[i];
      if (!dim || !want || dim.width !== want.width || dim.height !== want.height) {
        throw new ImportRefused(
          "result_geometry_changed",
          `page ${i + 1} is ${dim?.width ?? "?"}×${dim?.height ?? "?"}, the source's ${want?.width ?? "?"}×${want?.height ?? "?"}`,
        );
      }
      out.push(await a.readPage(i));
    }
    return { pages: out, receipt: check.receipt };
  });

  const series = await ctx.repos.series.require(row.seriesId);
  const isBook = row.kind === "volume";
  const whole = /^\d{1,6}$/.test(row.number) ? Number(row.number) : undefined;
  const xml = chapterComicInfo(
    {
      Series: series.title,
      ...(isBook ? (whole !== undefined ? { Volume: whole } : { Number: row.number }) : { Number: row.number }),
      ...comicInfoProvenance(receipt, job),
    },
    pages,
  );
  await rm(files.output, { force: true });
  await writeChapterCbz(files.output, pages, xml);
  // Cancelled, paused or retried while the CBZ was written: nothing enters the library.
  if (!(await files.isCurrent()))
    throw new ImportRefused("translation_not_current", "the job changed during the import");
  const label = isBook ? `v${paddedLabel(row.number, 2)}` : `c${paddedLabel(row.number)}`;
  const published = await publication.publish({
    seriesId: row.seriesId,
    // With several instances the book is published only while this claim of the job is its current one.
    claim: { kind: "translation", id: row.id, epoch: row.epoch },
    stagedPath: files.output,
    targetRelPath: `${series.folder}/${safeNameWithTail(series.title, " ", `${label} [machine translation ${row.targetLanguage}]`, 170)}.cbz`,
    file: {
      kind: isBook ? "book" : "chapter",
      volume: isBook ? row.number : null,
      chapter: isBook ? null : row.number,
      chapterEnd: isBook ? null : row.number,
      part: null,
      pageCount: pages.length,
      language: row.targetLanguage,
      origin: "translation",
      tagSource: "comicinfo",
    },
    release: {
      kind: isBook ? "volume" : "chapter",
      volume: isBook ? row.number : null,
      chapter: isBook ? null : row.number,
      part: null,
      language: row.targetLanguage,
      assembledFrom: null,
      externalId,
    },
  });
  return published.fileId;
}
