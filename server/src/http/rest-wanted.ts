/** REST of the Wanted pass: translation between HTTP and the wanted service, nothing else. */
import type { Hono } from "hono";
import type { Services } from "../services/index.ts";
import {
  WANTED_LIST_LIMIT,
  type WantedEntryView,
  type WantedLedgerView,
  type WantedOfLibrary,
} from "../services/acquisition/wanted-service.ts";
import { AppError } from "../errors.ts";
import { pathId } from "./request.ts";

export function restWanted(l: WantedLedgerView) {
  return {
    series_id: l.seriesId,
    last_pass_at: l.lastPassAt?.toISOString() ?? null,
    next_pass_at: l.nextPassAt?.toISOString() ?? null,
    empty_passes: l.emptyPasses,
    entries: l.entries.map(restWantedEntry),
  };
}

export function restWantedOfLibrary(w: WantedOfLibrary) {
  return {
    total: w.total,
    entries: w.entries.map((x) => ({
      series_id: x.seriesId,
      series_title: x.seriesTitle,
      ...restWantedEntry(x.entry),
    })),
  };
}

function restWantedEntry(e: WantedEntryView) {
  return {
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
    downloads: e.downloads,
    updated_at: e.updatedAt.toISOString(),
  };
}

export function wantedRoutes(app: Hono, services: Services): void {
  // Every series' Wanted ledger in one list (the *arr apps' Wanted page): `reason` repeated or
  // comma-separated, `limit` 1–5000 (500 by default).
  app.get("/api/wanted", async (c) => {
    const reasons = (c.req.queries("reason") ?? []).flatMap((s) => s.split(",")).filter((s) => s !== "");
    const limitText = c.req.query("limit");
    if (limitText !== undefined && !/^\d{1,9}$/.test(limitText))
      throw new AppError("invalid_field", `limit must be an integer from 1 to ${WANTED_LIST_LIMIT.max}`, {
        field: "limit",
      });
    const limit = limitText === undefined ? undefined : Number(limitText);
    return c.json(restWantedOfLibrary(await services.wanted.ofLibrary({ reasons, limit })));
  });
  app.get("/api/manga/:id/wanted", async (c) => c.json(restWanted(await services.wanted.ledger(pathId(c)))));
  app.post("/api/manga/:id/wanted/run", async (c) => {
    const r = await services.wanted.runPass(pathId(c), { force: true });
    return c.json({ queued: r.queued, ledger: restWanted(r) });
  });
}
