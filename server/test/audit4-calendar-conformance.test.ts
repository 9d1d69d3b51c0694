/**
 * The release calendar's boundaries, from an empty service through REST and GraphQL (which must
 * agree), with a Suwayomi-compatible server on 127.0.0.1 whose chapters carry upload dates: exactly
 * four dated releases against three, intervals of exactly 3 and 62 days and just outside, two
 * chapters on one day, two sources listing the same chapters on different days, unmonitored,
 * finished and paused series, the window's bounds and its validation, and the overdue marking
 * exactly three intervals after the last release.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson, expectProblem, useSuwayomi } from "./fixtures.ts";
import {
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7401", name: "Dated Scans", lang: "en" };
const B: FakeSource = { id: "7402", name: "Late Mirror", lang: "en" };
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const day = (offset: number) => iso(today + offset * DAY);

/** Chapters 1..n uploaded the given numbers of days ago (an hour into that day). */
const ago = (...days: number[]) =>
  days.map((d, i) => fakeChapter({ chapterNumber: i + 1, uploadDate: today - d * DAY + 3_600_000, pages: [] }));

interface Case {
  title: string;
  days: number[];
  status?: "running" | "finished" | "paused";
  monitored?: boolean;
  second?: number[];
}
const CASES: Case[] = [
  { title: "Four Dates", days: [23, 16, 9, 2] },
  { title: "Three Dates", days: [16, 9, 2] },
  { title: "Every Three", days: [10, 7, 4, 1] },
  { title: "Every Two", days: [7, 5, 3, 1] },
  { title: "Every Sixty-Two", days: [187, 125, 63, 1] },
  { title: "Every Sixty-Three", days: [190, 127, 64, 1] },
  // 2 and 63 days are left out; 3, 7 and 3 count.
  { title: "Mixed Bounds", days: [80, 78, 15, 12, 5, 2] },
  { title: "Same Day", days: [23, 16, 9, 9, 2] },
  { title: "Same Day Short", days: [16, 9, 9, 2] },
  // Each chapter's earliest date across the sources: 23, 16, 10, 4 days ago.
  { title: "Two Sources", days: [23, 16, 9, 2], second: [22, 15, 10, 4] },
  { title: "Resting", days: [23, 16, 9, 2], monitored: false },
  { title: "Finished Tale", days: [23, 16, 9, 2], status: "finished" },
  { title: "Paused Tale", days: [23, 16, 9, 2], status: "paused" },
  { title: "Three Intervals", days: [42, 35, 28, 21] },
  { title: "Almost Three", days: [41, 34, 27, 20] },
];

interface RestEntry {
  series_id: number;
  title: string;
  status: string;
  expected_on: string;
  last_release_at: string;
  last_chapter: string | null;
  next_chapter: string | null;
  median_interval_days: number;
  intervals: number[];
  releases: number;
}
interface RestCalendar {
  from: string;
  to: string;
  entries: RestEntry[];
  overdue: RestEntry[];
}
const GQL_FIELDS =
  "seriesId title status expectedOn lastReleaseAt lastChapter nextChapter medianIntervalDays intervals releases";
interface GqlEntry {
  seriesId: number;
  title: string;
  status: string;
  expectedOn: string;
  lastReleaseAt: string;
  lastChapter: string | null;
  nextChapter: string | null;
  medianIntervalDays: number;
  intervals: number[];
  releases: number;
}
const asRest = (e: GqlEntry): RestEntry => ({
  series_id: e.seriesId,
  title: e.title,
  status: e.status.toLowerCase(),
  expected_on: e.expectedOn,
  last_release_at: e.lastReleaseAt,
  last_chapter: e.lastChapter,
  next_chapter: e.nextChapter,
  median_interval_days: e.medianIntervalDays,
  intervals: e.intervals,
  releases: e.releases,
});

let fake: FakeSuwayomi;
let app: TestApp;

/** The calendar through both transports; they must agree. */
async function calendar(from?: string, to?: string): Promise<RestCalendar> {
  const qs = [from === undefined ? null : `from=${from}`, to === undefined ? null : `to=${to}`].filter(Boolean);
  const rest = await expectJson<RestCalendar>(
    await app.api(`/api/calendar${qs.length ? `?${qs.join("&")}` : ""}`),
    200,
  );
  const g = await app.gql<{ calendar: { from: string; to: string; entries: GqlEntry[]; overdue: GqlEntry[] } }>(
    `query($f: String, $t: String) { calendar(from: $f, to: $t) { from to entries { ${GQL_FIELDS} } overdue { ${GQL_FIELDS} } } }`,
    { f: from ?? null, t: to ?? null },
  );
  expect(g.errors).toBeUndefined();
  const c = g.data!.calendar;
  expect({ from: c.from, to: c.to, entries: c.entries.map(asRest), overdue: c.overdue.map(asRest) }).toEqual(rest);
  return rest;
}

const byTitle = (c: RestCalendar) => new Map([...c.entries, ...c.overdue].map((e) => [e.title, e]));

beforeAll(async () => {
  const works = CASES.flatMap((c, i) => [
    fakeWork({ id: 100 + i, title: c.title, source: A, chapters: ago(...c.days) }),
    ...(c.second ? [fakeWork({ id: 200 + i, title: c.title, source: B, chapters: ago(...c.second) })] : []),
  ]);
  fake = await startFakeSuwayomi({ sources: [A, B], works });
  app = await createTestApp();
  await useSuwayomi(app, fake.url);
  for (const [i, c] of CASES.entries()) {
    // Created unmonitored so the link fetches nothing (the fake serves no pages): the calendar
    // needs the dates only. Monitored afterwards unless the case says otherwise.
    const s = await expectJson<{ id: number }>(
      await app.api("/api/manga", {
        method: "POST",
        json: { title: c.title, status: c.status ?? "running", monitored: false },
      }),
      201,
    );
    const link = (provider: string, id: number) =>
      app.api(`/api/manga/${s.id}/sources`, {
        method: "POST",
        json: { provider, source_id: String(id), language: "en" },
      });
    await expectJson(await link(A.id, 100 + i), 201);
    if (c.second) await expectJson(await link(B.id, 200 + i), 201);
    if (c.monitored !== false)
      await expectJson(await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { monitored: true } }), 200);
  }
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

describe("the calendar's rules, from outside", () => {
  it("predicts from at least four dates with intervals of 3 to 62 days; nothing with fewer", async () => {
    const all = byTitle(await calendar(day(-30), day(90)));
    const fig = (t: string) => {
      const e = all.get(t);
      return (
        e && [e.status, e.expected_on, e.median_interval_days, e.intervals, e.releases, e.last_release_at.slice(0, 10)]
      );
    };
    expect(fig("Four Dates")).toEqual(["expected", day(5), 7, [7, 7, 7], 4, day(-2)]);
    expect(fig("Three Dates")).toBeUndefined();
    expect(fig("Every Three")).toEqual(["expected", day(2), 3, [3, 3, 3], 4, day(-1)]);
    expect(fig("Every Two")).toBeUndefined();
    expect(fig("Every Sixty-Two")).toEqual(["expected", day(61), 62, [62, 62, 62], 4, day(-1)]);
    expect(fig("Every Sixty-Three")).toBeUndefined();
    expect(fig("Mixed Bounds")).toEqual(["expected", day(1), 3, [3, 7, 3], 6, day(-2)]);
    // Two chapters on one day are one release: four days still predict, three do not.
    expect(fig("Same Day")).toEqual(["expected", day(5), 7, [7, 7, 7], 4, day(-2)]);
    expect(fig("Same Day Short")).toBeUndefined();
    // The earliest date of each chapter across the sources.
    expect(fig("Two Sources")).toEqual(["expected", day(2), 6, [7, 6, 6], 4, day(-4)]);
    expect(all.get("Four Dates")).toMatchObject({ last_chapter: "4", next_chapter: "5" });
    expect(all.get("Same Day")).toMatchObject({ last_chapter: "5", next_chapter: "6" });
  });

  it("leaves unmonitored, finished and paused series out", async () => {
    const all = byTitle(await calendar(day(-400), day(0)));
    const wide = byTitle(await calendar(day(0), day(400)));
    for (const t of ["Resting", "Finished Tale", "Paused Tale"]) {
      expect(all.has(t)).toBe(false);
      expect(wide.has(t)).toBe(false);
    }
  });

  it("overdue exactly three intervals after the last release, with the date it was expected; a day earlier still expected", async () => {
    const c = await calendar(day(-20), day(0));
    expect(c.overdue.find((e) => e.title === "Three Intervals")).toMatchObject({
      status: "overdue",
      expected_on: day(-14),
      median_interval_days: 7,
    });
    expect(c.entries.some((e) => e.title === "Three Intervals")).toBe(false);
    expect(c.entries.find((e) => e.title === "Almost Three")).toMatchObject({
      status: "expected",
      expected_on: day(-13),
    });
    expect(c.overdue.some((e) => e.title === "Almost Three")).toBe(false);
    // Overdue series are listed whatever the window.
    const later = await calendar(day(100), day(120));
    expect(later.overdue.map((e) => e.title)).toContain("Three Intervals");
  });

  it("lists only predictions inside the window, both ends included", async () => {
    const titles = async (from: string, to: string) => (await calendar(from, to)).entries.map((e) => e.title);
    expect(await titles(day(5), day(5))).toEqual(["Four Dates", "Same Day"]);
    expect(await titles(day(6), day(60))).toEqual([]);
    expect(await titles(day(0), day(4))).toEqual(["Mixed Bounds", "Every Three", "Two Sources"]);
    expect(await titles(day(61), day(61))).toEqual(["Every Sixty-Two"]);
    expect(await titles(day(0), day(60))).not.toContain("Every Sixty-Two");
  });

  it("validates the window: malformed, reversed, too wide → invalid_field both ways, nothing else changes", async () => {
    const before = await calendar(day(0), day(30));
    const bad = [
      ["2026-02-30", "2026-03-01"],
      ["2026-1-01", "2026-03-01"],
      ["20260101", "2026-03-01"],
      ["2026-01-01T00:00:00Z", "2026-03-01"],
      ["2026-01-01", "tomorrow"],
      ["2026-03-02", "2026-03-01"],
      ["2026-01-01", "2027-02-06"], // 401 days
      ["", "2026-03-01"],
      ["2026-01-01", ""],
    ];
    for (const [f, t] of bad) {
      await expectProblem(await app.api(`/api/calendar?from=${f}&to=${t}`), 400, "invalid_field");
      const g = await app.gql(`query($f: String, $t: String) { calendar(from: $f, to: $t) { from } }`, { f, t });
      expect([f, t, g.errors?.[0]?.extensions?.code]).toEqual([f, t, "invalid_field"]);
    }
    // Only `to`, before today: the default start (today) is after it.
    await expectProblem(await app.api(`/api/calendar?to=${day(-1)}`), 400, "invalid_field");
    // 400 days and a one-day window are fine.
    expect((await calendar("2026-01-01", "2027-02-05")).to).toBe("2027-02-05");
    expect((await calendar("2028-02-29", "2028-02-29")).from).toBe("2028-02-29");
    expect(await calendar(day(0), day(30))).toEqual(before);
  });
});
