import { describe, expect, it } from "vitest";
import { adoptSuggestion, catalogueSuggestions } from "./map-suggestions.ts";
import { operationalMap } from "./map-trust.ts";
import { mapEntries, mapSource } from "./test-fixtures.ts";

const entries = mapEntries;

describe("catalogueSuggestions", () => {
  it("lists catalogue and official sources only, with their identity", () => {
    const catalogue = mapSource("catalogue", { "1": "1-3" }, { name: "catalogue:mu", revision: 4 });
    const official = mapSource("official", { "1": "1-3" }, { name: "official:plus" });
    const out = catalogueSuggestions(
      [
        mapSource("operator", {}),
        mapSource("reading", { "2": "4-6" }),
        mapSource("estimate", { "3": "7" }),
        catalogue,
        official,
      ],
      [],
    );
    expect(out.map((s) => [s.sourceId, s.name, s.kind, s.revision])).toEqual([
      [catalogue.id, "catalogue:mu", "catalogue", 4],
      [official.id, "official:plus", "official", 1],
    ]);
  });

  it("offers open books whole when nothing contradicts them", () => {
    const [s] = catalogueSuggestions([mapSource("catalogue", { "1": "1-3", "2": "4-6" })], []);
    expect(s?.entries).toEqual([
      { volume: "1", chapters: ["1", "2", "3"], status: "open", conflicts: [], adoptable: ["1", "2", "3"] },
      { volume: "2", chapters: ["4", "5", "6"], status: "open", conflicts: [], adoptable: ["4", "5", "6"] },
    ]);
  });

  it("flags a contradiction inside one catalogue and keeps it out of the adoptable claims", () => {
    const [s] = catalogueSuggestions([mapSource("catalogue", { "7": "70-74", "8": "74-78" })], []);
    expect(s?.entries[0]).toMatchObject({
      volume: "7",
      conflicts: [{ chapter: "74", volumes: ["7", "8"], scope: "source" }],
      adoptable: ["70", "71", "72", "73"],
    });
    expect(s?.entries[1]?.adoptable).toEqual(["75", "76", "77", "78"]);
  });

  it("flags catalogues that disagree, without blocking the operator's choice of one", () => {
    const [a, b] = catalogueSuggestions(
      [mapSource("catalogue", { "1": "1-5" }), mapSource("official", { "1": "1-4", "2": "5-8" })],
      [],
    );
    expect(a?.entries[0]?.conflicts).toEqual([{ chapter: "5", volumes: ["1", "2"], scope: "catalogues" }]);
    expect(a?.entries[0]?.adoptable).toEqual(["1", "2", "3", "4", "5"]);
    expect(b?.entries[1]?.conflicts).toEqual([{ chapter: "5", volumes: ["1", "2"], scope: "catalogues" }]);
  });

  it("flags and blocks a claim the operator places in another book", () => {
    const [s] = catalogueSuggestions([mapSource("catalogue", { "2": "10-12" })], entries({ "1": "1-10" }));
    expect(s?.entries[0]).toMatchObject({
      status: "open",
      conflicts: [{ chapter: "10", volumes: ["1", "2"], scope: "operator" }],
      adoptable: ["11", "12"],
    });
  });

  it.each([
    ["an empty operator entry suppresses the book", { "2": "" }, "suppressed"],
    ["an operator entry with chapters has set the book", { "2": "4-5" }, "set"],
  ] as const)("%s", (_name, operator, status) => {
    const [s] = catalogueSuggestions([mapSource("catalogue", { "2": "4-6" })], entries(operator));
    expect(s?.entries[0]).toMatchObject({ status, adoptable: [] });
  });
});

describe("adoptSuggestion", () => {
  it("adopts every open book of a suggestion, sorted by volume", () => {
    const result = adoptSuggestion([], entries({ "2": "4-6", "1": "1-3" }));
    expect(result.entries).toEqual(entries({ "1": "1-3", "2": "4-6" }));
    expect(result.adopted).toEqual(["1", "2"]);
  });

  it("preserves manual boundaries and suppressed books exactly", () => {
    const operator = entries({ "1": "1-2", "2": "" });
    const result = adoptSuggestion(operator, entries({ "1": "1-4", "2": "5-8", "3": "9-12" }));
    expect(result.entries).toEqual(entries({ "1": "1-2", "2": "", "3": "9-12" }));
    expect(result.skipped).toEqual([
      { volume: "1", reason: "set_by_operator" },
      { volume: "2", reason: "suppressed_by_operator" },
    ]);
  });

  it("does not adopt claims the suggestion contradicts itself on", () => {
    const result = adoptSuggestion([], entries({ "1": "1-5", "2": "5-8" }));
    expect(result.entries).toEqual(entries({ "1": "1-4", "2": "6-8" }));
    expect(result.droppedClaims).toEqual([
      { chapter: "5", volume: "1", reason: "conflict_in_suggestion" },
      { chapter: "5", volume: "2", reason: "conflict_in_suggestion" },
    ]);
  });

  it("does not adopt a chapter the operator already places", () => {
    const result = adoptSuggestion(entries({ "1": "1-5" }), entries({ "2": "5-8" }));
    expect(result.entries).toEqual(entries({ "1": "1-5", "2": "6-8" }));
    expect(result.droppedClaims).toEqual([{ chapter: "5", volume: "2", reason: "claimed_by_operator" }]);
  });

  it("adopts only the requested books", () => {
    const result = adoptSuggestion([], entries({ "1": "1-3", "2": "4-6", "3": "7-9" }), ["03", "1"]);
    expect(result.entries.map((e) => e.volume)).toEqual(["1", "3"]);
  });

  it("never creates an empty (unknown) entry from a suggestion with nothing left", () => {
    const result = adoptSuggestion(entries({ "1": "1-3" }), entries({ "2": "3" }));
    expect(result.entries).toEqual(entries({ "1": "1-3" }));
    expect(result.skipped).toEqual([{ volume: "2", reason: "nothing_adoptable" }]);
  });

  it("agrees with catalogueSuggestions about what is adoptable", () => {
    const operator = entries({ "1": "1-10", "4": "" });
    const catalogue = mapSource("catalogue", { "1": "1-9", "2": "10-20", "3": "20-30", "4": "31-40" });
    const [s] = catalogueSuggestions([catalogue], operator);
    const result = adoptSuggestion(operator, catalogue.entries);
    for (const e of s?.entries ?? []) {
      const adopted = result.adopted.includes(e.volume)
        ? result.entries.find((x) => x.volume === e.volume)?.chapters
        : [];
      expect(adopted).toEqual(e.adoptable);
    }
  });

  it("yields an operator map the trust rules accept without conflicts", () => {
    const result = adoptSuggestion(entries({ "1": "1-5" }), entries({ "1": "1-6", "2": "5-9", "3": "9-12" }));
    const map = operationalMap([mapSource("operator", result.entries)], []);
    expect(map.conflicts.size).toBe(0);
    expect([...map.books.keys()]).toEqual(["1", "2", "3"]);
  });
});
