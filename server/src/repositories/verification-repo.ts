import type { Db } from "../db/client.ts";
import { parseLabel, type Label } from "../domain/labels.ts";
import type { VerificationFacts } from "../domain/types.ts";
import { parseJsonArray } from "./mappers.ts";

interface VerificationRow {
  volume: string;
  fileId: number;
  digest: string;
  chapters: string;
  sourceUrl: string | null;
  note: string;
  createdAt: Date;
}

/** A stored proof as rule-core facts; labels that no longer parse are dropped (the proof then fails to apply). */
export function verificationFacts(row: VerificationRow): VerificationFacts | null {
  const volume = parseLabel(row.volume);
  if (volume === null) return null;
  const chapters = parseJsonArray<string>(row.chapters)
    .map((c) => (typeof c === "string" ? parseLabel(c) : null))
    .filter((c): c is Label => c !== null);
  return {
    volume,
    fileId: row.fileId,
    digest: row.digest,
    chapters,
    sourceUrl: row.sourceUrl,
    note: row.note,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Book proofs (docs/rules.md, "Suspect and verified books"): one row per series and volume. Whether a proof
 * still applies is decided by the rule core (domain/verification.ts) from the snapshot, never stored.
 */
export function verificationRepo(db: Db) {
  return {
    /** One fixed lookup per series: a handful of rows at most (one per owned book). */
    async ofSeries(seriesId: number): Promise<VerificationFacts[]> {
      const rows = await db.verification.findMany({ where: { seriesId }, orderBy: { id: "asc" } });
      return rows.map(verificationFacts).filter((v): v is VerificationFacts => v !== null);
    },
    /** Records the proof of one book, replacing an earlier one. */
    async put(seriesId: number, p: Omit<VerificationFacts, "createdAt">): Promise<VerificationFacts> {
      const data = {
        fileId: p.fileId,
        digest: p.digest,
        chapters: JSON.stringify(p.chapters),
        sourceUrl: p.sourceUrl,
        note: p.note,
        createdAt: new Date(),
      };
      const row = await db.verification.upsert({
        where: { seriesId_volume: { seriesId, volume: p.volume } },
        create: { seriesId, volume: p.volume, ...data },
        update: data,
      });
      return verificationFacts(row) as VerificationFacts;
    },
    /** Withdraws the proof of one book; false when there was none. */
    async remove(seriesId: number, volume: Label): Promise<boolean> {
      return (await db.verification.deleteMany({ where: { seriesId, volume } })).count > 0;
    },
  };
}

export type VerificationRepo = ReturnType<typeof verificationRepo>;
