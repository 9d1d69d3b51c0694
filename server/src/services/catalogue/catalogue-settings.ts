/**
 * Settings of the public catalogues (the `setting` row "catalogues"; nothing secret: the
 * catalogues are read without an account).
 *
 * Absent fields stay; a base URL of null or "" goes back to the public API.
 */
import { CATALOGUES, type CatalogueName } from "../../domain/catalogue.ts";
import { DEFAULT_CATALOGUE_SETTINGS, type CatalogueSettings } from "../../catalogues/registry.ts";
import type { AppContext } from "../context.ts";
import { invalidField, optionalHttpUrl } from "../input.ts";
import { getSetting, putSetting } from "../acquisition/source-settings.ts";

export const CATALOGUES_SETTING_KEY = "catalogues";

/** One catalogue's connection: absent fields stay; a base URL of null or "" is the public API. */
export interface CatalogueConnectionInput {
  enabled?: boolean | null;
  baseUrl?: string | null;
  /** MangaDex only. */
  coverBaseUrl?: string | null;
}

/** The catalogues to change (absent or null: left as they are). */
export type CatalogueSettingsInput = Partial<Record<CatalogueName, CatalogueConnectionInput | null>>;

function normalise(stored: Partial<CatalogueSettings>): CatalogueSettings {
  const d = DEFAULT_CATALOGUE_SETTINGS;
  return {
    mangadex: { ...d.mangadex, ...stored.mangadex },
    mangaupdates: { ...d.mangaupdates, ...stored.mangaupdates },
    anilist: { ...d.anilist, ...stored.anilist },
  };
}

export function catalogueSettingsService(ctx: AppContext) {
  const read = async () => normalise(await getSetting<Partial<CatalogueSettings>>(ctx, CATALOGUES_SETTING_KEY, {}));
  return {
    get: read,

    async update(input: CatalogueSettingsInput): Promise<CatalogueSettings> {
      const next = await read();
      for (const name of CATALOGUES) {
        const o = input[name];
        if (o === undefined || o === null) continue;
        const c = next[name];
        if (o.enabled !== undefined)
          c.enabled =
            typeof o.enabled === "boolean" ? o.enabled : invalidField(`${name}.enabled`, "must be true or false");
        if (o.baseUrl !== undefined)
          c.baseUrl = optionalHttpUrl(o.baseUrl, `${name}.base_url`) ?? DEFAULT_CATALOGUE_SETTINGS[name].baseUrl;
        if (name === "mangadex" && o.coverBaseUrl !== undefined)
          next.mangadex.coverBaseUrl =
            optionalHttpUrl(o.coverBaseUrl, "mangadex.cover_base_url") ??
            DEFAULT_CATALOGUE_SETTINGS.mangadex.coverBaseUrl;
        else if (o.coverBaseUrl !== undefined) invalidField(`${name}.cover_base_url`, "is a MangaDex setting only");
      }
      await putSetting(ctx, CATALOGUES_SETTING_KEY, next);
      ctx.log(
        `catalogue settings updated (${CATALOGUES.map((n: CatalogueName) => `${n} ${next[n].enabled ? "on" : "off"}`).join(", ")})`,
      );
      return next;
    },
  };
}

export type CatalogueSettingsService = ReturnType<typeof catalogueSettingsService>;
