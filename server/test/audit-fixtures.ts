/**
 * Helpers of the audit tests: the REST payloads of the audit, and the rows no endpoint writes yet
 * (providers, source mappings, releases, offers, downloads), written with the app's own Prisma
 * client into the real database, as the provider and download code will write them.
 */
import { createHash } from "node:crypto";
import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { expectJson } from "./fixtures.ts";
import type { TestApp } from "./utils.ts";

export interface RestAuditFile {
  id: number;
  path: string;
  size: number;
  sha256: string;
  page_count: number;
  kind: "book" | "chapter";
  number: string | null;
  number_end: string | null;
  part: number | null;
  language: string;
  state: string;
  origin: string;
  source: { provider: string; source_id: string | null } | null;
  flags: string[];
  black_share: number | null;
  thumbnails: { first: string; last: string } | null;
}
export interface RestAuditPage {
  series_id: number;
  page: number;
  page_size: number;
  total: number;
  files: RestAuditFile[];
}
export interface RestPreview {
  files: RestAuditFile[];
  confirmation: string;
  expires_at: string;
}
export interface RestRetired {
  retired: { file_id: number; recycle_entry_id: number; from: string; bin_path: string }[];
}

/** GraphQL's AuditFile selection, and its REST spelling, to compare the two transports. */
export const GQL_AUDIT_FILE = `id path size sha256 pageCount kind number numberEnd part language state origin source { provider sourceId } flags blackShare thumbnails { first last }`;

export function restFromGql(f: Record<string, unknown>): RestAuditFile {
  const source = f.source as { provider: string; sourceId: string | null } | null;
  return {
    id: f.id as number,
    path: f.path as string,
    size: f.size as number,
    sha256: f.sha256 as string,
    page_count: f.pageCount as number,
    kind: String(f.kind).toLowerCase() as "book" | "chapter",
    number: f.number as string | null,
    number_end: f.numberEnd as string | null,
    part: f.part as number | null,
    language: f.language as string,
    state: f.state as string,
    origin: f.origin as string,
    source: source ? { provider: source.provider, source_id: source.sourceId } : null,
    flags: (f.flags as string[]).map((x) => x.toLowerCase()),
    black_share: f.blackShare as number | null,
    thumbnails: f.thumbnails as RestAuditFile["thumbnails"],
  };
}

/** The ids of a series' files by their path inside the series folder ("x.cbz", "alt/x.cbz"). */
export async function fileIds(app: TestApp, seriesId: number): Promise<Map<string, number>> {
  const rows = await app.ctx.db.libraryFile.findMany({ where: { seriesId }, select: { id: true, path: true } });
  return new Map(rows.map((r) => [r.path.slice(r.path.indexOf("/") + 1), r.id]));
}

export function idOf(ids: Map<string, number>, name: string): number {
  const id = ids.get(name);
  expect(id, name).toBeDefined();
  return id as number;
}

/** A provider (created once by name) and one mapping of it to the series. */
export async function addMapping(app: TestApp, seriesId: number, provider: string, sourceId: string, language = "en") {
  const p = await app.ctx.db.provider.upsert({
    where: { name: provider },
    create: { name: provider, kind: "suwayomi" },
    update: {},
  });
  const m = await app.ctx.db.sourceMapping.create({ data: { seriesId, providerId: p.id, sourceId, language } });
  return { providerId: p.id, mappingId: m.id };
}

/** Files recorded as downloaded through a mapping: one release each, as the download code records them. */
export async function releaseThrough(
  app: TestApp,
  seriesId: number,
  mapping: { providerId: number; mappingId: number },
  fileIdsList: number[],
) {
  for (const fileId of fileIdsList) {
    const f = await app.ctx.db.libraryFile.update({ where: { id: fileId }, data: { origin: "download" } });
    await app.ctx.db.chapterRelease.create({
      data: {
        seriesId,
        kind: f.kind === "book" ? "volume" : "chapter",
        volume: f.volume,
        chapter: f.chapter,
        providerId: mapping.providerId,
        sourceMappingId: mapping.mappingId,
        externalId: `ext-${fileId}`,
        fileId,
      },
    });
  }
}

export async function addOffers(app: TestApp, seriesId: number, mappingId: number, chapters: string[]) {
  for (const chapter of chapters) {
    await app.ctx.db.offer.create({
      data: {
        seriesId,
        sourceMappingId: mappingId,
        kind: "chapter",
        chapter,
        language: "en",
        externalId: `offer-${mappingId}-${chapter}`,
      },
    });
  }
}

export async function addDownload(
  app: TestApp,
  seriesId: number,
  data: { state: string; fileId?: number; verdict?: unknown; needsReplacement?: boolean },
) {
  return app.ctx.db.download.create({
    data: {
      seriesId,
      kind: "chapter",
      language: "en",
      state: data.state,
      fileId: data.fileId ?? null,
      needsReplacement: data.needsReplacement ?? false,
      verdict: data.verdict === undefined ? null : JSON.stringify(data.verdict),
    },
  });
}

/** Rewrites a library file's bytes and records the change as a scan would (size, mtime, sha256). */
export async function rewriteAsScanWould(app: TestApp, fileId: number, bytes: Buffer): Promise<void> {
  const row = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: fileId } });
  const abs = path.join(app.config.libraryRoot, ...row.path.split("/"));
  await writeFile(abs, bytes);
  const st = await stat(abs);
  await app.ctx.db.libraryFile.update({
    where: { id: fileId },
    data: {
      sha256: createHash("sha256").update(bytes).digest("hex"),
      size: BigInt(st.size),
      mtimeMs: BigInt(Math.trunc(st.mtimeMs)),
    },
  });
}

export async function auditPage(app: TestApp, seriesId: number, query = ""): Promise<RestAuditPage> {
  return expectJson<RestAuditPage>(await app.api(`/api/manga/${seriesId}/audit${query}`), 200);
}
