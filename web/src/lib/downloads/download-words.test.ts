import { describe, expect, it } from "vitest";
import { downloadSubject, isActive, pagesWords, stateWords, verdictSentences, withEvent } from "./download-words";

describe("download words", () => {
  it("words every state, and an unknown one as it came", () => {
    expect(stateWords("DEGRADED")).toEqual({ label: "Degraded", tone: "bad" });
    expect(stateWords("PUBLISHED").tone).toBe("good");
    expect(stateWords("WAITING").label).toBe("Waiting to retry");
    expect(stateWords("NEW_STATE").label).toBe("new_state");
  });

  it("tells active states apart", () => {
    expect(["QUEUED", "WAITING", "FETCHING", "JUDGING", "PUBLISHING"].every(isActive)).toBe(true);
    expect(["PUBLISHED", "FAILED", "DEGRADED", "CANCELLED"].some(isActive)).toBe(false);
  });

  it("explains a degraded verdict", () => {
    const figures = {
      pages: 25,
      blackCards: 4,
      blackShare: 0.16,
      maxBlackShare: 0.15,
      medianAspect: 2.9,
      stripThreshold: 2.2,
      seriesMedianAspect: 1.45,
      seriesAspectSource: "NOMINAL" as const,
    };
    expect(verdictSentences({ reasons: ["BLACK_CARDS"], figures })).toEqual([
      "4 of 25 pages are black cards (16 %, more than the 15 % allowed).",
    ]);
    expect(verdictSentences({ reasons: ["STRIP_SLICES"], figures })).toEqual([
      "The pages are slices of a long strip in a series that reads in pages (median height/width 2.90, strips from 2.20; nothing of the series is measured yet, so a printed page's 1.45 counts). If the series is a webtoon, mark it as one (Edit series… on its page): its strips are then fetched again.",
    ]);
    const onFiles = { ...figures, seriesMedianAspect: 1.6, seriesAspectSource: "FILES" as const, stripThreshold: 2.24 };
    expect(verdictSentences({ reasons: ["STRIP_SLICES"], figures: onFiles })[0]).toContain(
      "(median height/width 2.90, strips from 2.24; the series' files on disk measure 1.60)",
    );
    const onDownloads = { ...figures, seriesAspectSource: "SERIES" as const };
    expect(verdictSentences({ reasons: ["STRIP_SLICES"], figures: onDownloads })[0]).toContain(
      "; the series' earlier downloads measure 1.45)",
    );
    const unmeasured = { ...figures, medianAspect: null, seriesMedianAspect: null, seriesAspectSource: null };
    expect(verdictSentences({ reasons: ["STRIP_SLICES"], figures: unmeasured })[0]).toMatch(
      /^The pages are slices of a long strip in a series that reads in pages\. If/,
    );
    expect(verdictSentences({ reasons: ["OTHER_THING"], figures })[0]).toBe("Failed the content check (other thing).");
  });

  it("names the subject and the pages", () => {
    expect(downloadSubject({ kind: "CHAPTER", chapter: "12.5", volume: null, part: null })).toBe("Chapter 12.5");
    expect(downloadSubject({ kind: "CHAPTER", chapter: "36", volume: "5", part: 2 })).toBe("Chapter 36 part 2");
    expect(downloadSubject({ kind: "VOLUME", chapter: null, volume: "3", part: null })).toBe("Book 3");
    expect(pagesWords(3, 10)).toBe("3 of 10 pages");
    expect(pagesWords(10, 10)).toBe("10 pages");
    expect(pagesWords(0, null)).toBeNull();
    expect(pagesWords(4, null)).toBe("4 pages");
  });

  it("applies a live event to its own row only", () => {
    const row = { id: 3, state: "QUEUED", pagesDone: 0, pagesTotal: null, error: null, extra: "kept" };
    const ev = { downloadId: 3, state: "FETCHING", pagesDone: 2, pagesTotal: 8, error: null, at: "t" };
    expect(withEvent(row, ev)).toEqual({ ...row, state: "FETCHING", pagesDone: 2, pagesTotal: 8 });
    expect(withEvent(row, { ...ev, downloadId: 4 })).toBe(row);
    expect(withEvent(row, undefined)).toBe(row);
  });
});
