/**
 * The cover a catalogue gave a series, stored with the series: content-addressed files in
 * DATA_DIR/covers (`<sha256>.<ext>`, written atomically), named by the catalogue links. Used by
 * the library card when no file of the series has a cover yet, and by any reader app that wants a
 * series cover (`seriesCover`).
 */
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../errors.ts";
import { METADATA_PRIORITY, isCatalogueName, type CatalogueName } from "../../domain/catalogue.ts";
import { catalogueRepo } from "../../repositories/catalogue-repo.ts";
import { writeFileAtomic } from "../../translation/atomic-files.ts";
import type { AppContext } from "../context.ts";
import { sniffImageType } from "../../library/image-header.ts";

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
};

export const coversDir = (ctx: Pick<AppContext, "config">) => path.join(ctx.config.dataDir, "covers");

/** `/api/manga/{id}/cover`: the stored catalogue cover of a series. */
export const seriesCoverUrl = (seriesId: number) => `/api/manga/${seriesId}/cover`;

/** Stores image bytes; null when the bytes are not an image of a known format. */
export async function storeCover(
  ctx: Pick<AppContext, "config">,
  bytes: Buffer,
): Promise<{ file: string; contentType: string } | null> {
  const contentType = sniffImageType(bytes);
  if (contentType === null) return null;
  const file = `${createHash("sha256").update(bytes).digest("hex")}.${EXTENSIONS[contentType]}`;
  await writeFileAtomic(path.join(coversDir(ctx), file), bytes);
  return { file, contentType };
}

/** Removes a stored cover no link names any more (covers are the service's own copies, not library files). */
export async function dropCoverIfUnused(ctx: Pick<AppContext, "config" | "db">, file: string | null): Promise<void> {
  if (file === null || !/^[0-9a-f]{64}\.\w+$/.test(file)) return;
  if (await catalogueRepo(ctx.db).coverInUse(file)) return;
  await rm(path.join(coversDir(ctx), file), { force: true });
}

export interface SeriesCover {
  /** Absolute path of the image file. */
  path: string;
  contentType: string;
  /** Stable per content (the file's sha256). */
  etag: string;
  catalogue: CatalogueName;
}

/**
 * The series' catalogue cover (MangaDex first, then AniList, then MangaUpdates), or null. This is
 * the one place other parts (OPDS, Komga-compatible endpoints) read a series cover from.
 */
export async function seriesCover(
  ctx: Pick<AppContext, "config" | "db">,
  seriesId: number,
): Promise<SeriesCover | null> {
  const links = (await catalogueRepo(ctx.db).links(seriesId)).filter(
    (l) => l.coverFile !== null && isCatalogueName(l.catalogue),
  );
  links.sort(
    (a, b) =>
      METADATA_PRIORITY.indexOf(a.catalogue as CatalogueName) - METADATA_PRIORITY.indexOf(b.catalogue as CatalogueName),
  );
  const first = links[0];
  if (!first?.coverFile) return null;
  return {
    path: path.join(coversDir(ctx), first.coverFile),
    contentType: first.coverType ?? "application/octet-stream",
    etag: `"${first.coverFile.split(".")[0]}"`,
    catalogue: first.catalogue as CatalogueName,
  };
}

/** The cover's bytes for `GET /api/manga/{id}/cover` (304 when the client holds this content). */
export async function readSeriesCover(
  ctx: Pick<AppContext, "config" | "db">,
  seriesId: number,
  ifNoneMatch: string | undefined,
): Promise<{ notModified: boolean; etag: string; contentType: string; bytes: Buffer | null }> {
  const cover = await seriesCover(ctx, seriesId);
  if (!cover) throw new AppError("cover_not_found", `series ${seriesId} has no stored cover`);
  if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((t) => t.trim() === cover.etag))
    return { notModified: true, etag: cover.etag, contentType: cover.contentType, bytes: null };
  let bytes: Buffer;
  try {
    bytes = await readFile(cover.path);
  } catch {
    throw new AppError("cover_not_found", `the stored cover of series ${seriesId} is missing from the data folder`);
  }
  return { notModified: false, etag: cover.etag, contentType: cover.contentType, bytes };
}
