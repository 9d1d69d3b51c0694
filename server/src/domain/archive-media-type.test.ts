import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptsArchiveBody, ARCHIVE_MEDIA_TYPES, mediaTypeOf } from "./archive-media-type.ts";

describe("acceptsArchiveBody", () => {
  it("takes the archive types, a byte stream and no type; refuses text, JSON, forms and images", () => {
    for (const t of [
      ...ARCHIVE_MEDIA_TYPES,
      undefined,
      null,
      "",
      "Application/ZIP; charset=binary",
      " application/x-cbz ",
    ])
      expect(acceptsArchiveBody(t), String(t)).toBe(true);
    for (const t of [
      "text/plain",
      "application/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "image/png",
      "application/zipx",
    ])
      expect(acceptsArchiveBody(t), t).toBe(false);
  });

  it("property: parameters and letter case never change the verdict", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ARCHIVE_MEDIA_TYPES, "text/plain", "application/json", "image/png"),
        fc.boolean(),
        fc.string({ maxLength: 20 }).filter((p) => !p.includes(";")),
        (type, upper, param) => {
          const header = `${upper ? type.toUpperCase() : type}; ${param}`;
          expect(mediaTypeOf(header)).toBe(type);
          expect(acceptsArchiveBody(header)).toBe(acceptsArchiveBody(type));
        },
      ),
    );
  });
});
