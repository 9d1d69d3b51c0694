/**
 * What the series-page conformance probes share: the `seriesPage` and `units` documents, their
 * answer shapes, and a probe kit bound to one test app (series made through POST /api/manga from
 * files written here and a scan, the map saved through PUT, REST and GraphQL units compared).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { cbz, expectJson, scanLibrary, type RestUnits } from "./fixtures.ts";
import type { TestApp } from "./utils.ts";
import { gqlEnum, gqlUnit } from "./web-support-helpers.ts";

const ROW = `key kind number title owned ownedText monitored pageCount plan planText coverage fileIds problems problem
  estimateHint primary { id label } menu { id label }`;
export const PAGE = `query($id: Int!, $filter: UnitFilter, $reversed: Boolean, $problemsOnly: Boolean) {
  seriesPage(seriesId: $id, filter: $filter, reversed: $reversed, problemsOnly: $problemsOnly) {
    seriesId form map status planWording layout notice offerMapEditor
    groups { key collapsed coverText note duplicates { count fileIds note } book { ${ROW} } children { ${ROW} } }
    sections { key title rows { ${ROW} } }
    loose { key title children { ${ROW} } }
  }
}`;
export const UNITS = `query($id: Int!) { units(seriesId: $id) { seriesId form map status planWording
  units { kind number book owned monitored coverage plan estimatedBook pageCount fileIds duplicateFileIds problems extra } } }`;

export interface Row {
  key: string;
  kind: string;
  number: string;
  title: string;
  owned: boolean;
  ownedText: string;
  monitored: boolean;
  pageCount: number | null;
  plan: string | null;
  planText: string | null;
  coverage: string | null;
  fileIds: number[];
  problems: string[];
  problem: boolean;
  estimateHint: string | null;
  primary: { id: string; label: string } | null;
  menu: { id: string; label: string }[];
}
export interface Page {
  seriesId: number;
  form: string;
  map: string;
  status: string | null;
  planWording: string;
  layout: string;
  notice: string | null;
  offerMapEditor: boolean;
  groups: {
    key: string;
    collapsed: boolean;
    coverText: string | null;
    note: string | null;
    duplicates: { count: number; fileIds: number[]; note: string } | null;
    book: Row;
    children: Row[];
  }[];
  sections: { key: string; title: string; rows: Row[] }[];
  loose: { key: string; title: string; children: Row[] } | null;
}

/** The page's rows in display order, as `key` strings (groups with their children, sections, the trailing group). */
export function keys(p: Page): string[] {
  const out: string[] = [];
  for (const g of p.groups) out.push(g.book.key, ...g.children.map((c) => `  ${c.key}`));
  for (const s of p.sections) out.push(`[${s.title}]`, ...s.rows.map((r) => `  ${r.key}`));
  if (p.loose) out.push(`[${p.loose.title}]`, ...p.loose.children.map((r) => `  ${r.key}`));
  return out;
}

/** File names (suffix after the title → pages) of whole chapters. */
export const chapters = (...n: (number | string)[]) =>
  Object.fromEntries(n.map((c) => [`- c${String(c).padStart(3, "0")}`, 6])) as Record<string, number>;

let seq = 0;

/** The probe kit for the app `get` returns (called in each test, after the app is up). */
export function pageProbes(get: () => TestApp) {
  /** A series made through POST /api/manga with these files (name suffix → pages) in its folder, scanned. */
  async function seriesWith(
    fields: Record<string, unknown>,
    files: Record<string, number>,
  ): Promise<{ id: number; title: string; folder: string }> {
    const title = `Page Probe ${++seq}`;
    const app = get();
    const s = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title, ...fields } }),
      201,
    );
    await mkdir(path.join(app.config.libraryRoot, s.folder), { recursive: true });
    for (const [name, pages] of Object.entries(files))
      await writeFile(path.join(app.config.libraryRoot, s.folder, `${title} ${name}.cbz`), await cbz(pages));
    expect((await scanLibrary(app)).errors).toEqual([]);
    return { id: s.id, title, folder: s.folder };
  }
  const units = async (id: number) => expectJson<RestUnits>(await get().api(`/api/manga/${id}/units`), 200);
  const putMap = async (id: number, revision: number, entries: { volume: string; chapters: string[] }[]) =>
    expectJson(await get().api(`/api/manga/${id}/chapter-map`, { method: "PUT", json: { revision, entries } }), 200);
  const patch = async (id: number, json: Record<string, unknown>) =>
    expectJson<{ form: string; form_override: string | null; plan_wording: string }>(
      await get().api(`/api/manga/${id}`, { method: "PATCH", json }),
      200,
    );
  async function page(id: number, vars: Record<string, unknown> = {}): Promise<Page> {
    const r = await get().gql<{ seriesPage: Page }>(PAGE, { id, ...vars });
    expect(r.errors).toBeUndefined();
    return r.data!.seriesPage;
  }
  /** REST units and GraphQL units agree field by field. */
  async function agree(id: number): Promise<RestUnits> {
    const rest = await units(id);
    const g = await get().gql<{ units: Record<string, unknown> & { units: Record<string, unknown>[] } }>(UNITS, { id });
    expect(g.errors).toBeUndefined();
    expect(g.data!.units).toEqual({
      seriesId: rest.series_id,
      form: gqlEnum(rest.form),
      map: gqlEnum(rest.map),
      status: gqlEnum(rest.status),
      planWording: gqlEnum(rest.plan_wording),
      units: rest.units.map(gqlUnit),
    });
    return rest;
  }
  return { seriesWith, units, putMap, patch, page, agree };
}
