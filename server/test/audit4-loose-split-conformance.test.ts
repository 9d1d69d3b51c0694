/**
 * A split chapter one of whose parts comes out degraded, probed from an empty service through the
 * public API against a Suwayomi-compatible server on 127.0.0.1: source A lists chapter 10 in two
 * parts, the second with black cards; source B lists both parts sound. Once B is linked, the chapter
 * is replaced like a whole one: every part from B, and A's parts leave the library only once both of
 * B's are published.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, useSuwayomi } from "./fixtures.ts";
import {
  chapterWithBlackCards,
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7901", name: "Part A", lang: "en" };
const B: FakeSource = { id: "7902", name: "Part B", lang: "en" };
let fake: FakeSuwayomi;
let app: TestApp;

interface Download {
  id: number;
  series_id: number;
  chapter: string | null;
  part: number | null;
  state: string;
  provider_name: string | null;
  file_id: number | null;
  replaces_file_id: number | null;
}
interface Bin {
  file_id: number;
  series_id: number;
}

beforeAll(async () => {
  fake = await startFakeSuwayomi({
    sources: [A, B],
    works: [
      fakeWork({
        id: 41,
        title: "Tern",
        source: A,
        chapters: [
          fakeChapter({ chapterNumber: 10.1, name: "Chapter 10.1", pages: await drawnChapter(8, 71) }),
          fakeChapter({ chapterNumber: 10.2, name: "Chapter 10.2", pages: await chapterWithBlackCards(25, 4, 72) }),
        ],
      }),
    ],
  });
  app = await createTestApp({ env: FAST_ENV });
  await useSuwayomi(app, fake.url);
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

describe("a degraded part of a split chapter, from outside", () => {
  it("is replaced with every part from the other source; the old parts retired once both are published", async () => {
    const id = (
      await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title: "Tern" } }), 201)
    ).id;
    const downloads = async () =>
      (await expectJson<Download[]>(await app.api(`/api/downloads`), 200))
        .filter((d) => d.series_id === id)
        .sort((a, b) => a.id - b.id);
    const settled = (rows: Download[]) =>
      rows.length > 0 && rows.every((r) => ["published", "degraded", "failed", "cancelled"].includes(r.state));
    const link = async (src: FakeSource, work: number, priority: number) =>
      expectJson(
        await app.api(`/api/manga/${id}/sources`, {
          method: "POST",
          json: { provider: src.id, source_id: String(work), language: "en", priority },
        }),
        201,
      );

    await link(A, 41, 10);
    const first = await until("A's parts settled", downloads, (r) => r.length === 2 && settled(r));
    expect(first.map((r) => [r.chapter, r.part, r.state])).toEqual([
      ["10", 1, "published"],
      ["10", 2, "degraded"],
    ]);
    const oldFiles = first.map((r) => r.file_id).filter((f): f is number => f !== null);

    // B lists both parts sound.
    const parts = [await drawnChapter(20, 81), await drawnChapter(20, 82)];
    fake.works.push(
      fakeWork({
        id: 42,
        title: "Tern",
        source: B,
        chapters: [
          fakeChapter({ chapterNumber: 10.1, name: "Chapter 10.1", pages: parts[0]! }),
          fakeChapter({ chapterNumber: 10.2, name: "Chapter 10.2", pages: parts[1]! }),
        ],
      }),
    );
    await link(B, 42, 0);
    const all = await until("B's parts settled", downloads, (r) => r.length === 4 && settled(r));

    const fromB = all.filter((r) => r.provider_name === `suwayomi:${B.id}`);
    expect(fromB.map((r) => [r.chapter, r.part, r.state])).toEqual([
      ["10", 1, "published"],
      ["10", 2, "published"],
    ]);
    // The old parts leave the library for the recycle bin: none of A's files is active any more.
    const bin = await until(
      "A's files in the recycle bin",
      async () => (await expectJson<Bin[]>(await app.api(`/api/recycle-bin`), 200)).filter((b) => b.series_id === id),
      (b) => oldFiles.every((f) => b.some((x) => x.file_id === f)),
    );
    expect(bin.map((b) => b.file_id).sort()).toEqual([...oldFiles].sort());
    const units = await expectJson<{ units: { kind: string; number: string; owned: boolean }[] }>(
      await app.api(`/api/manga/${id}/units`),
      200,
    );
    expect(units.units.filter((u) => u.kind === "chapter").map((u) => [u.number, u.owned])).toEqual([["10", true]]);
  });
});
