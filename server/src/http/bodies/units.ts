/** REST bodies of one book's or chapter's actions (snake_case JSON) parsed into the services' typed inputs. */
import { AppError } from "../../errors.ts";
import type { MonitorInput } from "../../services/acquisition/monitoring-service.ts";
import type { OfferPickInput } from "../../services/acquisition/slot-search-service.ts";
import { asLabel, asObject } from "../../services/input.ts";

/** PUT …/monitored: `{ kind, number, monitored }` */
export function monitorBody(body: unknown): MonitorInput {
  const o = asObject(body);
  if (o.kind !== "book" && o.kind !== "chapter")
    throw new AppError("invalid_field", 'kind must be "book" or "chapter"', { field: "kind" });
  const number = asLabel(o.number, "number");
  if (typeof o.monitored !== "boolean")
    throw new AppError("invalid_field", "monitored must be true or false", { field: "monitored" });
  return { kind: o.kind, number, monitored: o.monitored };
}

/**
 * POST …/offers/download: `{ mapping_id, external_id }` (the camelCase spelling is accepted too);
 * a missing or malformed pair is refused by the service with the offer's other checks.
 */
export function offerPickBody(body: unknown): OfferPickInput {
  const o = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const externalId = o.external_id ?? o.externalId;
  return {
    mappingId: Number(o.mapping_id ?? o.mappingId),
    externalId: typeof externalId === "string" ? externalId : "",
  };
}
