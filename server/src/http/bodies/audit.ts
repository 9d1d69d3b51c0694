/** REST bodies of the file audit (snake_case JSON) parsed into the audit service's typed inputs. */
import { parseFileIds } from "../../services/audit/audit-input.ts";
import type { RetirementInput, SourceRejectionInput } from "../../services/audit/audit-service.ts";
import { asObject, optionalString } from "../../services/input.ts";

/** `{ file_ids }` */
export function retirementBody(body: unknown): RetirementInput {
  return { fileIds: parseFileIds(asObject(body).file_ids) };
}

/** `{ provider, source_id, reason? }` */
export function sourceRejectionBody(body: unknown): SourceRejectionInput {
  const o = asObject(body);
  return {
    provider: optionalString(o, "provider", 200) ?? "",
    sourceId: optionalString(o, "source_id", 500) ?? "",
    reason: optionalString(o, "reason", 500, { multiline: true }),
  };
}
