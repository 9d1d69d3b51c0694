/** REST bodies of the catalogues (snake_case JSON) parsed into the catalogue services' typed inputs. */
import { CATALOGUES, type CatalogueName } from "../../domain/catalogue.ts";
import {
  asCatalogue,
  asCatalogueId,
  type CatalogueLinkInput,
  type LinkedSeriesCreateInput,
  type OfferAcceptInput,
} from "../../services/catalogue/catalogue-model.ts";
import type { CatalogueConnectionInput, CatalogueSettingsInput } from "../../services/catalogue/catalogue-settings.ts";
import { asObject, invalidField, optionalHttpUrl, optionalString } from "../../services/input.ts";
import { seriesFieldsOf } from "./series.ts";

/** A catalogue id: text, or a number for the catalogues with numeric ids (its pattern is the service's rule). */
function catalogueIdOf(v: unknown, catalogue: CatalogueName): string {
  if (typeof v === "number") return String(v);
  return typeof v === "string" ? v : asCatalogueId(catalogue, v);
}

/** POST …/catalogue-links: `{ catalogue, catalogue_id }` */
export function catalogueLinkBody(body: unknown): CatalogueLinkInput {
  const o = asObject(body);
  const catalogue = asCatalogue(o.catalogue);
  return { catalogue, catalogueId: catalogueIdOf(o.catalogue_id, catalogue) };
}

/** POST …/catalogue-counts/accept: `{ known_book_count?, status? }` */
export function offerAcceptBody(body: unknown): OfferAcceptInput {
  const o = asObject(body);
  const input: OfferAcceptInput = {};
  if (o.known_book_count !== undefined) {
    if (o.known_book_count !== null && typeof o.known_book_count !== "number")
      invalidField("known_book_count", "must be the number of books the offer states");
    input.knownBookCount = o.known_book_count as number | null;
  }
  if (o.status !== undefined) {
    if (o.status !== null && typeof o.status !== "string")
      invalidField("status", "must be the status the offer states");
    input.status = o.status as string | null;
  }
  return input;
}

/** POST /api/manga with `catalogue` and `catalogue_id`: the series fields too (a null title: the work's). */
export function linkedSeriesBody(body: unknown): LinkedSeriesCreateInput {
  const o = asObject(body);
  const catalogue = asCatalogue(o.catalogue);
  const catalogueId = catalogueIdOf(o.catalogue_id, catalogue);
  const fields = seriesFieldsOf(o.title === null ? { ...o, title: undefined } : o);
  return { ...fields, folder: optionalString(o, "folder", 300), catalogue, catalogueId };
}

/** PUT /api/settings/catalogues: `{ mangadex?: { enabled?, base_url?, cover_base_url? }, mangaupdates?, anilist? }` */
export function catalogueSettingsBody(body: unknown): CatalogueSettingsInput {
  const o = asObject(body);
  for (const key of Object.keys(o))
    if (!(CATALOGUES as readonly string[]).includes(key))
      invalidField(key, `is not a catalogue (${CATALOGUES.join(", ")})`);
  const input: CatalogueSettingsInput = {};
  for (const name of CATALOGUES) {
    if (o[name] === undefined) continue;
    const c = asObject(o[name], name);
    const connection: CatalogueConnectionInput = {};
    if (c.enabled !== undefined)
      connection.enabled =
        typeof c.enabled === "boolean" ? c.enabled : invalidField(`${name}.enabled`, "must be true or false");
    if (c.base_url !== undefined) connection.baseUrl = optionalHttpUrl(c.base_url, `${name}.base_url`);
    if (c.cover_base_url !== undefined)
      connection.coverBaseUrl =
        name === "mangadex"
          ? optionalHttpUrl(c.cover_base_url, `${name}.cover_base_url`)
          : invalidField(`${name}.cover_base_url`, "is a MangaDex setting only");
    input[name] = connection;
  }
  return input;
}
