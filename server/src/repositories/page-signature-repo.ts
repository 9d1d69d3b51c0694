import { dialectOf, type Db } from "../db/client.ts";
import {
  fromStored,
  lastPageStats,
  SIGNATURE_VERSION,
  toStored,
  type PageSignature,
} from "../domain/page-signature.ts";
import type { MapEntryFacts } from "../domain/types.ts";
import { replaceOperatorIn } from "./map-repo.ts";
import { parseJsonArray } from "./mappers.ts";
import { inChunks } from "./in-chunks.ts";
import { jsonRows, storedNow } from "./json-rows.ts";
import { Prisma } from "../generated/prisma/client.ts";

/** The stored signatures of one file content. */
export interface SignatureSet {
  sha256: string;
  state: "done" | "failed";
  pageCount: number;
  signatures: PageSignature[];
  error: string | null;
}

/**
 * Page signatures by file content (page evidence, the audit's page checks): one row per sha256 and
 * algorithm version, written by the background worker. A set of another version counts as absent.
 */
export function pageSignatureRepo(db: Db) {
  return {
    /** The current-version sets of these contents (one select). */
    async byContent(sha256s: readonly string[]): Promise<Map<string, SignatureSet>> {
      if (sha256s.length === 0) return new Map();
      const rows = await inChunks(sha256s, (chunk) =>
        db.pageSignatureSet.findMany({ where: { sha256: { in: chunk }, version: SIGNATURE_VERSION } }),
      );
      return new Map(
        rows.map((r) => [
          r.sha256,
          {
            sha256: r.sha256,
            state: r.state === "failed" ? "failed" : "done",
            pageCount: r.pageCount,
            signatures: fromStored(parseJsonArray<unknown>(r.pages)),
            error: r.error,
          },
        ]),
      );
    },

    /**
     * The last-page statistics of these contents (one select, without the signatures themselves):
     * null for a content not computed yet, `{ last: null }` for one whose last page gave none.
     */
    async lastPages(sha256s: readonly string[]): Promise<Map<string, { mean: number; stdev: number } | null>> {
      if (sha256s.length === 0) return new Map();
      // Raw: each audit page asks this, and Prisma's model API compiles every query first (series-rows.ts).
      const rows = await inChunks(sha256s, (chunk) =>
        jsonRows(
          db,
          "sha256, last_mean, last_stdev",
          Prisma.sql`page_signature_set WHERE version = ${SIGNATURE_VERSION} AND sha256 IN (${Prisma.join(chunk)})`,
        ),
      );
      return lastPageMap(rows);
    },

    /**
     * The last-page statistics of every content an active file of the series holds, as
     * `lastPages` answers them (one select whatever the size of the series; contents not computed
     * yet are absent).
     */
    async lastPagesOfSeries(seriesId: number): Promise<Map<string, { mean: number; stdev: number } | null>> {
      const rows = await jsonRows(
        db,
        "sha256, last_mean, last_stdev",
        Prisma.sql`page_signature_set WHERE version = ${SIGNATURE_VERSION} AND sha256 IN (SELECT sha256 FROM library_file WHERE series_id = ${seriesId} AND state = 'active')`,
      );
      return lastPageMap(rows);
    },

    async save(
      sha256: string,
      result: { pageCount: number; signatures: PageSignature[] } | { error: string },
    ): Promise<void> {
      const last = "error" in result ? null : lastPageStats(result.signatures, result.pageCount);
      const data =
        "error" in result
          ? { version: SIGNATURE_VERSION, state: "failed", pages: "[]", pageCount: 0, error: result.error }
          : {
              version: SIGNATURE_VERSION,
              state: "done",
              pages: JSON.stringify(result.signatures.map(toStored)),
              pageCount: result.pageCount,
              lastMean: last?.mean ?? null,
              lastStdev: last?.stdev ?? null,
              error: null,
            };
      // Raw (one per archive the background checks read): Prisma's model API compiles every query first.
      const at = dialectOf(db) === "postgresql" ? Prisma.sql`now()` : Prisma.sql`${storedNow()}`;
      await db.$executeRaw`INSERT INTO page_signature_set
          (sha256, version, state, pages, page_count, last_mean, last_stdev, error, created_at)
        VALUES (${sha256}, ${data.version}, ${data.state}, ${data.pages}, ${data.pageCount},
          ${data.lastMean ?? null}, ${data.lastStdev ?? null}, ${data.error}, ${at})
        ON CONFLICT (sha256) DO UPDATE SET version = excluded.version, state = excluded.state,
          pages = excluded.pages, page_count = excluded.page_count, last_mean = excluded.last_mean,
          last_stdev = excluded.last_stdev, error = excluded.error`;
    },

    /**
     * Adopting page evidence in one transaction: the operator map replaced at `expectedRevision`
     * (null when it moved meanwhile: nothing is written) and the book's proof recorded.
     */
    async adopt(
      seriesId: number,
      expectedRevision: number,
      entries: MapEntryFacts[],
      proof: { volume: string; fileId: number; digest: string; chapters: string[]; note: string },
    ): Promise<number | null> {
      return db.$transaction(async (tx) => {
        const next = await replaceOperatorIn(tx, seriesId, expectedRevision, entries);
        if (next === null) return null;
        const data = {
          fileId: proof.fileId,
          digest: proof.digest,
          chapters: JSON.stringify(proof.chapters),
          sourceUrl: null,
          note: proof.note,
          createdAt: new Date(),
        };
        await tx.verification.upsert({
          where: { seriesId_volume: { seriesId, volume: proof.volume } },
          create: { seriesId, volume: proof.volume, ...data },
          update: data,
        });
        return next;
      });
    },
  };
}

export type PageSignatureRepo = ReturnType<typeof pageSignatureRepo>;

function lastPageMap(rows: unknown[][]): Map<string, { mean: number; stdev: number } | null> {
  return new Map(
    rows.map(([sha256, mean, stdev]) => [
      String(sha256),
      mean === null || stdev === null ? null : { mean: Number(mean), stdev: Number(stdev) },
    ]),
  );
}
