/**
 * The fake Suwayomi catalogue's page helpers produce what their names promise, measured and judged by
 * the real conformity rule (so the pipeline tests built on them test the pipeline, not the fixture).
 */
import { describe, expect, it } from "vitest";
import { judgeChapter } from "../src/domain/conformity.ts";
import { statsOfPages } from "../src/library/page-stats.ts";
import { chapterWithBlackCards, drawnChapter, stripFragmentChapter, type FakePage } from "./fakes/suwayomi-server.ts";

const judge = async (pages: FakePage[]) =>
  judgeChapter(await statsOfPages(pages.map((p) => p.bytes)), { readsInPages: true, medianAspect: null });

describe("fake catalogue pages", () => {
  it("16 % black cards is degraded, 15 % is not", async () => {
    const sixteen = await chapterWithBlackCards(25, 4, 1);
    const fifteen = await chapterWithBlackCards(20, 3, 2);
    expect(sixteen).toHaveLength(25);
    expect(await judge(sixteen)).toMatchObject({
      verdict: "degraded",
      reasons: ["black_cards"],
      figures: { blackCards: 4 },
    });
    expect(await judge(fifteen)).toMatchObject({ verdict: "ok", figures: { blackCards: 3 } });
  });

  it("strip slices outnumbering drawn pages are degraded in a paged series; drawn pages pass", async () => {
    expect(await judge(await stripFragmentChapter(2, 5, 3))).toMatchObject({
      verdict: "degraded",
      reasons: ["strip_slices"],
    });
    expect(await judge(await drawnChapter(6, 4))).toMatchObject({ verdict: "ok", reasons: [] });
  });
});
