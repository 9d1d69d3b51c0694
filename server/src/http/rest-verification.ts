/**
 * REST routes of verified books (docs/api.md, "Verified books"): translation between HTTP and
 * the verification service, nothing else. Registered by rest.ts after its authentication middleware.
 */
import type { Hono } from "hono";
import type { Services } from "../services/index.ts";
import type { StoredProof, VerifiedBook } from "../services/audit/verification-service.ts";
import { verificationBody } from "./bodies/verification.ts";
import { jsonBody, pathId } from "./request.ts";

const restProof = (p: StoredProof) => ({
  file_id: p.fileId,
  digest: p.digest,
  chapters: p.chapters,
  source_url: p.sourceUrl,
  note: p.note,
  created_at: p.createdAt,
  status: p.status,
});

export const restVerifiedBook = (b: VerifiedBook) => ({
  volume: b.volume,
  file_id: b.fileId,
  digest: b.digest,
  chapters: b.chapters,
  suspect_reason: b.suspectReason,
  verified: b.verified,
  proof: b.proof ? restProof(b.proof) : null,
});

export function verificationRoutes(app: Hono, services: Services): void {
  const v = services.verification;

  app.get("/api/manga/:id/verified-books", async (c) => c.json((await v.list(pathId(c))).map(restVerifiedBook)));
  app.put("/api/manga/:id/volumes/:volume/verification", async (c) =>
    c.json(restVerifiedBook(await v.verify(pathId(c), c.req.param("volume"), verificationBody(await jsonBody(c))))),
  );
  app.delete("/api/manga/:id/volumes/:volume/verification", async (c) => {
    await v.withdraw(pathId(c), c.req.param("volume"));
    return c.body(null, 204);
  });
}
