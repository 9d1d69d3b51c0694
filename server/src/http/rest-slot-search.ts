/** REST of the series page's Search and Interactive search on a slot: translation to the service, nothing else. */
import type { Hono } from "hono";
import type { Services } from "../services/index.ts";
import type { SlotOffersView } from "../services/acquisition/slot-search-service.ts";
import { offerPickBody } from "./bodies/units.ts";
import { jsonBody, pathId } from "./request.ts";

export const restSlotOffers = (v: SlotOffersView) => ({
  series_id: v.seriesId,
  kind: v.kind,
  number: v.number,
  reason: v.reason,
  offers: v.offers.map((o) => ({
    mapping_id: o.mappingId,
    provider: o.provider,
    provider_name: o.providerName,
    external_id: o.externalId,
    title: o.title,
    label: o.label,
    chapter: o.chapter,
    volume: o.volume,
    part: o.part,
    language: o.language,
    scanlator: o.scanlator,
    page_count: o.pageCount,
    uploaded_at: o.uploadedAt?.toISOString() ?? null,
    health: o.health,
    verdict: o.verdict,
    why: o.why,
  })),
});

export function slotSearchRoutes(app: Hono, services: Services): void {
  const s = services.slotSearch;
  app.get("/api/manga/:id/slots/:kind/:number/offers", async (c) =>
    c.json(restSlotOffers(await s.offers(pathId(c), c.req.param("kind"), c.req.param("number")))),
  );
  app.post("/api/manga/:id/slots/:kind/:number/download", async (c) => {
    const r = await s.download(pathId(c), c.req.param("kind"), c.req.param("number"), offerPickBody(await jsonBody(c)));
    return c.json({ download_ids: r.downloadIds }, 201);
  });
  app.post("/api/manga/:id/slots/:kind/:number/search", async (c) => {
    const r = await s.search(pathId(c), c.req.param("kind"), c.req.param("number"));
    return c.json({ download_ids: r.downloadIds, reason: r.reason });
  });
}
