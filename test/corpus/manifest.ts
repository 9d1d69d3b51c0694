/**
 * The manifest's shapes and the helpers the case lists share.
 */
import type { ArchiveErrorCode, ArchiveLimits } from "../../server/src/library/archive-reader.ts";
import { png, type EntrySpec } from "./zip-bytes.ts";

export type Expected =
  | { outcome: "ok"; pages: string[]; ignored: string[]; comicInfo: string | null }
  | { outcome: "refused"; stage: "open" | "read"; code: ArchiveErrorCode; entry: string | null };

export interface CorpusCase {
  file: string;
  about: string;
  /** Limits other than the defaults, when the case is about a configured limit. */
  limits?: Partial<ArchiveLimits>;
  expect: Expected;
}

export interface CaseBuilder extends CorpusCase {
  build(): Promise<Buffer>;
}

export const COMIC_INFO = `<?xml version="1.0" encoding="utf-8"?>\n<ComicInfo><Series>Tide &amp; Stone</Series><Volume>2</Volume></ComicInfo>\n`;

export const ok = (pages: string[], ignored: string[] = [], comicInfo: string | null = null): Expected => ({
  outcome: "ok",
  pages,
  ignored,
  comicInfo,
});
export const refusedAtOpen = (code: ArchiveErrorCode, entry: string | null = null): Expected => ({
  outcome: "refused",
  stage: "open",
  code,
  entry,
});
export const refusedAtRead = (code: ArchiveErrorCode, entry: string): Expected => ({
  outcome: "refused",
  stage: "read",
  code,
  entry,
});

/** Entries of real little PNG pages. */
export async function pngPages(names: string[], compress = false): Promise<EntrySpec[]> {
  return Promise.all(names.map(async (name, i) => ({ name, data: await png(i), compress })));
}
