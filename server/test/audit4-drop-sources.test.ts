/**
 * The drop folder beside a Suwayomi source, probed from outside (an empty service, the public REST
 * API, the Suwayomi-compatible fake): the same chapter offered by both is one slot; a chapter the
 * drop folder delivers degraded (black cards over 15 %) comes from Suwayomi instead, and one Suwayomi
 * delivers degraded comes from the drop folder once a file for it is put there.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, zipBuffer, type RestUnits } from "./fixtures.ts";
import {
  chapterWithBlackCards,
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakePage,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const S: FakeSource = { id: "7301", name: "Lamp Scans", lang: "en" };
interface RestDownload {
  chapter: string | null;
  state: string;
  provider_name: string | null;
}
const cbzOf = (pages: FakePage[]) =>
  zipBuffer(pages.map((p, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data: p.bytes })));
const finished = ["published", "degraded", "failed", "cancelled"];

describe("the drop folder and a Suwayomi source on one series", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  const title = "Lantern Row";
  beforeAll(async () => {
    fake = await startFakeSuwayomi({
      sources: [S],
      works: [
        fakeWork({
          id: 931,
          title,
          source: S,
          chapters: [
            fakeChapter({ chapterNumber: 1, pages: await drawnChapter(6, 101) }),
            fakeChapter({ chapterNumber: 2, pages: await drawnChapter(6, 102) }),
            fakeChapter({ chapterNumber: 3, pages: await drawnChapter(6, 103) }),
            // 4 of 25 black cards (16 %): degraded.
            fakeChapter({ chapterNumber: 4, pages: await chapterWithBlackCards(25, 4, 104) }),
          ],
        }),
      ],
    });
    app = await createTestApp({ env: { ...FAST_ENV } });
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("one slot per chapter; a degraded chapter from either source is replaced from the other", async () => {
    const work = path.join(app.config.dropFolder, title);
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, `${title} c001.cbz`), await cbzOf(await drawnChapter(5, 1)));
    await writeFile(path.join(work, `${title} - Chapter 2 [Lamp].cbz`), await cbzOf(await drawnChapter(5, 2)));
    // 4 of 25 black cards (16 %): degraded. Exactly 15 % would pass.
    await writeFile(path.join(work, `${title} v01 c003.cbz`), await cbzOf(await chapterWithBlackCards(25, 4, 3)));

    const s = await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title } }), 201);
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
    // Both linked before any pass can run: the drop folder first (higher priority), Suwayomi second.
    for (const [provider, sourceId, priority] of [
      ["drop-folder", title, 10],
      [S.id, "931", 0],
    ] as const)
      await expectJson(
        await app.api(`/api/manga/${s.id}/sources`, {
          method: "POST",
          json: { provider, source_id: sourceId, language: "en", priority },
        }),
        201,
      );
    const downloads = async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${s.id}/downloads`), 200);
    const outcome = (rows: RestDownload[], n: string) =>
      rows
        .filter((r) => r.chapter === n)
        .map((r) => `${r.provider_name === "drop-folder" ? "drop" : "suwayomi"} ${r.state}`)
        .sort();
    let rows = await until(
      "chapters 1–3 published, 4 degraded",
      downloads,
      (r) =>
        r.every((d) => finished.includes(d.state)) &&
        ["1", "2", "3"].every((n) => r.some((d) => d.chapter === n && d.state === "published")) &&
        r.some((d) => d.chapter === "4"),
      60_000,
    );
    expect(outcome(rows, "1")).toEqual(["drop published"]);
    expect(outcome(rows, "2")).toEqual(["drop published"]);
    expect(outcome(rows, "3")).toEqual(["drop degraded", "suwayomi published"]);
    expect(outcome(rows, "4")).toEqual(["suwayomi degraded"]);
    const u = await expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
    expect(u.units.filter((x) => x.kind === "chapter").map((x) => `${x.number}${x.owned ? "" : "?"}`)).toEqual([
      "1",
      "2",
      "3",
      "4?",
    ]);

    // Vice versa: a file for chapter 4 put into the drop folder replaces Suwayomi's degraded one.
    await writeFile(path.join(work, `${title} c004.cbz`), await cbzOf(await drawnChapter(5, 4)));
    await expectJson(await app.api(`/api/manga/${s.id}/sources/refresh`, { method: "POST" }), 200);
    await expectJson(await app.api(`/api/manga/${s.id}/wanted/run`, { method: "POST" }), 200);
    rows = await until(
      "chapter 4 from the drop folder",
      downloads,
      (r) => r.some((d) => d.chapter === "4" && d.state === "published"),
      60_000,
    );
    expect(outcome(rows, "4")).toEqual(["drop published", "suwayomi degraded"]);
    const after = await expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
    expect(after.units.filter((x) => x.kind === "chapter").map((x) => `${x.number}${x.owned ? "" : "?"}`)).toEqual([
      "1",
      "2",
      "3",
      "4",
    ]);
  });
});
