import { describe, expect, it } from "vitest";
import {
  aggregateSuggestion,
  catalogueCounts,
  countOffers,
  mergeMetadata,
  seriesStatusOf,
  type CatalogueCountFacts,
} from "./catalogue.ts";

describe("aggregateSuggestion", () => {
  it("turns numbered volumes into entries, canonical and sorted", () => {
    const s = aggregateSuggestion([
      { volume: "2", chapters: ["10", "9", "11.5"] },
      { volume: "01", chapters: ["1", "2", "003"] },
    ]);
    expect(s.entries).toEqual([
      { volume: "1", chapters: ["1", "2", "3"] },
      { volume: "2", chapters: ["9", "10", "11.5"] },
    ]);
    expect([s.conflicts, s.noBook, s.skipped]).toEqual([[], [], []]);
  });

  it("puts a chapter listed under two volumes in neither, and reports the conflict", () => {
    const s = aggregateSuggestion([
      { volume: "1", chapters: ["1", "2", "3"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["3", "5"] },
    ]);
    expect(s.entries).toEqual([
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["4"] },
      { volume: "3", chapters: ["5"] },
    ]);
    expect(s.conflicts).toEqual([{ chapter: "3", volumes: ["1", "2", "3"] }]);
  });

  it("never picks the higher volume, also when the volumes are spelled alike", () => {
    const s = aggregateSuggestion([
      { volume: "1", chapters: ["7"] },
      { volume: "1.0", chapters: ["7"] },
    ]);
    // "1" and "1.0" are the same book: one claim, no conflict.
    expect(s.entries).toEqual([{ volume: "1", chapters: ["7"] }]);
    expect(s.conflicts).toEqual([]);
  });

  it("gives chapters under `none` to no book; a `none` listing beside a volume is no second claim", () => {
    const s = aggregateSuggestion([
      { volume: "1", chapters: ["1", "2"] },
      { volume: "none", chapters: ["2", "3", "4"] },
    ]);
    expect(s.entries).toEqual([{ volume: "1", chapters: ["1", "2"] }]);
    expect(s.noBook).toEqual(["3", "4"]);
    expect(s.conflicts).toEqual([]);
  });

  it("skips keys that are not exact numbers; an unnumbered volume still contests a chapter", () => {
    const s = aggregateSuggestion([
      { volume: "1", chapters: ["1", "2", "none"] },
      { volume: "Special", chapters: ["2", "2.5"] },
    ]);
    expect(s.entries).toEqual([{ volume: "1", chapters: ["1"] }]);
    expect(s.conflicts).toEqual([{ chapter: "2", volumes: ["1", "Special"] }]);
    expect(s.skipped).toEqual([
      { volume: "1", chapter: "none", reason: "chapter_not_a_number" },
      { volume: "Special", chapter: null, reason: "volume_not_a_number" },
    ]);
  });

  it("keeps a numbered volume whose chapters all went elsewhere as an empty entry", () => {
    const s = aggregateSuggestion([
      { volume: "1", chapters: ["1"] },
      { volume: "2", chapters: ["1"] },
    ]);
    expect(s.entries).toEqual([
      { volume: "1", chapters: [] },
      { volume: "2", chapters: [] },
    ]);
  });
});

const facts = (
  catalogue: CatalogueCountFacts["catalogue"],
  volumes: number | null,
  status: CatalogueCountFacts["status"] = null,
): CatalogueCountFacts => ({ catalogue, volumes, status, chapters: null });

describe("catalogueCounts and countOffers", () => {
  it("grades agreed, lone, conflict and unknown", () => {
    expect(catalogueCounts([facts("mangadex", 12), facts("mangaupdates", 12)]).volumes).toEqual({
      value: 12,
      grade: "agreed",
      values: [
        { catalogue: "mangadex", value: 12 },
        { catalogue: "mangaupdates", value: 12 },
      ],
    });
    expect(catalogueCounts([facts("anilist", 5), facts("mangadex", null)]).volumes).toMatchObject({
      value: 5,
      grade: "lone",
    });
    expect(catalogueCounts([facts("anilist", 5), facts("mangadex", 6)]).volumes).toMatchObject({
      value: null,
      grade: "conflict",
    });
    expect(catalogueCounts([facts("anilist", null)]).volumes).toEqual({ value: null, grade: null, values: [] });
  });

  it("grades statuses on what they mean for the series: completed and cancelled both say finished", () => {
    expect(seriesStatusOf("cancelled")).toBe("finished");
    expect(seriesStatusOf("upcoming")).toBeNull();
    const c = catalogueCounts([facts("mangadex", null, "completed"), facts("anilist", null, "cancelled")]);
    expect(c.status).toMatchObject({ value: "finished", grade: "agreed" });
  });

  it("offers an agreed count in words and nothing the series already has", () => {
    const c = catalogueCounts([facts("mangadex", 12, "completed"), facts("mangaupdates", 12, "completed")]);
    expect(countOffers(c, { status: "running", knownBookCount: null })).toEqual([
      {
        field: "known_book_count",
        value: 12,
        grade: "agreed",
        catalogues: ["mangadex", "mangaupdates"],
        text: "Use 12 books (MangaDex and MangaUpdates agree)",
      },
      {
        field: "status",
        value: "finished",
        grade: "agreed",
        catalogues: ["mangadex", "mangaupdates"],
        text: "Mark as finished (MangaDex and MangaUpdates agree)",
      },
    ]);
    expect(countOffers(c, { status: "finished", knownBookCount: 12 })).toEqual([]);
  });

  it("offers each value of a conflict, naming who says otherwise; a lone value says so", () => {
    const conflict = countOffers(catalogueCounts([facts("mangadex", 12), facts("anilist", 13)]), {
      status: "running",
      knownBookCount: null,
    });
    expect(conflict.map((o) => o.text)).toEqual([
      "Use 12 books (MangaDex; AniList says 13)",
      "Use 13 books (AniList; MangaDex says 12)",
    ]);
    expect(conflict.every((o) => o.grade === "conflict")).toBe(true);
    const lone = countOffers(catalogueCounts([facts("mangaupdates", 1)]), { status: "running", knownBookCount: 3 });
    expect(lone.map((o) => o.text)).toEqual(["Use 1 book (only MangaUpdates states it)"]);
  });
});

describe("mergeMetadata", () => {
  it("takes the description in priority order and unites the lists without the series title", () => {
    const m = mergeMetadata("Tide Atlas", [
      {
        catalogue: "mangaupdates",
        title: "Tide Atlas",
        description: "From MangaUpdates",
        alternativeTitles: ["Shio no Chizu", "潮の地図"],
        authors: ["MORI Aoi"],
        genres: ["Drama", "Seinen"],
      },
      {
        catalogue: "anilist",
        title: "Tide Atlas",
        description: "From AniList",
        alternativeTitles: ["shio no chizu"],
        authors: ["Aoi Mori"],
        genres: ["drama"],
      },
      {
        catalogue: "mangadex",
        title: "Tide Atlas",
        description: "  ",
        alternativeTitles: [],
        authors: ["Aoi Mori"],
        genres: ["Adventure"],
      },
    ]);
    expect(m).toEqual({
      description: "From AniList",
      descriptionFrom: "anilist",
      alternativeTitles: ["shio no chizu", "潮の地図"],
      authors: ["Aoi Mori", "MORI Aoi"],
      genres: ["Adventure", "drama", "Seinen"],
    });
  });
});
