/**
 * Harness of the ownership-moves tests (docs/rules.md, "Ownership
 * moves"): one Transport per API (REST and GraphQL) answering the same normalised shapes, the
 * series each row starts from, and a snapshot of everything a refused move must leave alone.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { fileIds, idOf } from "./audit-fixtures.ts";
import {
  bookFileName,
  chapterFileName,
  createSeriesWithFiles,
  expectJson,
  scanLibrary,
  type MapEntry,
} from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

export let app: TestApp;
let seq = 0;

/** The app shared by the tests of the calling file. */
export function useApp(): void {
  shareTestApp((a) => {
    app = a;
  });
}

export interface Unit {
  kind: string;
  number: string;
  owned: boolean;
  coverage: string | null;
  fileIds: number[];
  duplicateFileIds: number[];
  problems: string[];
}
/** A refusal: the stable code and the HTTP status (GraphQL carries it in extensions.status). */
export interface Refusal {
  code?: string;
  status?: number;
}
export interface BookRow {
  fileId: number;
  digest: string;
  chapters: string[];
  suspectReason: string | null;
  verified: boolean;
  proofStatus: string | null;
}

/** The operations a row triggers, by transport; both answer the same normalised shapes. */
export interface Transport {
  scan(): Promise<void>;
  units(seriesId: number): Promise<Unit[]>;
  /** The confirmation of a preview, or the refusal. */
  preview(seriesId: number, volume: string): Promise<Refusal & { confirmation?: string }>;
  assemble(seriesId: number, volume: string, confirmation: string): Promise<Refusal & { fileId?: number }>;
  /** Replaces the operator map (bound to `revision`); answers the new revision. */
  saveMap(seriesId: number, revision: number, entries: MapEntry[]): Promise<number>;
  verifiedBook(seriesId: number, volume: string): Promise<BookRow>;
  verify(
    seriesId: number,
    volume: string,
    proof: { digest: string; chapters: string[]; note: string },
  ): Promise<Refusal & { verified?: boolean }>;
  withdraw(seriesId: number, volume: string): Promise<Refusal>;
}

async function restRefusal(res: Response): Promise<Refusal & Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  return res.ok ? body : { code: body.code as string, status: res.status };
}
const gqlRefusal = (r: { errors?: { extensions?: Record<string, unknown> }[] }): Refusal => ({
  code: r.errors?.[0]?.extensions?.code as string,
  status: r.errors?.[0]?.extensions?.status as number,
});
const lower = (s: unknown) => (s == null ? null : String(s).toLowerCase());

export const rest: Transport = {
  async scan() {
    await scanLibrary(app);
  },
  async units(id) {
    type U = {
      kind: string;
      number: string;
      owned: boolean;
      coverage: string | null;
      file_ids: number[];
      duplicate_file_ids: number[];
      problems: string[];
    };
    const v = await expectJson<{ units: U[] }>(await app.api(`/api/manga/${id}/units`), 200);
    return v.units.map((u) => ({
      kind: u.kind,
      number: u.number,
      owned: u.owned,
      coverage: u.coverage,
      fileIds: u.file_ids,
      duplicateFileIds: u.duplicate_file_ids,
      problems: u.problems,
    }));
  },
  async preview(id, volume) {
    const r = await restRefusal(
      await app.api(`/api/manga/${id}/volumes/${volume}/assemble?dry_run=true`, { method: "POST", json: {} }),
    );
    return r.code ? r : { confirmation: r.confirmation as string };
  },
  async assemble(id, volume, confirmation) {
    const r = await restRefusal(
      await app.api(`/api/manga/${id}/volumes/${volume}/assemble?dry_run=false`, {
        method: "POST",
        json: { confirmation },
      }),
    );
    return r.code ? r : { fileId: r.file_id as number };
  },
  async saveMap(id, revision, entries) {
    return (
      await expectJson<{ revision: number }>(
        await app.api(`/api/manga/${id}/chapter-map`, { method: "PUT", json: { revision, entries } }),
        200,
      )
    ).revision;
  },
  async verifiedBook(id, volume) {
    type B = {
      volume: string;
      file_id: number;
      digest: string;
      chapters: string[];
      suspect_reason: string | null;
      verified: boolean;
      proof: { status: string } | null;
    };
    const all = await expectJson<B[]>(await app.api(`/api/manga/${id}/verified-books`), 200);
    const b = all.find((x) => x.volume === volume)!;
    return {
      fileId: b.file_id,
      digest: b.digest,
      chapters: b.chapters,
      suspectReason: b.suspect_reason,
      verified: b.verified,
      proofStatus: b.proof?.status ?? null,
    };
  },
  async verify(id, volume, proof) {
    const r = await restRefusal(
      await app.api(`/api/manga/${id}/volumes/${volume}/verification`, { method: "PUT", json: proof }),
    );
    return r.code ? r : { verified: r.verified as boolean };
  },
  async withdraw(id, volume) {
    const res = await app.api(`/api/manga/${id}/volumes/${volume}/verification`, { method: "DELETE" });
    if (res.status === 204) return {};
    return restRefusal(res);
  },
};

export const graphql: Transport = {
  async scan() {
    const r = await app.gql(`mutation { scanLibrary { added } }`);
    expect(r.errors).toBeUndefined();
  },
  async units(id) {
    const r = await app.gql<{ units: { units: Unit[] } }>(
      `query($s: Int!) { units(seriesId: $s) { units { kind number owned coverage fileIds duplicateFileIds problems } } }`,
      { s: id },
    );
    expect(r.errors).toBeUndefined();
    return r.data!.units.units.map((u) => ({ ...u, kind: u.kind.toLowerCase(), coverage: lower(u.coverage) }));
  },
  async preview(id, volume) {
    const r = await app.gql<{ previewBookAssembly: { confirmation: string } }>(
      `mutation($s: Int!, $v: String!) { previewBookAssembly(seriesId: $s, volume: $v) { confirmation } }`,
      { s: id, v: volume },
    );
    return r.errors ? gqlRefusal(r) : { confirmation: r.data!.previewBookAssembly.confirmation };
  },
  async assemble(id, volume, confirmation) {
    const r = await app.gql<{ assembleBook: { fileId: number } }>(
      `mutation($s: Int!, $v: String!, $c: String!) { assembleBook(seriesId: $s, volume: $v, confirmation: $c) { fileId } }`,
      { s: id, v: volume, c: confirmation },
    );
    return r.errors ? gqlRefusal(r) : { fileId: r.data!.assembleBook.fileId };
  },
  async saveMap(id, revision, entries) {
    const r = await app.gql<{ saveChapterMap: { revision: number } }>(
      `mutation($s: Int!, $r: Int!, $e: [MapEntryInput!]!) { saveChapterMap(seriesId: $s, revision: $r, entries: $e) { revision } }`,
      { s: id, r: revision, e: entries },
    );
    expect(r.errors).toBeUndefined();
    return r.data!.saveChapterMap.revision;
  },
  async verifiedBook(id, volume) {
    type B = {
      volume: string;
      fileId: number;
      digest: string;
      chapters: string[];
      suspectReason: string | null;
      verified: boolean;
      proof: { status: string } | null;
    };
    const r = await app.gql<{ verifiedBooks: B[] }>(
      `query($s: Int!) { verifiedBooks(seriesId: $s) { volume fileId digest chapters suspectReason verified proof { status } } }`,
      { s: id },
    );
    expect(r.errors).toBeUndefined();
    const b = r.data!.verifiedBooks.find((x) => x.volume === volume)!;
    return {
      fileId: b.fileId,
      digest: b.digest,
      chapters: b.chapters,
      suspectReason: b.suspectReason,
      verified: b.verified,
      proofStatus: lower(b.proof?.status),
    };
  },
  async verify(id, volume, proof) {
    const r = await app.gql<{ verifyBook: { verified: boolean } }>(
      `mutation($s: Int!, $v: String!, $i: VerificationInput!) { verifyBook(seriesId: $s, volume: $v, input: $i) { verified } }`,
      { s: id, v: volume, i: proof },
    );
    return r.errors ? gqlRefusal(r) : { verified: r.data!.verifyBook.verified };
  },
  async withdraw(id, volume) {
    const r = await app.gql<{ withdrawVerification: boolean }>(
      `mutation($s: Int!, $v: String!) { withdrawVerification(seriesId: $s, volume: $v) }`,
      { s: id, v: volume },
    );
    if (r.errors) return gqlRefusal(r);
    expect(r.data?.withdrawVerification).toBe(true);
    return {};
  },
};

export const transports = [
  ["REST", rest],
  ["GraphQL", graphql],
] as const;

/** The one unit of this kind and number. */
export const unit = (units: Unit[], kind: string, number: string): Unit => {
  const found = units.filter((x) => x.kind === kind && x.number === number);
  expect(found, `${kind} ${number}`).toHaveLength(1);
  return found[0]!;
};

/** Chapter files on disk (1–4 unless told), scanned; the operator map (book 1 = chapters 1–4 unless told; null = none). */
export async function readySeries(
  chapters: number[] = [1, 2, 3, 4],
  entries: MapEntry[] | null = [{ volume: "1", chapters: ["1", "2", "3", "4"] }],
) {
  const title = `Moves ${++seq}`;
  const s = await createSeriesWithFiles(app, title, { books: [], chapters });
  await scanLibrary(app);
  if (entries)
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
      200,
    );
  const ids = await fileIds(app, s.id);
  return {
    id: s.id,
    title,
    dir: path.join(app.config.libraryRoot, s.folder),
    chapterIds: chapters.map((n) => idOf(ids, chapterFileName(title, n))),
  };
}

/** readySeries with book 1 assembled through `t`. */
export async function assembled(t: Transport) {
  const s = await readySeries();
  const p = await t.preview(s.id, "1");
  expect(p.code).toBeUndefined();
  const r = await t.assemble(s.id, "1", p.confirmation!);
  expect(r.code).toBeUndefined();
  return { ...s, confirmation: p.confirmation!, bookId: r.fileId! };
}

/** Book 1 as a hand import (suspect) and chapter file 2, scanned; the operator map puts chapters 1–3 in book 1. */
export async function suspectSeries() {
  const title = `Moves ${++seq}`;
  const s = await createSeriesWithFiles(app, title, { books: [1], chapters: [2] });
  await scanLibrary(app);
  const ids = await fileIds(app, s.id);
  // A book the scan finds was placed by hand: a hand import, suspect until verified.
  const book = idOf(ids, bookFileName(title, 1));
  await expectJson(
    await app.api(`/api/manga/${s.id}/chapter-map`, {
      method: "PUT",
      json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2", "3"] }] },
    }),
    200,
  );
  return { id: s.id, title, book, chapter2: idOf(ids, chapterFileName(title, 2)) };
}

/** Every file under the library root (the recycle bin and staging included) with its hash. */
async function disk(): Promise<Record<string, string>> {
  const root = app.config.libraryRoot;
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = path.join(e.parentPath, e.name);
    out[path.relative(root, p)] = createHash("sha256")
      .update(await readFile(p))
      .digest("hex");
  }
  return out;
}

/** What a refused move must leave identical: files on disk, the series' rows, the units view. */
export async function snapshot(t: Transport, seriesId: number) {
  const db = app.ctx.db;
  const files = await db.libraryFile.findMany({ where: { seriesId }, orderBy: { id: "asc" } });
  return {
    disk: await disk(),
    files,
    recycled: await db.recycleEntry.findMany({
      where: { fileId: { in: files.map((f) => f.id) } },
      orderBy: { id: "asc" },
    }),
    releases: await db.chapterRelease.findMany({ where: { seriesId }, orderBy: { id: "asc" } }),
    counts: [await db.libraryFile.count(), await db.recycleEntry.count(), await db.chapterRelease.count()],
    units: await t.units(seriesId),
  };
}
