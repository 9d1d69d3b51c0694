/**
 * Which of a source's chapters become slots, from an empty service through the public API only
 * (REST; GraphQL for the settings) with a Suwayomi-compatible server on 127.0.0.1: chapters in a
 * language that is neither the series' nor a download language make no slot; once the operator adds
 * that language to the download languages, the next pass makes them slots and fetches them; a series
 * that is not monitored gets its new slots unmonitored, and nothing is fetched for it; a rejected
 * source makes no slot any more, and a slot only it listed stays with the Wanted reason
 * `no_longer_listed`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, expectProblem, type RestUnits } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const FR: FakeSource = { id: "7301", name: "Scans Lumière", lang: "fr" };
const EN: FakeSource = { id: "7302", name: "Lamp Scans", lang: "en" };
const WRONG: FakeSource = { id: "7303", name: "Wrong Shelf", lang: "en" };

describe("slots from the sources: languages, the monitored flag, rejection", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;

  const create = async (title: string, json: Record<string, unknown> = {}) =>
    (await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title, ...json } }), 201))
      .id;
  const chapters = async (id: number) =>
    (await expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200)).units.filter(
      (u) => u.kind === "chapter",
    );
  async function link(id: number, source: FakeSource, title: string, language: string): Promise<number> {
    const found = await expectJson<{ works: { source_id: string; title: string }[] }>(
      await app.api(`/api/manga/${id}/sources/search`, { method: "POST", json: { provider: source.id } }),
      200,
    );
    const work = found.works.find((w) => w.title === title)!;
    const linked = await expectJson<{ refresh: { offers: number } }>(
      await app.api(`/api/manga/${id}/sources`, {
        method: "POST",
        json: { provider: source.id, source_id: work.source_id, language },
      }),
      201,
    );
    return linked.refresh.offers;
  }

  beforeAll(async () => {
    const three = async (seed: number) =>
      Promise.all(
        [1, 2, 3].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(3, seed + n) })),
      );
    fake = await startFakeSuwayomi({
      works: [
        fakeWork({ id: 931, title: "Paper Lantern", source: FR, chapters: await three(10) }),
        fakeWork({ id: 932, title: "Quiet Lamp", source: EN, chapters: await three(20) }),
        fakeWork({ id: 933, title: "Drift Lamp", source: WRONG, chapters: await three(30) }),
      ],
      sources: [FR, EN, WRONG],
    });
    app = await createTestApp({ env: FAST_ENV });
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("has no download language by default, and refuses a malformed list through both, changing nothing", async () => {
    expect(await expectJson(await app.api("/api/settings/downloads"), 200)).toEqual({ languages: [] });
    await expectProblem(
      await app.api("/api/settings/downloads", { method: "PUT", json: { languages: ["french!"] } }),
      400,
      "invalid_field",
    );
    await expectProblem(
      await app.api("/api/settings/downloads", { method: "PUT", json: { languages: "fr" } }),
      400,
      "invalid_field",
    );
    const g = await app.gql(`mutation { updateDownloadSettings(languages: ["??"]) { languages } }`);
    expect(g.errors?.[0]?.extensions?.code).toBe("invalid_field");
    expect(await expectJson(await app.api("/api/settings/downloads"), 200)).toEqual({ languages: [] });
  });

  it("makes no slot of chapters in another language; a download language makes them slots and they arrive", async () => {
    const id = await create("Paper Lantern");
    expect(await link(id, FR, "Paper Lantern", "fr")).toBe(3);
    expect(await chapters(id)).toEqual([]);
    const idle = await expectJson<{ queued: number }>(
      await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }),
      200,
    );
    expect(idle.queued).toBe(0);

    // GraphQL sets the languages; REST reads the same.
    const g = await app.gql<{ updateDownloadSettings: { languages: string[] } }>(
      `mutation { updateDownloadSettings(languages: ["fr", "fr"]) { languages } }`,
    );
    expect(g.data?.updateDownloadSettings).toEqual({ languages: ["fr"] });
    expect(await expectJson(await app.api("/api/settings/downloads"), 200)).toEqual({ languages: ["fr"] });
    const read = await app.gql<{ downloadSettings: unknown }>(`{ downloadSettings { languages } }`);
    expect(read.data?.downloadSettings).toEqual({ languages: ["fr"] });

    const pass = await expectJson<{ queued: number }>(
      await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }),
      200,
    );
    expect((await chapters(id)).map((u) => [u.number, u.monitored])).toEqual([
      ["1", true],
      ["2", true],
      ["3", true],
    ]);
    expect(pass.queued).toBe(3);
    await until(
      "the French chapters on disk",
      () => chapters(id),
      (u) => u.every((x) => x.owned),
      60_000,
    );
  });

  it("gives the new slots of a series that is not monitored its flag: listed, unmonitored, not fetched", async () => {
    const id = await create("Quiet Lamp", { monitored: false });
    expect(await link(id, EN, "Quiet Lamp", "en")).toBe(3);
    expect((await chapters(id)).map((u) => [u.number, u.monitored, u.owned])).toEqual([
      ["1", false, false],
      ["2", false, false],
      ["3", false, false],
    ]);
    const pass = await expectJson<{ queued: number }>(
      await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }),
      200,
    );
    expect(pass.queued).toBe(0);
    expect(await expectJson<unknown[]>(await app.api(`/api/manga/${id}/downloads`), 200)).toEqual([]);
  });

  it("a rejected source makes no slot; the slots only it listed stay, and the pass says no source lists them", async () => {
    const id = await create("Drift Lamp", { monitored: false });
    expect(await link(id, WRONG, "Drift Lamp", "en")).toBe(3);
    expect((await chapters(id)).map((u) => u.number)).toEqual(["1", "2", "3"]);

    // The operator finds it is another work: rejected through the audit (preview, then confirm).
    const [mapping] = await expectJson<{ provider: string; source_id: string }[]>(
      await app.api(`/api/manga/${id}/sources`),
      200,
    );
    const preview = await expectJson<{ confirmation: string }>(
      await app.api(`/api/manga/${id}/audit/reject-source/preview`, {
        method: "POST",
        json: { provider: mapping!.provider, source_id: mapping!.source_id, reason: "another work" },
      }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${id}/audit/reject-source`, {
        method: "POST",
        json: { confirmation: preview.confirmation },
      }),
      200,
    );

    // A new chapter at the rejected source: a refresh makes no slot of it.
    fake.works
      .find((w) => w.id === 933)!
      .chapters.push(fakeChapter({ chapterNumber: 4, pages: await drawnChapter(3, 34) }));
    await expectJson(await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }), 200);
    // History is not rewritten: the three slots stay.
    expect((await chapters(id)).map((u) => u.number)).toEqual(["1", "2", "3"]);

    // The series monitored again and chapter 2 by hand: it is wanted, and the ledger says no source
    // lists it any more (chapters 1 and 3 stay unmonitored).
    await expectJson(await app.api(`/api/manga/${id}`, { method: "PATCH", json: { monitored: true } }), 200);
    await expectJson(
      await app.api(`/api/manga/${id}/monitoring`, {
        method: "PUT",
        json: { kind: "chapter", number: "2", monitored: true },
      }),
      200,
    );
    const pass = await expectJson<{
      queued: number;
      ledger: { entries: { kind: string; number: string; reason: string }[] };
    }>(await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }), 200);
    expect(pass.queued).toBe(0);
    expect(pass.ledger.entries.map((e) => [e.kind, e.number, e.reason])).toEqual([
      ["chapter", "2", "no_longer_listed"],
    ]);
  });
});
