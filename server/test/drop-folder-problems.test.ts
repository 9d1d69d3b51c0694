/**
 * What the drop folder could not offer, and the language a dropped file's name states, probed from
 * outside: an empty service whose DROP_FOLDER is a folder written here, and only the public REST and
 * GraphQL API. A corrupt archive, an archive with an entry leaving it and a name naming a range are
 * listed as problems with stable codes (REST and GraphQL agree), never offered; the good chapters
 * arrive; a "[fr]" chapter in a work linked as English creates no English slot and is never fetched;
 * the drop folder is left byte-identical; a corrupt archive replaced by a good one leaves the problems
 * and is offered on the next refresh.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits } from "./fixtures.ts";
import { drawnCbz, folderSnapshot } from "./drop-folder-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

interface RestDownload {
  chapter: string | null;
  state: string;
}
interface Problem {
  name: string;
  code: string;
  detail: string;
}
interface RestRefresh {
  status: string;
  offers: number;
  problems: Problem[];
}

const settled = ["published", "degraded", "failed", "cancelled"];

describe("drop folder problems and name languages, from an empty service", () => {
  let app: TestApp;
  let work: string;
  let seriesId: number;
  let mappingId: number;
  const title = "Harbor Lights";

  beforeAll(async () => {
    app = await createTestApp({ env: { ...FAST_ENV } });
    work = path.join(app.config.dropFolder, title);
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, `${title} c001.cbz`), await drawnCbz(4, 1));
    await writeFile(path.join(work, `${title} - Chapter 2.cbz`), await drawnCbz(4, 2));
    // Cut short, as a copy still under way leaves it.
    await writeFile(path.join(work, `${title} c003.cbz`), (await drawnCbz(4, 3)).subarray(0, 900));
    // The zip writer refuses "../" names: the name is patched in place (local header and directory).
    const escaping = await drawnCbz(3, 4, [{ name: "QQ/QQ/escape.jpg", data: Buffer.from("secret page") }]);
    await writeFile(
      path.join(work, `${title} c004.cbz`),
      Buffer.from(escaping.toString("latin1").replaceAll("QQ/QQ/", "../../"), "latin1"),
    );
    await writeFile(path.join(work, `${title} c006-008.cbz`), await drawnCbz(3, 6));
    await writeFile(path.join(work, `${title} [fr] - c005.cbz`), await drawnCbz(4, 5));
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const problemsRest = async () =>
    expectJson<{ mapping_id: number; problems: Problem[] }>(
      await app.api(`/api/manga/${seriesId}/sources/${mappingId}/problems`),
      200,
    );
  const problemsGql = async () => {
    const g = await app.gql<{ sourceProblems: { mappingId: number; problems: Problem[] } }>(
      `query($s: Int!, $m: Int!) { sourceProblems(seriesId: $s, mappingId: $m) { mappingId problems { name code detail } } }`,
      { s: seriesId, m: mappingId },
    );
    expect(g.errors).toBeUndefined();
    return g.data!.sourceProblems;
  };
  const downloads = async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${seriesId}/downloads`), 200);
  const units = async () => expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);

  it("lists what it left out with codes (REST and GraphQL agree); the good chapters arrive, the French one is no English chapter", async () => {
    const before = await folderSnapshot(app.config.dropFolder);
    const s = await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title } }), 201);
    seriesId = s.id;
    const linked = await expectJson<{ mapping: { id: number }; refresh: RestRefresh }>(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: title, language: "en" },
      }),
      201,
    );
    mappingId = linked.mapping.id;
    // c001, Chapter 2 and the French c005 are offered; the rest is reported.
    expect(linked.refresh).toMatchObject({ status: "ok", offers: 3 });
    const expected = [
      [`${title} c003.cbz`, "archive_truncated"],
      [`${title} c004.cbz`, "archive_entry_unsafe"],
      [`${title} c006-008.cbz`, "number_range"],
    ];
    expect(linked.refresh.problems.map((p) => [p.name, p.code])).toEqual(expected);

    const rest = await problemsRest();
    expect(rest.mapping_id).toBe(mappingId);
    expect(rest.problems.map((p) => [p.name, p.code])).toEqual(expected);
    const gql = await problemsGql();
    expect(gql).toEqual({ mappingId, problems: rest.problems });
    // Names are the entry's own segment; details are sentences, never a path or the file's content.
    for (const p of rest.problems) {
      expect(p.name).not.toContain("/");
      expect(p.detail).not.toMatch(/\.\.\/|secret|escape\.jpg|\//);
      expect(p.detail.length).toBeGreaterThan(10);
    }
    // The refresh answer carries them too, through both APIs.
    const g = await app.gql<{ refreshSources: { mappings: { problems: { name: string; code: string }[] }[] } }>(
      `mutation($s: Int!) { refreshSources(seriesId: $s) { mappings { problems { name code } } } }`,
      { s: seriesId },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data!.refreshSources.mappings[0]!.problems.map((p) => [p.name, p.code])).toEqual(expected);

    await expectJson(await app.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }), 200);
    const rows = await until(
      "chapters 1 and 2 published",
      downloads,
      (r) =>
        r.every((d) => settled.includes(d.state)) &&
        ["1", "2"].every((n) => r.some((d) => d.chapter === n && d.state === "published")),
      60_000,
    );
    // The French chapter 5 is an offer in another language: no English slot, never fetched.
    expect(rows.map((r) => `${r.chapter} ${r.state}`).sort()).toEqual(["1 published", "2 published"]);
    const u = await units();
    expect(u.units.filter((x) => x.kind === "chapter").map((x) => `${x.number}${x.owned ? "" : "?"}`)).toEqual([
      "1",
      "2",
    ]);
    expect(await folderSnapshot(app.config.dropFolder)).toEqual(before);
  });

  it("a corrupt archive replaced by a good one leaves the problems at once and is offered on the next refresh", async () => {
    await writeFile(path.join(work, `${title} c003.cbz`), await drawnCbz(4, 3));
    const after = await folderSnapshot(app.config.dropFolder);
    expect((await problemsRest()).problems.map((p) => p.name)).toEqual([`${title} c004.cbz`, `${title} c006-008.cbz`]);
    expect((await problemsGql()).problems.map((p) => p.code)).toEqual(["archive_entry_unsafe", "number_range"]);

    const r = await expectJson<{ mappings: RestRefresh[] }>(
      await app.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }),
      200,
    );
    expect(r.mappings[0]).toMatchObject({ status: "ok", offers: 4 });
    expect(r.mappings[0]!.problems.map((p) => p.code)).toEqual(["archive_entry_unsafe", "number_range"]);
    await expectJson(await app.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }), 200);
    const rows = await until(
      "chapter 3 published",
      downloads,
      (x) => x.every((d) => settled.includes(d.state)) && x.some((d) => d.chapter === "3" && d.state === "published"),
      60_000,
    );
    expect(rows.map((x) => `${x.chapter} ${x.state}`).sort()).toEqual(["1 published", "2 published", "3 published"]);
    expect(await folderSnapshot(app.config.dropFolder)).toEqual(after);
  });

  it('a Brazilian work\'s "[pt-BR]" chapters are its own (the series\' regional code), an "[en]" one is not', async () => {
    const br = "Porto Azul";
    const folder = path.join(app.config.dropFolder, br);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, `${br} [pt-BR] - c001.cbz`), await drawnCbz(4, 11));
    await writeFile(path.join(folder, `${br} (Portuguese) - c002.cbz`), await drawnCbz(4, 12));
    await writeFile(path.join(folder, `${br} - c003.cbz`), await drawnCbz(4, 13));
    await writeFile(path.join(folder, `${br} [en] - c004.cbz`), await drawnCbz(4, 14));
    const s = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: br, language: "pt-BR" } }),
      201,
    );
    const linked = await expectJson<{ refresh: RestRefresh }>(
      await app.api(`/api/manga/${s.id}/sources`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: br, language: "pt-BR" },
      }),
      201,
    );
    expect(linked.refresh).toMatchObject({ status: "ok", offers: 4, problems: [] });
    await expectJson(await app.api(`/api/manga/${s.id}/wanted/run`, { method: "POST" }), 200);
    const rows = await until(
      "chapters 1–3 published",
      async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${s.id}/downloads`), 200),
      (r) => r.length >= 3 && r.every((d) => settled.includes(d.state)),
      60_000,
    );
    expect(rows.map((r) => `${r.chapter} ${r.state}`).sort()).toEqual(["1 published", "2 published", "3 published"]);
    const u = await expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
    expect(u.units.filter((x) => x.kind === "chapter").map((x) => `${x.number}${x.owned ? "" : "?"}`)).toEqual([
      "1",
      "2",
      "3",
    ]);
  });

  it("answers 404 for a mapping the series does not have, in both APIs", async () => {
    const res = await app.api(`/api/manga/${seriesId}/sources/999999/problems`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("mapping_not_found");
    const g = await app.gql(`query { sourceProblems(seriesId: ${seriesId}, mappingId: 999999) { mappingId } }`);
    expect(g.errors?.[0]?.extensions?.code).toBe("mapping_not_found");
  });
});
