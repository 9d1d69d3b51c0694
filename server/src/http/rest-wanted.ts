/** REST of the Wanted pass: translation between HTTP and the wanted service, nothing else. */
import type { Hono } from "hono";
import type { Services } from "../services/index.ts";
import type { WantedLedgerView } from "../services/acquisition/wanted-service.ts";
import { pathId } from "./request.ts";

export function restWanted(l: WantedLedgerView) {
  return {
    series_id: l.seriesId,
    last_pass_at: l.lastPassAt?.toISOString() ?? null,
    next_pass_at: l.nextPassAt?.toISOString() ?? null,
    empty_passes: l.emptyPasses,
    entries: l.entries.map((e) => ({
      kind: e.kind,
      number: e.number,
      reason: e.reason,
      detail: {
        offers: e.detail.offers,
        usable: e.detail.usable,
        blocked: e.detail.blocked,
        languages: e.detail.languages,
        candidate_mapping_id: e.detail.candidate?.mappingId ?? null,
        candidate_external_id: e.detail.candidate?.externalId ?? null,
        parts: e.detail.parts ?? null,
        next_pass_at: e.detail.nextPassAt ?? null,
        replaces_file_id: e.detail.replacesFileId ?? null,
        download_ids: e.detail.downloadIds ?? null,
        book_channel_outcome: e.detail.bookChannel?.outcome ?? null,
      },
      updated_at: e.updatedAt.toISOString(),
    })),
  };
}

export function wantedRoutes(app: Hono, services: Services): void {
  app.get("/api/manga/:id/wanted", async (c) => c.json(restWanted(await services.wanted.ledger(pathId(c)))));
  app.post("/api/manga/:id/wanted/run", async (c) => {
    const r = await services.wanted.runPass(pathId(c), { force: true });
    return c.json({ queued: r.queued, ledger: restWanted(r) });
  });
}
