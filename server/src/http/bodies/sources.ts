/** REST bodies of source mappings (snake_case JSON) parsed into the sources service's typed inputs. */
import {
  priorityOf,
  type SourceLinkInput,
  type SourceSearchInput,
} from "../../services/acquisition/sources-service.ts";
import { asObject, optionalString } from "../../services/input.ts";

/** POST …/sources/search: `{ provider, query? }` */
export function sourceSearchBody(body: unknown): SourceSearchInput {
  const o = asObject(body);
  return { provider: optionalString(o, "provider", 200) ?? "", query: optionalString(o, "query", 200) };
}

/** POST …/sources: `{ provider, source_id, language, priority? }` */
export function sourceLinkBody(body: unknown): SourceLinkInput {
  const o = asObject(body);
  return {
    provider: optionalString(o, "provider", 200) ?? "",
    sourceId: optionalString(o, "source_id", 500) ?? "",
    language: optionalString(o, "language", 20) ?? "",
    priority: o.priority === undefined ? undefined : priorityOf(o.priority),
  };
}

/** PATCH …/sources/{mapping_id}: `{ priority }` */
export function priorityBody(body: unknown): { priority: number } {
  return { priority: priorityOf(asObject(body).priority) };
}
