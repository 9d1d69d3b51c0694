/**
 * Settings of the public catalogues (the `setting` row "catalogues"; nothing secret: the
 * catalogues are read without an account).
 *
 * Input (REST body; GraphQL maps its camelCase onto it): `{ mangadex: { enabled?, base_url?,
 * cover_base_url? }, mangaupdates: { enabled?, base_url? }, anilist: { enabled?, base_url? } }`.
 * Absent fields stay; a base URL of null or "" goes back to the public API.
 */
import { CATALOGUES, type CatalogueName } from "../../domain/catalogue.ts";
import { DEFAULT_CATALOGUE_SETTINGS, type CatalogueSettings } from "../../catalogues/registry.ts";
import type { AppContext } from "../context.ts";
import { asObject, invalidField, optionalHttpUrl } from "../input.ts";
import { getSetting, putSetting } from "../acquisition/source-settings.ts";

export const CATALOGUES_SETTING_KEY = "catalogues";

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

    async update(raw: unknown): Promise<CatalogueSettings> {
      const body = asObject(raw);
      const next = await read();
      for (const key of Object.keys(body))
        if (!(CATALOGUES as readonly string[]).includes(key))
          invalidField(key, `is not a catalogue (${CATALOGUES.join(", ")})`);
      for (const name of CATALOGUES) {
        if (body[name] === undefined) continue;
        const o = asObject(body[name], name);
        const c = next[name];
        if (o.enabled !== undefined)
          c.enabled =
            typeof o.enabled === "boolean" ? o.enabled : invalidField(`${name}.enabled`, "must be true or false");
        if (o.base_url !== undefined)
          c.baseUrl = optionalHttpUrl(o.base_url, `${name}.base_url`) ?? DEFAULT_CATALOGUE_SETTINGS[name].baseUrl;
        if (name === "mangadex" && o.cover_base_url !== undefined)
          next.mangadex.coverBaseUrl =
            optionalHttpUrl(o.cover_base_url, "mangadex.cover_base_url") ??
            DEFAULT_CATALOGUE_SETTINGS.mangadex.coverBaseUrl;
        else if (o.cover_base_url !== undefined) invalidField(`${name}.cover_base_url`, "is a MangaDex setting only");
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
