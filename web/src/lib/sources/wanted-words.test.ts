import { describe, expect, it } from "vitest";
import {
  WANTED_REASONS,
  detailFacts,
  entryLabel,
  entrySentence,
  entryTone,
  bySeries,
  ledgerSummary,
  monitorRunMessage,
  WANTED_FILTERS,
  reasonLabel,
  reasonSentence,
  reasonTone,
  slotLabel,
  type WantedReason,
} from "./wanted-words";

const REASONS: WantedReason[] = [
  "ALL_OFFERS_BLOCKED",
  "ALREADY_QUEUED",
  "BACKING_OFF",
  "LIMIT_REACHED",
  "NO_LONGER_LISTED",
  "NO_OFFER",
  "NO_OTHER_SOURCE",
  "ONLY_OTHER_LANGUAGES",
  "PARTS_INCOMPLETE",
  "QUEUED",
  "REPLACING",
];

const NONE = {
  offers: 0,
  usable: 0,
  blocked: 0,
  languages: [],
  parts: null,
  nextPassAt: null,
  replacesFileId: null,
  bookChannelOutcome: null,
  downloadIds: null,
};

describe("wanted reasons in words", () => {
  it("says in words that an owned slot takes nothing (Search and Interactive search)", () => {
    expect(reasonLabel("OWNED")).toBe("Owned");
    expect(reasonSentence("OWNED")).toMatch(/holds it already/);
    expect(reasonTone("OWNED")).toBe("good");
  });
  it("has a label and a full sentence for every reason of the schema", () => {
    expect(Object.keys(WANTED_REASONS).sort()).toEqual([...REASONS].sort());
    for (const r of REASONS) {
      expect(reasonLabel(r)).not.toBe("");
      expect(reasonSentence(r)).toMatch(/^[A-Z].*\.$/);
    }
  });

  it("says what to do when no source offers a slot", () => {
    expect(reasonSentence("NO_OFFER")).toBe(
      "No linked source offers it. Link another source, or refresh the linked ones.",
    );
    expect(reasonTone("NO_OFFER")).toBe("warn");
    expect(reasonTone("NO_OTHER_SOURCE")).toBe("bad");
    expect(reasonTone("QUEUED")).toBe("info");
  });

  it("shows an unknown code as it came", () => {
    expect(reasonLabel("SOMETHING_NEW")).toBe("something new");
    expect(reasonSentence("SOMETHING_NEW")).toBe("Still wanted (something new).");
    expect(reasonTone("SOMETHING_NEW")).toBe("");
  });

  it("names slots", () => {
    expect(slotLabel("chapter", "12.5")).toBe("Chapter 12.5");
    expect(slotLabel("book", "3")).toBe("Book 3");
    expect(slotLabel("CHAPTER", "0")).toBe("Chapter 0");
  });
});

describe("details", () => {
  it("says there are no offers", () => {
    expect(detailFacts(NONE)).toEqual(["no offers"]);
  });

  it("lists offers, blocked, languages, parts, replacement, downloads and the next try", () => {
    const facts = detailFacts(
      {
        ...NONE,
        offers: 3,
        usable: 1,
        blocked: 2,
        languages: ["en", "fr"],
        parts: [1],
        replacesFileId: 7,
        downloadIds: [4, 5],
        bookChannelOutcome: "already_grabbed",
        nextPassAt: "2026-01-01T00:00:00Z",
      },
      () => "tomorrow",
    );
    expect(facts).toEqual([
      "3 offers, 1 in a chosen language",
      "2 blocked",
      "offered in en, fr",
      "parts offered: 1",
      "replaces file #7",
      "download #4, #5",
      "torrent search: already grabbed",
      "next try tomorrow",
    ]);
    expect(detailFacts({ ...NONE, offers: 1, usable: 1 })[0]).toBe("1 offer, 1 in a chosen language");
  });

  it("summarises the ledger", () => {
    expect(ledgerSummary([])).toMatch(/^Nothing is wanted/);
    expect(ledgerSummary([{ reason: "QUEUED" }, { reason: "NO_OFFER" }, { reason: "REPLACING" }])).toBe(
      "3 slots wanted: 2 on the way, 1 waiting for a source.",
    );
    expect(ledgerSummary([{ reason: "NO_OFFER" }])).toBe("1 slot wanted: 0 on the way, 1 waiting for a source.");
  });

  it("says what became of an entry's downloads once they ended, instead of the pass's reason", () => {
    expect(entryLabel({ reason: "QUEUED", downloads: "PUBLISHED" })).toBe("Fetched");
    expect(entryTone({ reason: "ALREADY_QUEUED", downloads: "PUBLISHED" })).toBe("good");
    expect(entryLabel({ reason: "QUEUED", downloads: "FAILED" })).toBe("Download failed");
    expect(entrySentence({ reason: "REPLACING", downloads: "FAILED" })).toMatch(/^Its download ended without a file/);
    // Under way or naming no download, the reason stands.
    expect(entryLabel({ reason: "QUEUED", downloads: "UNDER_WAY" })).toBe("Queued");
    expect(entryLabel({ reason: "NO_OFFER", downloads: null })).toBe("No source");
    expect(entrySentence({ reason: "NO_OFFER" })).toBe(reasonSentence("NO_OFFER"));
  });

  it("does not count a slot fetched since the pass as wanted", () => {
    expect(
      ledgerSummary([
        { reason: "QUEUED", downloads: "PUBLISHED" },
        { reason: "QUEUED", downloads: "UNDER_WAY" },
        { reason: "QUEUED", downloads: "FAILED" },
      ]),
    ).toBe("2 slots wanted: 1 on the way, 1 waiting for a source. 1 slot fetched since the last pass.");
    expect(ledgerSummary([{ reason: "ALREADY_QUEUED", downloads: "PUBLISHED" }])).toBe(
      "Nothing else is wanted: 1 slot fetched since the last pass.",
    );
  });

  it("filters the Wanted page by every reason exactly once, besides All", () => {
    const named = WANTED_FILTERS.flatMap((f) => f.reasons ?? []);
    expect([...named].sort()).toEqual([...REASONS].sort());
    expect(WANTED_FILTERS[0]).toEqual({ key: "all", label: "All", reasons: null });
  });

  it("groups the library's entries by series, keeping their order", () => {
    const rows = [
      { seriesId: 2, seriesTitle: "A", n: 1 },
      { seriesId: 2, seriesTitle: "A", n: 2 },
      { seriesId: 1, seriesTitle: "B", n: 3 },
    ];
    expect(bySeries(rows).map((g) => [g.seriesId, g.title, g.rows.map((r) => r.n)])).toEqual([
      [2, "A", [1, 2]],
      [1, "B", [3]],
    ]);
  });

  it("says what the pass over every series did", () => {
    expect(monitorRunMessage({ series: 5, queued: 0, failed: 0 })).toBe(
      "The Wanted pass ran for 5 series: nothing new was queued.",
    );
    expect(monitorRunMessage({ series: 1, queued: 1, failed: 1 })).toBe(
      "The Wanted pass ran for 1 series: 1 download queued; it failed for 1 series (see the service's log).",
    );
    expect(monitorRunMessage(null)).toBe("The Wanted pass ran.");
  });
});
