/**
 * REST routes of page evidence: `GET /api/manga/{id}/page-evidence` (202 with the progress while
 * signatures are computed) and `POST /api/manga/{id}/volumes/{volume}/page-evidence/adopt`
 * (`?dry_run=true` previews and returns a confirmation; the confirm sends `{ "confirmation" }`).
 * Translation between HTTP and the page-evidence service, nothing else.
 */
import type { Hono } from "hono";
import type { BookEvidence, ChapterEvidence } from "../domain/page-alignment.ts";
import type { Services } from "../services/index.ts";
import type { AdoptionPreview, AdoptionResult, PageEvidenceView } from "../services/audit/page-evidence-service.ts";
import { restMapChange } from "./present-map.ts";
import { restVerifiedBook } from "./rest-verification.ts";
import { confirmationBody } from "./bodies/common.ts";
import { dryRun, jsonBody, pathId } from "./request.ts";

const restChapter = (c: ChapterEvidence) => ({
  number: c.number,
  file_ids: c.fileIds,
  pages: c.pages,
  matched: c.matched,
  matched_any_order: c.matchedAnyOrder,
  book_pages: c.bookPages,
  in_order: c.inOrder,
});

export const restBookEvidence = (b: BookEvidence) => ({
  volume: b.volume,
  file_id: b.fileId,
  pages: b.pages,
  chapters: b.chapters.map(restChapter),
  proposal: b.proposal,
});

export const restPageEvidence = (v: PageEvidenceView) =>
  v.status === "computing"
    ? { status: v.status, progress: v.progress, books: [] }
    : { status: v.status, progress: null, books: v.books.map(restBookEvidence) };

export const restAdoptionPreview = (p: AdoptionPreview) => ({
  dry_run: true,
  volume: p.volume,
  file_id: p.fileId,
  revision: p.revision,
  entry: p.entry,
  entries: p.entries,
  coverage: restMapChange(p.revision, p.coverage),
  proof: { digest: p.proof.digest, chapters: p.proof.chapters, source_url: p.proof.sourceUrl, note: p.proof.note },
  evidence: restBookEvidence(p.evidence),
  confirmation: p.confirmation,
  expires_at: p.expiresAt,
});

export const restAdoption = (r: AdoptionResult) => ({
  dry_run: false,
  volume: r.volume,
  revision: r.revision,
  verification: r.verification ? restVerifiedBook(r.verification) : null,
});

export function pageEvidenceRoutes(app: Hono, services: Services): void {
  const evidence = services.pageEvidence;

  app.get("/api/manga/:id/page-evidence", async (c) => {
    const v = await evidence.evidence(pathId(c));
    return c.json(restPageEvidence(v), v.status === "computing" ? 202 : 200);
  });

  app.post("/api/manga/:id/volumes/:volume/page-evidence/adopt", async (c) => {
    const volume = c.req.param("volume");
    if (dryRun(c)) return c.json(restAdoptionPreview(await evidence.previewAdoption(pathId(c), volume)));
    return c.json(restAdoption(await evidence.adopt(pathId(c), volume, confirmationBody(await jsonBody(c)))));
  });
}
