/**
 * Page sizes from an open archive without reading or decoding whole pages: the first bytes of an
 * entry (inflated when deflated) and the image header in them (image-header.ts). Used by the
 * reader's page listing and by the series' page shape that the content check of downloads needs.
 */
import { constants, inflateRawSync } from "node:zlib";
import { median, pageAspect } from "../domain/conformity.ts";
import { withArchive, type ArchiveHandle, type ArchiveOpenOptions } from "./archive-reader.ts";
import { IMAGE_HEADER_PREFIX_BYTES, imageInfo, type PageImageInfo } from "./image-header.ts";

/** Tried first: most page headers (JPEG SOF included) lie well within it. */
const FIRST_PREFIX_BYTES = 8 * 1024;

/** The first `want` bytes of an entry (inflated when deflated); null when they cannot be had cheaply. */
async function entryPrefix(archive: ArchiveHandle, name: string, want: number): Promise<Buffer | null> {
  const span = await archive.entrySpan(name);
  const raw = Buffer.alloc(Math.min(span.compressedSize, want));
  await span.read(raw, 0, raw.length);
  if (span.method === 0) return raw;
  try {
    // A deflate prefix: flush what it gives, bounded (a header never needs more).
    return inflateRawSync(raw, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 4 * want });
  } catch {
    return null;
  }
}

/** Type and size of one page from its first bytes (8 KiB, then 64 KiB when the header is longer). */
export async function archivePageInfo(
  archive: ArchiveHandle,
  page: { name: string; size: number },
): Promise<PageImageInfo | null> {
  const first = await entryPrefix(archive, page.name, FIRST_PREFIX_BYTES);
  const info = first && imageInfo(first);
  if (info?.width != null || page.size <= FIRST_PREFIX_BYTES) return info;
  const more = await entryPrefix(archive, page.name, IMAGE_HEADER_PREFIX_BYTES);
  return (more && imageInfo(more)) ?? info;
}

/** Pages whose headers are read for a file's median aspect: enough for a median, few reads. */
export const ASPECT_SAMPLE_PAGES = 9;

/** Up to `sample` page indexes spread evenly over `count` pages, ascending and distinct. */
export function samplePageIndexes(count: number, sample: number): number[] {
  const k = Math.max(0, Math.min(count, Math.floor(sample)));
  return Array.from({ length: k }, (_, i) => Math.floor(((i + 0.5) * count) / k));
}

/**
 * The median page aspect (height / width) of an archive from the headers of up to `sample` pages
 * spread evenly over it; null when no sampled page has a readable size. The archive is opened
 * through the hardened reader; its refusals are thrown as they are.
 */
export async function archiveMedianAspect(
  absPath: string,
  limits?: ArchiveOpenOptions,
  sample = ASPECT_SAMPLE_PAGES,
): Promise<number | null> {
  return withArchive(absPath, limits, async (archive) => {
    const aspects: number[] = [];
    for (const index of samplePageIndexes(archive.pages.length, sample)) {
      const info = await archivePageInfo(archive, archive.pages[index] as { name: string; size: number });
      const a = info?.width && info.height ? pageAspect({ width: info.width, height: info.height }) : null;
      if (a !== null) aspects.push(a);
    }
    return median(aspects);
  });
}
