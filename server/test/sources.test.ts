/**
 * Providers, source mappings and source settings through the real app: REST and GraphQL against a
 * Suwayomi-compatible server on 127.0.0.1 (test/fakes/suwayomi-server.ts) and a real drop folder.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawnPages } from "../src/library/test-pages.ts";
import { restMapping } from "../src/http/rest-sources.ts";
import { SUWAYOMI_PASSWORD_SECRET } from "../src/services/acquisition/source-settings.ts";
import type { MappingView } from "../src/services/acquisition/sources-service.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakePage,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { expectJson, expectProblem, zipBuffer } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SOURCE = "2499283573021220255";
const MAPPING_FIELDS =
  "id seriesId providerId provider providerKind displayName sourceId language priority state offers available health { status recent published degraded failed lastProblemAt }";

interface RestMapping {
  id: number;
  provider: string;
  source_id: string;
  language: string;
  priority: number;
  offers: number;
  state: string;
  display_name: string;
  available: boolean;
  health: { status: string };
}

/** The GraphQL mapping in REST's shape (the REST route's own renaming), to compare the two answers field by field. */
function asRest(m: Record<string, unknown>) {
  const h = m.health as Record<string, unknown>;
  const lastProblemAt = typeof h.lastProblemAt === "string" ? new Date(h.lastProblemAt) : null;
  return restMapping({
    ...m,
    health: { ...h, status: String(h.status).toLowerCase(), lastProblemAt },
  } as unknown as MappingView);
}

describe("source mappings", () => {
  let app: TestApp;
  let fake: FakeSuwayomi;
  let pages: FakePage[];
  let seriesId: number;

  beforeAll(async () => {
    pages = await drawnChapter(2, 3);
    fake = await startFakeSuwayomi({
      auth: { username: "reader", password: "s3cret-pw" },
      works: [
        fakeWork({
          id: 41,
          title: "Blue Harbor",
          chapters: [
            fakeChapter({ id: 4100, chapterNumber: 0, name: "Chapter 0", pages }),
            fakeChapter({ id: 4101, chapterNumber: 4.5, name: "Ch.4.5", scanlator: "Team A", pages }),
            fakeChapter({ id: 4102, chapterNumber: 10, name: "Vol.2 Ch.10", scanlator: "Team A", pages }),
            fakeChapter({ id: 4103, chapterNumber: 10, name: "Vol.2 Ch.10", scanlator: "Team B", pages }),
            fakeChapter({ id: 4104, chapterNumber: -1, name: "Oneshot", pages }),
          ],
        }),
        fakeWork({ id: 42, title: "Blue Harbor (Official)" }),
      ],
    });
    app = await createTestApp();
    seriesId = (
      await expectJson<{ id: number }>(
        // Not monitored: linking runs a Wanted pass, and a download finishing between two reads of
        // the mappings would change their health (this suite is about the mappings, not downloads).
        await app.api("/api/manga", { method: "POST", json: { title: "Blue Harbor", monitored: false } }),
        201,
      )
    ).id;
    // The drop folder: one work with two chapters.
    const work = path.join(app.config.dropFolder, "Blue Harbor");
    await mkdir(work, { recursive: true });
    const imgs = await drawnPages(2, 9, { width: 200, height: 290 });
    for (const n of ["011", "012"])
      await writeFile(
        path.join(work, `Blue Harbor - c${n}.cbz`),
        await zipBuffer(imgs.map((data, i) => ({ name: `${i + 1}.jpg`, data }))),
      );
  });
  afterAll(async () => {
    await app.dispose();
    await fake.close();
  });

  it("settings: Suwayomi off by default, the password stored only in the secrets file and masked", async () => {
    const initial = await expectJson<Record<string, Record<string, unknown>>>(
      await app.api("/api/settings/sources"),
      200,
    );
    expect(initial.suwayomi).toMatchObject({
      enabled: false,
      url: null,
      auth: "none",
      password: null,
      password_set: false,
      configured: false,
    });
    expect(initial.drop_folder?.path).toBe(app.config.dropFolder);
    await expectProblem(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, auth: "basic", url: fake.url } },
      }),
      400,
      "invalid_field",
    );
    await expectProblem(
      await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: { url: "ftp://x" } } }),
      400,
      "invalid_field",
    );

    const put = await expectJson<Record<string, Record<string, unknown>>>(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: {
          suwayomi: { enabled: true, url: `${fake.url}/`, auth: "basic", username: "reader", password: "s3cret-pw" },
        },
      }),
      200,
    );
    expect(put.suwayomi).toEqual({
      enabled: true,
      url: fake.url,
      auth: "basic",
      username: "reader",
      password: "••••",
      password_set: true,
      configured: true,
    });
    const raw = await app.api("/api/settings/sources").then((r) => r.text());
    expect(raw).not.toContain("s3cret-pw");
    const row = await app.ctx.db.setting.findUnique({ where: { key: "sources" } });
    expect(row?.value).not.toContain("s3cret-pw");
    expect(
      JSON.parse(await readFile(path.join(app.config.dataDir, "secrets.json"), "utf8")).integrations[
        SUWAYOMI_PASSWORD_SECRET
      ],
    ).toBe("s3cret-pw");
    // Sending the mask back keeps the password.
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { password: "••••", username: "reader" } },
      }),
      200,
    );
    expect(app.ctx.secrets.getIntegrationSecret(SUWAYOMI_PASSWORD_SECRET)).toBe("s3cret-pw");

    const g = await app.gql<{ sourceSettings: Record<string, unknown> }>(
      "{ sourceSettings { dropFolderPath suwayomi { enabled url auth username password passwordSet configured } } }",
    );
    expect(g.data?.sourceSettings).toEqual({
      dropFolderPath: app.config.dropFolder,
      suwayomi: {
        enabled: true,
        url: fake.url,
        auth: "BASIC",
        username: "reader",
        password: "••••",
        passwordSet: true,
        configured: true,
      },
    });
    // The GraphQL mutation is the same service: clearing the password through it shows in REST.
    const u = await app.gql<{ updateSourceSettings: { suwayomi: { passwordSet: boolean; password: string | null } } }>(
      "mutation { updateSourceSettings(input: { suwayomi: { auth: NONE, password: null } }) { suwayomi { passwordSet password } } }",
    );
    expect(u.data?.updateSourceSettings.suwayomi).toEqual({ passwordSet: false, password: null });
    expect(
      (
        await expectJson<{ suwayomi: { password_set: boolean; auth: string } }>(
          await app.api("/api/settings/sources"),
          200,
        )
      ).suwayomi,
    ).toMatchObject({ password_set: false, auth: "none" });
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { auth: "basic", password: "s3cret-pw" } },
      }),
      200,
    );
  });

  it("lists Suwayomi sources by language; the drop folder is always a provider", async () => {
    expect(await expectJson(await app.api("/api/providers/suwayomi/sources?lang=en"), 200)).toEqual([
      { id: SOURCE, name: "MangaDex", lang: "en" },
    ]);
    const providers = await expectJson<{ name: string; kind: string; available: boolean }[]>(
      await app.api("/api/providers"),
      200,
    );
    expect(providers.map((p) => [p.name, p.kind, p.available])).toEqual([["drop-folder", "drop_folder", true]]);
  });

  it("searches: candidates only, nothing linked by the search", async () => {
    const body = await expectJson<{ provider: string; works: { source_id: string; title: string; linked: boolean }[] }>(
      await app.api(`/api/manga/${seriesId}/sources/search`, {
        method: "POST",
        json: { provider: SOURCE, query: "blue harbor" },
      }),
      200,
    );
    expect(body.provider).toBe(`suwayomi:${SOURCE}`);
    expect(body.works.map((w) => [w.source_id, w.title, w.linked])).toEqual([
      ["41", "Blue Harbor", false],
      ["42", "Blue Harbor (Official)", false],
    ]);
    expect(await expectJson(await app.api(`/api/manga/${seriesId}/sources`), 200)).toEqual([]);
    const g = await app.gql<{
      searchSources: { provider: string; works: { sourceId: string; title: string; linked: boolean }[] };
    }>(
      `mutation($s: Int!, $p: String!) { searchSources(seriesId: $s, provider: $p, query: "blue harbor") { provider works { sourceId title linked } } }`,
      { s: seriesId, p: SOURCE },
    );
    expect(g.data?.searchSources.works.map((w) => [w.sourceId, w.title, w.linked])).toEqual(
      body.works.map((w) => [w.source_id, w.title, w.linked]),
    );
    // Without a query the series title is searched.
    const drop = await expectJson<{ works: { source_id: string }[] }>(
      await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: "drop-folder" } }),
      200,
    );
    expect(drop.works.map((w) => w.source_id)).toEqual(["Blue Harbor"]);
    await expectProblem(
      await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: "nope" } }),
      404,
      "provider_not_found",
    );
    await expectProblem(
      await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: "123" } }),
      404,
      "provider_not_found",
    );
  });

  it("links the confirmed works and refreshes their offers: exact numbers, both scanlators, unnumbered kept apart", async () => {
    const linked = await expectJson<{
      mapping: RestMapping;
      refresh: { status: string; offers: number; added: number };
    }>(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider: SOURCE, source_id: "41", language: "en", priority: 5 },
      }),
      201,
    );
    expect(linked.mapping).toMatchObject({
      provider: `suwayomi:${SOURCE}`,
      source_id: "41",
      language: "en",
      priority: 5,
      offers: 5,
      state: "active",
      display_name: "MangaDex (en)",
      available: true,
    });
    expect(linked.refresh).toMatchObject({ status: "ok", offers: 5, added: 5 });
    const offers = await app.ctx.db.offer.findMany({
      where: { sourceMappingId: linked.mapping.id },
      orderBy: { id: "asc" },
    });
    expect(
      offers.map((o) => [o.externalId, o.kind, o.chapter, o.volume, o.scanlator, o.language, o.pageCount]),
    ).toEqual([
      ["4100", "chapter", "0", null, null, "en", 2],
      ["4101", "chapter", "4.5", null, "Team A", "en", 2],
      ["4102", "chapter", "10", "2", "Team A", "en", 2],
      ["4103", "chapter", "10", "2", "Team B", "en", 2],
      ["4104", "chapter", null, null, null, "en", 2],
    ]);
    const dropLink = await expectJson<{ mapping: RestMapping }>(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: "Blue Harbor", language: "en" },
      }),
      201,
    );
    expect(dropLink.mapping.offers).toBe(2);
    // Linking again is idempotent.
    const again = await expectJson<{ mapping: RestMapping }>(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider: SOURCE, source_id: "41", language: "en" },
      }),
      201,
    );
    expect(again.mapping.id).toBe(linked.mapping.id);
    await expectProblem(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider: SOURCE, source_id: "41", language: "English" },
      }),
      400,
      "invalid_field",
    );
  });

  it("lists mappings by priority and sets a priority; REST and GraphQL agree", async () => {
    const rest = await expectJson<RestMapping[]>(await app.api(`/api/manga/${seriesId}/sources`), 200);
    expect(rest.map((m) => [m.provider, m.priority, m.health.status])).toEqual([
      [`suwayomi:${SOURCE}`, 5, "unknown"],
      ["drop-folder", 0, "unknown"],
    ]);
    const g = await app.gql<{ sourceMappings: Record<string, unknown>[] }>(
      `query($s: Int!) { sourceMappings(seriesId: $s) { ${MAPPING_FIELDS} } }`,
      { s: seriesId },
    );
    expect(g.data?.sourceMappings.map(asRest)).toEqual(rest);

    const drop = rest[1]!;
    const patched = await expectJson<RestMapping>(
      await app.api(`/api/manga/${seriesId}/sources/${drop.id}`, { method: "PATCH", json: { priority: 9 } }),
      200,
    );
    expect(patched.priority).toBe(9);
    const viaGql = await app.gql<{ setSourcePriority: Record<string, unknown> }>(
      `mutation($s: Int!, $m: Int!) { setSourcePriority(seriesId: $s, mappingId: $m, priority: 10) { ${MAPPING_FIELDS} } }`,
      { s: seriesId, m: drop.id },
    );
    expect(asRest(viaGql.data!.setSourcePriority)).toEqual({ ...patched, priority: 10 });
    await expectProblem(
      await app.api(`/api/manga/${seriesId}/sources/${drop.id}`, { method: "PATCH", json: { priority: 1.5 } }),
      400,
      "invalid_field",
    );
    await expectProblem(
      await app.api(`/api/manga/${seriesId}/sources/99999`, { method: "PATCH", json: { priority: 1 } }),
      404,
      "mapping_not_found",
    );
    const bad = await app.gql(
      `mutation($s: Int!) { setSourcePriority(seriesId: $s, mappingId: 99999, priority: 1) { id } }`,
      { s: seriesId },
    );
    expect(bad.errors?.[0]?.extensions?.code).toBe("mapping_not_found");
  });

  it("keeps one provider row per Suwayomi source; REST and GraphQL agree", async () => {
    const rest = await expectJson<Record<string, unknown>[]>(await app.api("/api/providers"), 200);
    expect(rest.map((p) => [p.name, p.kind, p.display_name, p.language, p.base_url, p.available])).toEqual([
      ["drop-folder", "drop_folder", "Drop folder", null, null, true],
      [`suwayomi:${SOURCE}`, "suwayomi", "MangaDex (en)", "en", fake.url, true],
    ]);
    const g = await app.gql<{ providers: Record<string, unknown>[] }>(
      "{ providers { id name kind displayName language baseUrl enabled priority available } }",
    );
    expect(
      g.data?.providers.map((p) => ({
        id: p.id,
        name: p.name,
        kind: p.kind,
        display_name: p.displayName,
        language: p.language,
        base_url: p.baseUrl,
        enabled: p.enabled,
        priority: p.priority,
        available: p.available,
      })),
    ).toEqual(rest);
  });

  it("refresh: new, changed and removed chapters; unavailable provider keeps its offers", async () => {
    const work = fake.works[0]!;
    work.chapters.push(fakeChapter({ id: 4105, chapterNumber: 11, name: "Vol.2 Ch.11", pages }));
    work.chapters.splice(0, 1); // chapter 0 withdrawn by the source
    const r = await expectJson<{
      mappings: { provider: string; status: string; added: number; removed: number; offers: number }[];
    }>(await app.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }), 200);
    const suw = r.mappings.find((m) => m.provider.startsWith("suwayomi"));
    expect(suw).toMatchObject({ status: "ok", added: 1, removed: 1, offers: 5 });
    const g = await app.gql<{
      refreshSources: { mappings: { provider: string; status: string; added: number; removed: number }[] };
    }>(`mutation($s: Int!) { refreshSources(seriesId: $s) { mappings { provider status added removed } } }`, {
      s: seriesId,
    });
    expect(g.data?.refreshSources.mappings.every((m) => m.status === "OK" && m.added === 0 && m.removed === 0)).toBe(
      true,
    );

    // Suwayomi disabled: its mapping is unavailable, its offers stay as they were.
    await expectJson(
      await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: { enabled: false } } }),
      200,
    );
    const off = await expectJson<{ mappings: { provider: string; status: string; offers: number }[] }>(
      await app.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }),
      200,
    );
    expect(off.mappings.find((m) => m.provider.startsWith("suwayomi"))).toMatchObject({
      status: "unavailable",
      offers: 5,
    });
    await expectProblem(
      await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: SOURCE } }),
      409,
      "provider_unavailable",
    );
    await expectProblem(await app.api("/api/providers/suwayomi/sources"), 409, "provider_unavailable");
    expect((await app.services.sources.list(seriesId)).find((m) => m.provider.startsWith("suwayomi"))?.available).toBe(
      false,
    );
    await expectJson(
      await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: { enabled: true } } }),
      200,
    );

    // A failing server is reported, not thrown, and the offers stay.
    fake.setFailure({ target: "graphql", status: 503, times: 1 });
    const failed = await app.services.sources.refresh(seriesId);
    expect(failed.mappings.find((m) => m.provider.startsWith("suwayomi"))).toMatchObject({
      status: "failed",
      offers: 5,
    });
  });

  it("a rejected mapping is never refreshed nor linked again", async () => {
    const mappings = await app.services.sources.list(seriesId);
    const suw = mappings.find((m) => m.provider.startsWith("suwayomi"))!;
    // As the audit's rejectSource records it: rejection row, mapping and offers removed.
    await app.ctx.db.$transaction([
      app.ctx.db.sourceRejection.create({
        data: { seriesId, providerId: suw.providerId, sourceId: suw.sourceId, reason: "wrong work" },
      }),
      app.ctx.db.offer.deleteMany({ where: { sourceMappingId: suw.id } }),
      app.ctx.db.sourceMapping.delete({ where: { id: suw.id } }),
    ]);
    const before = fake.requests.length;
    const r = await app.services.sources.refresh(seriesId);
    expect(r.mappings.map((m) => m.provider)).toEqual(["drop-folder"]);
    expect(fake.requests.slice(before).filter((q) => q.includes("fetchMangaAndChapters"))).toEqual([]);
    expect(await app.ctx.db.offer.count({ where: { seriesId, sourceMapping: { providerId: suw.providerId } } })).toBe(
      0,
    );
    const p = await expectProblem(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider: SOURCE, source_id: "41", language: "en" },
      }),
      409,
      "source_rejected",
    );
    expect(p.detail).toContain("wrong work");
    const g = await app.gql(
      `mutation($s: Int!, $p: String!) { linkSource(seriesId: $s, provider: $p, sourceId: "41", language: "en") { mapping { id } } }`,
      { s: seriesId, p: SOURCE },
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("source_rejected");
    const search = await app.services.sources.search(seriesId, { provider: SOURCE, query: "blue" });
    expect(search.works.find((w) => w.sourceId === "41")).toMatchObject({ rejected: true, linked: false });
  });

  it("answers 404 for an unknown series on every route", async () => {
    await expectProblem(await app.api("/api/manga/99999/sources"), 404, "series_not_found");
    await expectProblem(await app.api("/api/manga/99999/sources/refresh", { method: "POST" }), 404, "series_not_found");
  });
});
