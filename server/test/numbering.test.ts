/**
 * Numbering overrides through the real service (an internal operation, no endpoint), against a
 * Suwayomi-compatible server: applied to offers, preserved by refresh, invalidated when the source
 * renumbers, withdrawn by an empty correction.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../src/config.ts";
import { schema } from "../src/graphql/schema.ts";
import { drawnChapter, fakeChapter, fakeWork, startFakeSuwayomi, type FakeSuwayomi } from "./fakes/suwayomi-server.ts";
import { appErrorOf, expectJson } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SOURCE = "2499283573021220255";

describe("numbering overrides", () => {
  let app: TestApp;
  let fake: FakeSuwayomi;
  let seriesId: number;
  let mappingId: number;

  const offerOf = async (externalId: string) =>
    app.ctx.db.offer.findUniqueOrThrow({
      where: { sourceMappingId_externalId: { sourceMappingId: mappingId, externalId } },
    });

  beforeAll(async () => {
    const pages = await drawnChapter(1, 1);
    fake = await startFakeSuwayomi({
      works: [
        fakeWork({
          id: 5,
          title: "Split Moon",
          chapters: [
            fakeChapter({ id: 501, chapterNumber: 12, name: "Ch.12", pages }),
            // The source numbers the second half of chapter 12 as 13.
            fakeChapter({ id: 502, chapterNumber: 13, name: "Ch.13", pages }),
            fakeChapter({ id: 503, chapterNumber: 14, name: "Ch.14", pages }),
          ],
        }),
      ],
    });
    app = await createTestApp();
    await app.services.sourceSettings.update({ suwayomi: { enabled: true, url: fake.url, auth: "none" } });
    seriesId = (
      await expectJson<{ id: number }>(
        await app.api("/api/manga", { method: "POST", json: { title: "Split Moon" } }),
        201,
      )
    ).id;
    mappingId = (await app.services.sources.link(seriesId, { provider: SOURCE, sourceId: "5", language: "en" })).mapping
      .id;
  });
  afterAll(async () => {
    await app.dispose();
    await fake.close();
  });

  it("applies a correction to the offer at once, with its evidence stored", async () => {
    const r = await app.services.numbering.setNumberingOverride(
      seriesId,
      mappingId,
      "502",
      "13",
      { chapter: "12", part: 2 },
      "page 1 continues chapter 12; the next release is titled chapter 13",
    );
    expect(r.action).toBe("set");
    expect(r.refresh).toMatchObject({ status: "ok", overridesApplied: 1 });
    expect(await offerOf("502")).toMatchObject({ chapter: "12", part: 2 });
    const [row] = await app.services.numbering.overridesOf(seriesId, mappingId);
    expect(row).toMatchObject({
      externalId: "502",
      observedNumber: "13",
      evidence: expect.stringContaining("continues chapter 12"),
    });
    expect(JSON.parse(row!.correction)).toEqual({ chapter: "12", part: 2 });
  });

  it("is preserved by refresh", async () => {
    const r = await app.services.sources.refresh(seriesId);
    expect(r.mappings[0]).toMatchObject({ status: "ok", overridesApplied: 1, overridesInvalidated: [] });
    expect(await offerOf("502")).toMatchObject({ chapter: "12", part: 2 });
    expect(await offerOf("503")).toMatchObject({ chapter: "14", part: null });
  });

  it("is invalidated (ignored, reported, kept) when the source renumbers the release", async () => {
    const ch = fake.works[0]!.chapters[1]!;
    ch.chapterNumber = 12.5;
    ch.name = "Ch.12.5";
    const r = await app.services.sources.refresh(seriesId);
    expect(r.mappings[0]).toMatchObject({
      overridesApplied: 0,
      overridesInvalidated: [{ externalId: "502", observedNumber: "13", sourceNumber: "12.5" }],
    });
    expect(await offerOf("502")).toMatchObject({ chapter: "12.5", part: null });
    expect(await app.services.numbering.overridesOf(seriesId, mappingId)).toHaveLength(1);
    // The source goes back to its old number: the reviewed override applies again.
    ch.chapterNumber = 13;
    ch.name = "Ch.13";
    await app.services.sources.refresh(seriesId);
    expect(await offerOf("502")).toMatchObject({ chapter: "12", part: 2 });
  });

  it("is withdrawn by an empty correction; the source's numbering returns", async () => {
    const r = await app.services.numbering.setNumberingOverride(seriesId, mappingId, "502", "13", {}, "");
    expect(r.action).toBe("withdrawn");
    expect(await offerOf("502")).toMatchObject({ chapter: "13", part: null });
    expect(await app.services.numbering.overridesOf(seriesId, mappingId)).toEqual([]);
    expect((await app.services.numbering.setNumberingOverride(seriesId, mappingId, "502", "13", null, "")).action).toBe(
      "none",
    );
  });

  it("refuses invalid input with coded errors", async () => {
    const n = app.services.numbering;
    expect((await appErrorOf(n.setNumberingOverride(seriesId, 99999, "502", "13", { chapter: "12" }, "x"))).code).toBe(
      "mapping_not_found",
    );
    expect(
      (await appErrorOf(n.setNumberingOverride(seriesId, mappingId, "502", "13", { chapter: 12 }, "x"))).code,
    ).toBe("invalid_field");
    expect(
      (await appErrorOf(n.setNumberingOverride(seriesId, mappingId, "502", "13.x", { chapter: "12" }, "x"))).code,
    ).toBe("invalid_label");
    expect(
      (await appErrorOf(n.setNumberingOverride(seriesId, mappingId, "502", "13", { chapter: "12" }, "  "))).code,
    ).toBe("invalid_field");
  });

  it("has no endpoint: neither REST nor GraphQL exposes it", () => {
    const fields = [
      ...Object.keys(schema.getQueryType()!.getFields()),
      ...Object.keys(schema.getMutationType()!.getFields()),
    ];
    expect(fields.filter((f) => /numbering|override/i.test(f))).toEqual([]);
    expect(fields).toContain("refreshSources");
    const rest = readFileSync(path.join(repoRoot, "server", "src", "http", "rest-sources.ts"), "utf8");
    expect(rest).not.toMatch(/numbering/i);
  });
});
