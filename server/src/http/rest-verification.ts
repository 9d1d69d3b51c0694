/**
 * REST routes of verified books (contract "Verification payloads"): translation between HTTP and
 * the verification service, nothing else. Registered by rest.ts after its authentication middleware.
 */
import type { Context, Hono } from "hono";
import { asId } from "../services/input.ts";
import type { Services } from "../services/index.ts";
import type { StoredProof, VerifiedBook } from "../services/verification-service.ts";
import { jsonBody } from "./request.ts";

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
  const id = (c: Context) => asId(c.req.param("id"));

  app.get("/api/manga/:id/verified-books", async (c) => c.json((await v.list(id(c))).map(restVerifiedBook)));
  app.put("/api/manga/:id/volumes/:volume/verification", async (c) =>
    c.json(restVerifiedBook(await v.verify(id(c), c.req.param("volume"), await jsonBody(c)))),
  );
  app.delete("/api/manga/:id/volumes/:volume/verification", async (c) => {
    await v.withdraw(id(c), c.req.param("volume"));
    return c.body(null, 204);
  });
}
