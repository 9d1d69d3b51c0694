/**
 * The raw reads of series rows and book proofs (repositories/series-rows.ts, snapshots-repo.ts)
 * against Prisma's model API on the same database: the same values, timestamps and booleans
 * included. Run on SQLite (series-rows.test.ts) and on PostgreSQL (postgres.test.ts).
 */
import { expect } from "vitest";
import type { Db } from "../src/db/client.ts";
import { parseLabel, type Label } from "../src/domain/labels.ts";
import { seriesRows } from "../src/repositories/series-rows.ts";
import { loadSnapshots } from "../src/repositories/snapshots-repo.ts";
import { verificationRepo } from "../src/repositories/verification-repo.ts";

const label = (s: string) => parseLabel(s) as Label;

export async function expectRawReadsAsPrisma(db: Db): Promise<void> {
  const plain = await db.series.create({ data: { title: "Plain Rows", folder: "Plain Rows" } });
  const full = await db.series.create({
    data: {
      title: "Full Rows",
      folder: "Full Rows",
      form: "books",
      language: "de",
      originalLanguage: "ja",
      status: "finished",
      knownBookCount: 12,
      editionBookCount: 6,
      webtoon: true,
      planWording: "chapters_first",
      monitored: false,
      assembleBooksAutomatically: true,
      translationFallbackEnabled: true,
      translationSourceLanguages: '["en","fr"]',
    },
  });
  const ids = [plain.id, full.id, 999_999];
  const viaPrisma = await db.series.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
  expect(await seriesRows(db, ids)).toEqual(viaPrisma);
  expect(await seriesRows(db, [])).toEqual([]);

  const proofs = verificationRepo(db);
  await proofs.put(full.id, {
    volume: label("2"),
    fileId: 41,
    digest: "sha256:ab",
    chapters: [label("7"), label("8.5")],
    sourceUrl: null,
    note: "checked by hand",
  });
  await proofs.put(full.id, {
    volume: label("1"),
    fileId: 40,
    digest: "sha256:cd",
    chapters: [label("1")],
    sourceUrl: "https://example.org/volume-1",
    note: "",
  });
  const snapshots = await loadSnapshots(db, ids);
  expect(snapshots.get(full.id)?.verifications).toEqual(await proofs.ofSeries(full.id));
  expect(snapshots.get(full.id)?.verifications.map((v) => v.fileId)).toEqual([41, 40]);
  expect(snapshots.get(plain.id)?.verifications).toEqual([]);
  expect(snapshots.has(999_999)).toBe(false);
}
