/** REST body of recording a book's proof (snake_case JSON) parsed into the verification service's input. */
import { AppError } from "../../errors.ts";
import type { VerificationInput } from "../../services/audit/verification-service.ts";
import { asLabel, asObject, optionalString } from "../../services/input.ts";

/** `{ digest, chapters, source_url?, note }` */
export function verificationBody(body: unknown): VerificationInput {
  const o = asObject(body);
  if (typeof o.digest !== "string")
    throw new AppError("invalid_field", 'digest must be "sha256:<64 hex digits>"', { field: "digest" });
  if (!Array.isArray(o.chapters))
    throw new AppError("invalid_field", "chapters must be a non-empty array of exact chapter labels", {
      field: "chapters",
    });
  const chapters = o.chapters.map((c, i) => asLabel(c, `chapters[${i}]`));
  const sourceUrl = o.source_url === null ? null : optionalString(o, "source_url", 2000);
  const note = optionalString(o, "note", 4000, { multiline: true }) ?? "";
  return { digest: o.digest, chapters, sourceUrl, note };
}
