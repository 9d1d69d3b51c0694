/** The pure parts of the catalogue clients: the quirks of each API's answers. */
import { describe, expect, it } from "vitest";
import { aggregateVolumes } from "./mangadex.ts";
import { parseMangaUpdatesStatus } from "./mangaupdates.ts";
import { rateLimitRetryAtMs, retryAfterMs } from "./polite-http.ts";
import { plainText, wholeCount, yearOf } from "./types.ts";

describe("MangaDex aggregate", () => {
  it("reads volumes keyed by number, `none`, and PHP's [] for an empty map", () => {
    expect(aggregateVolumes({ result: "ok", volumes: [] })).toEqual([]);
    expect(
      aggregateVolumes({
        result: "ok",
        volumes: {
          "1": {
            volume: "1",
            count: 2,
            chapters: {
              "1": { chapter: "1", id: "a", others: [], count: 1 },
              "2": { chapter: "2", id: "b", others: ["c"], count: 2 },
            },
          },
          none: { volume: "none", count: 1, chapters: [{ chapter: "3", id: "d", others: [], count: 1 }] },
        },
      }),
    ).toEqual([
      { volume: "1", chapters: ["1", "2"] },
      { volume: "none", chapters: ["3"] },
    ]);
  });
});

describe("MangaUpdates status text", () => {
  it.each([
    ["38 Volumes (Complete)", 38, "completed"],
    ["12 Volumes (Ongoing)\n1 Extra (Complete)", 12, "ongoing"],
    ["1 Volume (Complete)", 1, "completed"],
    ["3 Volumes (Hiatus)", 3, "hiatus"],
    ["5 Volumes (Discontinued)", 5, "cancelled"],
    ["Oneshot", null, null],
    ["", null, null],
  ])("%j → %j books, %j", (text, volumes, status) => {
    expect(parseMangaUpdatesStatus(text)).toEqual({ volumes, status });
  });

  it("takes `completed: true` when the text names no status", () => {
    expect(parseMangaUpdatesStatus("10 Volumes", true)).toEqual({ volumes: 10, status: "completed" });
  });
});

describe("answer helpers", () => {
  it("reads whole counts and years, nothing else", () => {
    expect([
      wholeCount("12"),
      wholeCount(12),
      wholeCount("12.0"),
      wholeCount("12.5"),
      wholeCount(""),
      wholeCount(0),
    ]).toEqual([12, 12, 12, null, null, null]);
    expect([yearOf(2019), yearOf("2019-2023"), yearOf(""), yearOf(null)]).toEqual([2019, 2019, null, null]);
  });

  it("turns catalogue HTML into plain text", () => {
    expect(plainText("Maps &amp; tides.<BR>Second &#39;line&#x27;.<br/><i>Note</i>")).toBe(
      "Maps & tides.\nSecond 'line'.\nNote",
    );
    expect(plainText("  ")).toBeNull();
  });

  it("leaves no markup behind: tags spelled as entities, BBCode, AniList's spoiler marks", () => {
    // Entities decode to text, never to markup: a tag written as &lt;…&gt; goes like any other.
    expect(plainText("&lt;script&gt;x()&lt;/script&gt;Sea &lt;img src=x onerror=y()&gt;maps")).toBe("x()Sea maps");
    expect(plainText("a &lt; b and 3 &gt; 2")).toBe("a < b and 3 > 2");
    // MangaDex and MangaUpdates descriptions carry BBCode from their older sites.
    expect(plainText("[b]Bold[/b] [url=https://example.com]site[/url] [I]it[/I] [spoiler]end[/spoiler]")).toBe(
      "Bold site it end",
    );
    expect(plainText("Parts:[list][*]one[*]two[/list]")).toBe("Parts:\n- one\n- two");
    // AniList marks spoilers as ~!…!~ (docs.anilist.co, the description's markup).
    expect(plainText("The sea.<br><br>~!The map was wrong.!~")).toBe("The sea.\n\nThe map was wrong.");
    // A numeric entity beyond Unicode stays as written (String.fromCodePoint threw on it).
    expect(plainText("Sea &#99999999; &#x110000; &#0; maps")).toBe("Sea &#99999999; &#x110000; &#0; maps");
    // Markdown stays: it reads as text ([text](url) is not BBCode).
    expect(plainText("**Links:** [Official](https://example.com)")).toBe("**Links:** [Official](https://example.com)");
    expect(plainText(42)).toBeNull();
  });

  it("reads Retry-After in seconds or as a date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect([retryAfterMs(null), retryAfterMs("soon")]).toEqual([null, null]);
  });

  it("reads MangaDex's X-RateLimit-Retry-After as the Unix time its window ends", () => {
    expect(rateLimitRetryAtMs("1698723860", 1698723857_500)).toBe(2_500);
    expect(rateLimitRetryAtMs("1698723860", 1698723900_000)).toBe(0);
    expect([rateLimitRetryAtMs(null), rateLimitRetryAtMs(""), rateLimitRetryAtMs("later")]).toEqual([null, null, null]);
  });
});
