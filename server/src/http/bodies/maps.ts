/** REST bodies of the chapter map (snake_case JSON) parsed into the map services' typed inputs. */
import { AppError } from "../../errors.ts";
import {
  asBookStarts,
  type BookStartsInput,
  type MapEntryInput,
  type MapRevisionInput,
  type MapSaveInput,
  type SuggestionInput,
} from "../../services/maps/map-service.ts";
import type { AdoptionInput } from "../../services/maps/suggestion-adoption.ts";
import { asEntries, asLabel, asObject, asRevision, optionalString } from "../../services/input.ts";

/** PUT …/chapter-map: `{ revision, entries: [{ volume, chapters }] }` */
export function mapSaveBody(body: unknown): MapSaveInput {
  const o = asObject(body);
  return { revision: asRevision(o.revision), entries: asEntries(o.entries) };
}

/** DELETE …/chapter-map: `{ revision }` */
export function mapRevisionBody(body: unknown): MapRevisionInput {
  return { revision: asRevision(asObject(body).revision) };
}

/** POST …/chapter-map/book-starts/preview: `{ revision, starts: [{ volume, start }], last_end? }` */
export function bookStartsBody(body: unknown): BookStartsInput {
  const o = asObject(body);
  const revision = asRevision(o.revision);
  const starts = asBookStarts(o.starts);
  const lastEnd = o.last_end === undefined || o.last_end === null ? null : o.last_end;
  if (lastEnd !== null && typeof lastEnd !== "string")
    throw new AppError("invalid_label", "last_end must be an exact decimal string or null", { field: "last_end" });
  return { revision, starts, lastEnd };
}

/** POST …/chapter-map/readings: `{ volume, chapters }` */
export function readingBody(body: unknown): MapEntryInput {
  const o = asObject(body);
  const volume = asLabel(o.volume, "volume");
  const [entry] = asEntries([{ volume, chapters: o.chapters }], "reading");
  return { volume, chapters: entry?.chapters ?? [] };
}

/** POST …/chapter-map/suggestions: `{ source, entries }`, kept verbatim with the suggestion. */
export function suggestionBody(body: unknown): SuggestionInput {
  const o = asObject(body);
  return { source: optionalString(o, "source", 120) ?? "", entries: asEntries(o.entries), raw: JSON.stringify(body) };
}

/** POST …/chapter-map/suggestions/adopt: `{ source, volumes?, revision }` */
export function adoptionBody(body: unknown): AdoptionInput {
  const o = asObject(body);
  if (typeof o.source !== "string" || o.source.length > 120)
    throw new AppError("invalid_field", 'source must name a suggestion, e.g. "catalogue:mangadex"', {
      field: "source",
    });
  const revision = asRevision(o.revision);
  if (o.volumes === undefined || o.volumes === null) return { source: o.source, revision };
  if (!Array.isArray(o.volumes))
    throw new AppError("invalid_field", "volumes must be a non-empty list of book numbers (or absent: all)", {
      field: "volumes",
    });
  return { source: o.source, revision, volumes: o.volumes.map((v, i) => asLabel(v, `volumes[${i}]`)) };
}
