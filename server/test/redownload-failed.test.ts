/**
 * A download that fails for good brings the next Wanted pass forward, as the *arr apps' "redownload
 * failed" does: once the series has no download under way, the chapter comes from the other linked
 * source without waiting for the scheduled pass (an hour here); a release no other source offers is
 * not asked for again before the scheduled pass. From an empty service, through the public REST API
 * and a Suwayomi-compatible server on 127.0.0.1.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { cbz, chapterFileName, expectJson, type RestUnits } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  heldPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7301", name: "First Harbor", lang: "en" };
const B: FakeSource = { id: "7302", name: "Second Harbor", lang: "en" };

interface RestDownload {
  id: number;
  chapter: string | null;
  state: string;
  provider_name: string | null;
}
interface RestLedger {
  empty_passes: number;
  next_pass_at: string | null;
  entries: { number: string; reason: string }[];
}

async function seriesFolder(app: TestApp, title: string): Promise<number> {
  const dir = path.join(app.config.libraryRoot, title);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, chapterFileName(title, 1)), await cbz(6));
  await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
  const list = await expectJson<{ id: number; title: string }[]>(await app.api("/api/manga"), 200);
  return list.find((s) => s.title === title)!.id;
}

async function link(app: TestApp, seriesId: number, source: FakeSource, title: string, priority: number) {
  const found = await expectJson<{ works: { source_id: string; title: string }[] }>(
    await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: source.id } }),
    200,
  );
  const work = found.works.find((w) => w.title === title)!;
  await expectJson(
    await app.api(`/api/manga/${seriesId}/sources`, {
      method: "POST",
      json: { provider: source.id, source_id: work.source_id, language: "en", priority },
    }),
    201,
  );
}

const downloads = async (app: TestApp, id: number) =>
  expectJson<RestDownload[]>(await app.api(`/api/manga/${id}/downloads`), 200);
const outcome = (rows: RestDownload[], n: string) =>
  rows
    .filter((r) => r.chapter === n)
    .sort((a, b) => a.id - b.id)
    .map((r) => `${r.provider_name === `suwayomi:${A.id}` ? "A" : "B"} ${r.state}`);

describe("a download that failed for good", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  let release!: () => void;
  let releaseThree!: () => void;
  beforeAll(async () => {
    const held = new Promise<void>((r) => (release = r));
    const heldThree = new Promise<void>((r) => (releaseThree = r));
    const [a2, a3, b2, c2] = await Promise.all([
      drawnChapter(5, 20),
      drawnChapter(5, 23),
      drawnChapter(5, 21),
      drawnChapter(5, 22),
    ]);
    fake = await startFakeSuwayomi({
      sources: [A, B],
      works: [
        // Chapter 2 at A: its first page is held until the test lets it go, then refused (404).
        // Chapter 3 at A: its last page is held until the test lets it go.
        fakeWork({
          id: 931,
          title: "Quay Lights",
          source: A,
          chapters: [
            fakeChapter({ chapterNumber: 2, pages: [heldPage(flakyPage(a2[0]!, 1, 404), held), ...a2.slice(1)] }),
            fakeChapter({ chapterNumber: 3, pages: [...a3.slice(0, 4), heldPage(a3[4]!, heldThree)] }),
          ],
        }),
        fakeWork({
          id: 932,
          title: "Quay Lights",
          source: B,
          chapters: [fakeChapter({ chapterNumber: 2, pages: b2 })],
        }),
        // Only A lists this series' chapter 2, and its first page is always refused.
        fakeWork({
          id: 933,
          title: "Dry Dock",
          source: A,
          chapters: [fakeChapter({ chapterNumber: 2, pages: [flakyPage(c2[0]!, 1_000, 404), ...c2.slice(1)] })],
        }),
      ],
    });
    // The scheduled pass only after an hour: whatever follows a failure is not its doing.
    app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "3600" } });
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
  });
  afterAll(async () => {
    release?.();
    releaseThree?.();
    await app?.dispose();
    await fake?.close();
  });

  it("is followed by the other source's release once the series' queue is empty", async () => {
    const id = await seriesFolder(app, "Quay Lights");
    // A first (higher priority): its pass queues chapters 2 and 3 from A, both held at the source.
    await link(app, id, A, "Quay Lights", 10);
    await until(
      "chapters 2 and 3 fetching from A",
      () => downloads(app, id),
      (rows) => outcome(rows, "2").join() === "A fetching" && outcome(rows, "3").join() === "A fetching",
      20_000,
    );
    // B's link runs a pass too; chapter 2 is under way from A, so nothing more is queued.
    await link(app, id, B, "Quay Lights", 0);
    expect(outcome(await downloads(app, id), "2")).toEqual(["A fetching"]);

    // Chapter 2 fails for good while chapter 3 is still under way: the pass waits for it.
    release();
    await until(
      "chapter 2 failed at A",
      () => downloads(app, id),
      (r) => outcome(r, "2").join() === "A failed",
      20_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(outcome(await downloads(app, id), "2")).toEqual(["A failed"]);

    // Chapter 3 arrives; with nothing under way the pass runs, and B's chapter 2 follows.
    releaseThree();
    const rows = await until(
      "chapter 2 published from B",
      () => downloads(app, id),
      (r) => outcome(r, "2").includes("B published"),
      30_000,
    );
    expect(outcome(rows, "2")).toEqual(["A failed", "B published"]);
    expect(outcome(rows, "3")).toEqual(["A published"]);
    const units = await expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
    const owned = units.units.filter((u) => u.kind === "chapter" && u.owned).map((u) => u.number);
    expect(owned).toEqual(["1", "2", "3"]);
  });

  it("is not asked for again before the scheduled pass when no other source offers it", async () => {
    const id = await seriesFolder(app, "Dry Dock");
    await link(app, id, A, "Dry Dock", 0);
    await until(
      "chapter 2 failed at A",
      () => downloads(app, id),
      (r) => outcome(r, "2").join() === "A failed",
      30_000,
    );
    // A pass could only try the failed release again: none runs, and the ledger keeps the link's
    // pass, whose download failed.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(outcome(await downloads(app, id), "2")).toEqual(["A failed"]);
    const ledger = await expectJson<RestLedger>(await app.api(`/api/manga/${id}/wanted`), 200);
    expect(ledger.entries.map((e) => [e.number, e.reason])).toEqual([["2", "queued"]]);
  });
});
