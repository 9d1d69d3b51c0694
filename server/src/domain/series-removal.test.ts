import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JOB_STATES, LIVE_JOB_STATES } from "./download-jobs.ts";
import {
  decideSeriesRemoval,
  GONE_FILE_STATES,
  TORRENT_STATES_UNDER_WAY,
  type SeriesRemovalFacts,
} from "./series-removal.ts";
import { TRANSLATION_STATES, WORKING_STATES } from "./translation-jobs.ts";

const idle: SeriesRemovalFacts = {
  fileStates: [],
  downloadStates: [],
  torrentStates: [],
  translationStates: [],
  pendingPublications: 0,
};
const TORRENT_STATES = [...TORRENT_STATES_UNDER_WAY, "imported", "failed", "removed", "dismissed"];

describe("removing a series", () => {
  it("is allowed for a series without files or work", () => {
    expect(decideSeriesRemoval(idle)).toEqual({ ok: true });
  });

  it("is allowed when every file is missing or recycled and all work ended", () => {
    expect(
      decideSeriesRemoval({
        fileStates: ["missing", "recycled", "missing"],
        downloadStates: ["published", "failed", "cancelled", "degraded"],
        torrentStates: ["imported", "dismissed", "failed", "removed"],
        translationStates: ["imported", "failed", "cancelled"],
        pendingPublications: 0,
      }),
    ).toEqual({ ok: true });
  });

  it("is refused while an active file remains, with their count", () => {
    expect(decideSeriesRemoval({ ...idle, fileStates: ["active", "missing", "active"] })).toEqual({
      ok: false,
      code: "series_has_files",
      activeFiles: 2,
    });
  });

  it.each([
    ["a queued download", { downloadStates: ["queued"] }, { downloads: 1 }],
    ["a download being published", { downloadStates: ["publishing", "published"] }, { downloads: 1 }],
    ["a torrent downloading", { torrentStates: ["downloading"] }, { torrentJobs: 1 }],
    ["a torrent importing", { torrentStates: ["importing"] }, { torrentJobs: 1 }],
    ["a torrent waiting for an assignment", { torrentStates: ["awaiting_assignment"] }, { torrentJobs: 1 }],
    ["a translation running", { translationStates: ["running"] }, { translationJobs: 1 }],
    ["a paused translation", { translationStates: ["paused"] }, { translationJobs: 1 }],
    ["a translation cancelling", { translationStates: ["cancelling"] }, { translationJobs: 1 }],
    ["a restore under way", { pendingPublications: 1 }, { publications: 1 }],
  ])("is refused with %s", (_what, facts, busy) => {
    expect(decideSeriesRemoval({ ...idle, ...facts })).toEqual({ ok: false, code: "series_busy", busy });
  });

  it("names active files before work under way", () => {
    expect(decideSeriesRemoval({ ...idle, fileStates: ["active"], downloadStates: ["queued"] })).toMatchObject({
      code: "series_has_files",
    });
  });
});

describe("removing a series: properties", () => {
  const facts = fc.record({
    fileStates: fc.array(fc.constantFrom("active", ...GONE_FILE_STATES)),
    downloadStates: fc.array(fc.constantFrom(...JOB_STATES)),
    torrentStates: fc.array(fc.constantFrom(...TORRENT_STATES)),
    translationStates: fc.array(fc.constantFrom(...TRANSLATION_STATES)),
    pendingPublications: fc.nat(3),
  });

  it("is allowed exactly when no file is active and nothing is under way", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const idleNow =
          f.fileStates.every((s) => s !== "active") &&
          f.downloadStates.every((s) => !LIVE_JOB_STATES.includes(s)) &&
          f.torrentStates.every((s) => !TORRENT_STATES_UNDER_WAY.includes(s)) &&
          f.translationStates.every((s) => !WORKING_STATES.includes(s)) &&
          f.pendingPublications === 0;
        expect(decideSeriesRemoval(f).ok).toBe(idleNow);
      }),
    );
  });

  it("never allows a removal while an active file remains, and counts them", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const active = f.fileStates.filter((s) => s === "active").length;
        const d = decideSeriesRemoval(f);
        if (active > 0) expect(d).toEqual({ ok: false, code: "series_has_files", activeFiles: active });
      }),
    );
  });

  it("names every kind of work under way and only those, with positive counts", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const d = decideSeriesRemoval({ ...f, fileStates: [] });
        if (d.ok || d.code !== "series_busy") return;
        for (const n of Object.values(d.busy)) expect(n).toBeGreaterThan(0);
        expect(d.busy.downloads ?? 0).toBe(f.downloadStates.filter((s) => LIVE_JOB_STATES.includes(s)).length);
        expect(d.busy.publications ?? 0).toBe(f.pendingPublications);
      }),
    );
  });
});
