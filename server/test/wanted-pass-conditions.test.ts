/**
 * A pass asked for on a condition (a download's end: "no download of the series under way, and the
 * last pass held some back") checks it under the series' pass lock. Two downloads that end at
 * once both see none under way; the second one's pass must see what the first one's pass queued,
 * or it queues past the pass's limit what was meant for the next pass. A Suwayomi-compatible
 * server on 127.0.0.1; the download workers are stopped so the queued rows stay queued.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeDownloads } from "../src/repositories/audit-repo.ts";
import { FAST_ENV, firstPassLedger } from "./downloads-fixtures.ts";
import { createSeries, linkSources, useSuwayomi } from "./fixtures.ts";
import { drawnChapter, fakeChapter, fakeWork, startFakeSuwayomi, type FakeSuwayomi } from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SOURCE = { id: "7501", name: "Gated Shelf", lang: "en" };
const CHAPTERS = ["1", "2", "3", "4"];

describe("a pass on a condition", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  beforeAll(async () => {
    fake = await startFakeSuwayomi({
      sources: [SOURCE],
      works: [
        fakeWork({
          id: 51,
          title: "Gate Ledger",
          source: SOURCE,
          chapters: await Promise.all(
            CHAPTERS.map(async (n) =>
              fakeChapter({ chapterNumber: Number(n), pages: await drawnChapter(2, 40 + Number(n)) }),
            ),
          ),
        }),
      ],
    });
    app = await createTestApp({ env: { ...FAST_ENV, WANTED_MAX_DOWNLOADS: "3" } });
    await app.services.downloadPipeline.stop();
    await useSuwayomi(app, fake.url);
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("two asked for at once: the second checks after the first queued, and does not run", async () => {
    const id = await createSeries(app, "Gate Ledger");
    await linkSources(app, id, [[SOURCE.id, 51, 0, "en"]]);
    await firstPassLedger(app, id);
    // Its ledger is written before it ends (the fallback and the book channel come after): let it end.
    await app.services.wanted.settle();
    // The link's pass queued three and held one back; those three are cancelled (still wanted).
    const queued = await app.ctx.db.download.findMany({ where: { seriesId: id } });
    expect(queued).toHaveLength(3);
    await app.ctx.db.download.updateMany({ where: { seriesId: id }, data: { state: "cancelled" } });
    const due = async () => (await activeDownloads(app.ctx.db, id)) === 0;
    const [first, second] = await Promise.all([
      app.services.wanted.runPass(id, { when: due }),
      app.services.wanted.runPass(id, { when: due }),
    ]);
    expect([first.queued, second.queued]).toEqual([3, 0]);
    expect(await app.ctx.db.download.count({ where: { seriesId: id, state: "queued" } })).toBe(3);
    // Without a condition the follow-up runs as before.
    const [, plain] = await Promise.all([
      app.services.wanted.runPass(id, { when: due }),
      app.services.wanted.runPass(id),
    ]);
    expect(plain.entries.map((e) => e.reason).sort()).toEqual([
      "already_queued",
      "already_queued",
      "already_queued",
      "queued",
    ]);
  });
});
