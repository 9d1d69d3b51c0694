/**
 * Which Content-Type a raw archive body (a CBZ sent as the request body, not a form) may carry.
 * The names ZIP and CBZ go by in the wild are accepted, and so is a plain byte stream or no type
 * at all (the archive checks judge the bytes); any other type (text, JSON, a form, an image) says
 * the body is something else and is refused before it is read.
 */
export const ARCHIVE_MEDIA_TYPES: readonly string[] = [
  "application/zip",
  "application/x-zip",
  "application/x-zip-compressed",
  "application/x-cbz",
  "application/vnd.comicbook+zip",
  "application/octet-stream",
];

/** The media type of a Content-Type header: lower case, without parameters ("" when absent). */
export function mediaTypeOf(header: string | null | undefined): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

export function acceptsArchiveBody(contentType: string | null | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === "" || ARCHIVE_MEDIA_TYPES.includes(type);
}
