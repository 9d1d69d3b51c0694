/**
 * The release calendar through REST and GraphQL: series linked to a Suwayomi-compatible server on
 * 127.0.0.1 whose chapters carry upload dates (a weekly series, one that stopped, one too new to
 * tell); the two transports agree; a bad window is a coded 400.
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

const SRC: FakeSource = { id: "7301", name: "Weekly Scans", lang: "en" };
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let fake: FakeSuwayomi;
let app: TestApp;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;

/** Chapters 1..n released every `every` days, the last `lastAgo` days before today. */
const dated = (n: number, every: number, lastAgo: number) =>
  Array.from({ length: n }, (_, i) =>
    fakeChapter({
      chapterNumber: i + 1,
      uploadDate: today - (lastAgo + (n - 1 - i) * every) * DAY + 3_600_000,
      pages: [],
    }),
  );

beforeAll(async () => {
  fake = await startFakeSuwayomi({
    sources: [SRC],
    works: [
      fakeWork({ id: 1, title: "Weekly Wave", source: SRC, chapters: dated(8, 7, 2) }),
      fakeWork({ id: 2, title: "Stopped Stream", source: SRC, chapters: dated(6, 7, 40) }),
      fakeWork({ id: 3, title: "Fresh Start", source: SRC, chapters: dated(2, 7, 1) }),
    ],
  });
  app = await createTestApp();
  await useSuwayomi(app, fake.url);
  for (const [id, title] of [
    [1, "Weekly Wave"],
    [2, "Stopped Stream"],
    [3, "Fresh Start"],
  ] as const) {
    const s = await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title } }), 201);
    // Unmonitored slots: the calendar needs the dates, not the downloads (the fake serves no pages).
    await expectJson(await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { monitored: false } }), 200);
    await expectJson(
      await app.api(`/api/manga/${s.id}/sources`, {
        method: "POST",
        json: { provider: SRC.id, source_id: String(id), language: "en" },
      }),
      201,
    );
    await expectJson(await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { monitored: true } }), 200);
  }
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

describe("GET /api/calendar and the calendar query", () => {
  it("predicts the weekly series, marks the stopped one overdue, says nothing of the new one; REST and GraphQL agree", async () => {
    const from = iso(today);
    const to = iso(today + 30 * DAY);
    const rest = await expectJson<{
      entries: {
        title: string;
        status: string;
        expected_on: string;
        median_interval_days: number;
        next_chapter: string;
        intervals: number[];
        releases: number;
        last_release_at: string;
      }[];
      overdue: { title: string; expected_on: string }[];
    }>(await app.api(`/api/calendar?from=${from}&to=${to}`), 200);
    expect(rest.entries.map((e) => [e.title, e.status, e.expected_on, e.median_interval_days, e.next_chapter])).toEqual(
      [["Weekly Wave", "expected", iso(today + 5 * DAY), 7, "9"]],
    );
    expect(rest.entries[0]).toMatchObject({ releases: 8, intervals: [7, 7, 7, 7, 7, 7, 7] });
    expect(rest.entries[0]!.last_release_at.slice(0, 10)).toBe(iso(today - 2 * DAY));
    expect(rest.overdue.map((e) => [e.title, e.expected_on])).toEqual([["Stopped Stream", iso(today - 33 * DAY)]]);

    const gql = await app.gql<{
      calendar: {
        entries: {
          title: string;
          status: string;
          expectedOn: string;
          medianIntervalDays: number;
          nextChapter: string;
        }[];
        overdue: { title: string }[];
      };
    }>(
      `query($f: String!, $t: String!) { calendar(from: $f, to: $t) { entries { title status expectedOn medianIntervalDays nextChapter } overdue { title } } }`,
      { f: from, t: to },
    );
    expect(gql.errors).toBeUndefined();
    expect(
      gql.data!.calendar.entries.map((e) => [
        e.title,
        e.status.toLowerCase(),
        e.expectedOn,
        e.medianIntervalDays,
        e.nextChapter,
      ]),
    ).toEqual(rest.entries.map((e) => [e.title, e.status, e.expected_on, e.median_interval_days, e.next_chapter]));
    expect(gql.data!.calendar.overdue.map((e) => e.title)).toEqual(["Stopped Stream"]);

    // A window without the expected date lists nothing (the overdue list stays).
    const later = await expectJson<{ entries: unknown[]; overdue: unknown[] }>(
      await app.api(`/api/calendar?from=${iso(today + 10 * DAY)}&to=${iso(today + 20 * DAY)}`),
      200,
    );
    expect([later.entries.length, later.overdue.length]).toEqual([0, 1]);
  });

  it("without a window: from today to 30 days later, the same through GraphQL", async () => {
    const rest = await expectJson<{ from: string; to: string; entries: { title: string }[] }>(
      await app.api("/api/calendar"),
      200,
    );
    expect([rest.from, rest.to]).toEqual([iso(today), iso(today + 30 * DAY)]);
    expect(rest.entries.map((e) => e.title)).toEqual(["Weekly Wave"]);
    // Only `from`: a month from it, so a window starting after the expected date lists nothing.
    const only = await expectJson<{ to: string; entries: unknown[] }>(
      await app.api(`/api/calendar?from=${iso(today + 6 * DAY)}`),
      200,
    );
    expect([only.to, only.entries.length]).toEqual([iso(today + 36 * DAY), 0]);
    const g = await app.gql<{ calendar: { from: string; to: string; entries: { title: string }[] } }>(
      `{ calendar { from to entries { title } } }`,
    );
    expect(g.data!.calendar).toEqual({ from: rest.from, to: rest.to, entries: [{ title: "Weekly Wave" }] });
  });

  it("refuses a malformed or reversed window with invalid_field", async () => {
    await expectProblem(await app.api("/api/calendar?from=2026-13-01&to=2026-12-31"), 400, "invalid_field");
    await expectProblem(await app.api("/api/calendar?from=2026-02-01&to=2026-01-01"), 400, "invalid_field");
    await expectProblem(await app.api("/api/calendar?from=2026-01-01&to=2026-1-31"), 400, "invalid_field");
    await expectProblem(await app.api("/api/calendar?from="), 400, "invalid_field");
    const g = await app.gql(`{ calendar(from: "2026-01-01", to: "2027-06-01") { from } }`);
    expect(g.errors?.[0]?.extensions?.code).toBe("invalid_field");
  });
});

/** The VEVENTs of an iCalendar text as property maps (folded lines unfolded; parameters kept in the key). */
function events(ics: string): Record<string, string>[] {
  const lines = ics.replace(/\r\n[ \t]/g, "").split("\r\n");
  const out: Record<string, string>[] = [];
  let current: Record<string, string> | null = null;
  for (const line of lines) {
    if (line === "BEGIN:VEVENT") current = {};
    else if (line === "END:VEVENT" && current) {
      out.push(current);
      current = null;
    } else if (current) {
      const colon = line.indexOf(":");
      current[line.slice(0, colon)] = line.slice(colon + 1);
    }
  }
  return out;
}

describe("the calendar feed for calendar apps", () => {
  it("serves iCalendar at its own address, with its own key; a new key retires the old address", async () => {
    const rest = await expectJson<{ path: string }>(await app.api("/api/calendar/feed"), 200);
    expect(rest.path).toMatch(/^\/api\/calendar\.ics\?key=[0-9a-f]{48}$/);
    const gql = await app.gql<{ calendarFeed: { path: string } }>("{ calendarFeed { path } }");
    expect(gql.data!.calendarFeed.path).toBe(rest.path);
    // The same address every time until it is replaced.
    expect((await expectJson<{ path: string }>(await app.api("/api/calendar/feed"), 200)).path).toBe(rest.path);

    // What a calendar app sends: the address alone, no header.
    const res = await fetch(`${app.baseUrl}${rest.path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    const ics = await res.text();
    expect(ics.startsWith("BEGIN:VCALENDAR\r\n")).toBe(true);
    const ev = events(ics);
    const day = (ms: number) => iso(ms).replaceAll("-", "");
    expect(ev.map((e) => [e.SUMMARY, e["DTSTART;VALUE=DATE"]])).toEqual([
      ["Weekly Wave: chapter 9 expected", day(today + 5 * DAY)],
      ["Stopped Stream: chapter 7 overdue", day(today - 33 * DAY)],
    ]);
    expect(ev[0]!.UID).toMatch(/^series-\d+-chapter-9@manga-library$/);
    expect(ev[0]!.DESCRIPTION).toContain("Median interval: 7 days over 8 dated releases.");

    // The API key works too; no key, or a wrong one, is a 401 problem.
    expect((await app.api("/api/calendar.ics")).status).toBe(200);
    await expectProblem(await fetch(`${app.baseUrl}/api/calendar.ics`), 401, "unauthenticated");
    await expectProblem(await fetch(`${app.baseUrl}/api/calendar.ics?key=${"0".repeat(48)}`), 401, "unauthenticated");
    // The feed's key opens nothing else.
    const key = rest.path.split("key=")[1]!;
    await expectProblem(await fetch(`${app.baseUrl}/api/calendar?key=${key}`), 401, "unauthenticated");
    await expectProblem(
      await fetch(`${app.baseUrl}/api/manga`, { headers: { "x-api-key": key } }),
      401,
      "unauthenticated",
    );

    // A new address: the old one stops working.
    const renewed = await app.gql<{ regenerateCalendarFeed: { path: string } }>(
      "mutation { regenerateCalendarFeed { path } }",
    );
    const next = renewed.data!.regenerateCalendarFeed.path;
    expect(next).not.toBe(rest.path);
    await expectProblem(await fetch(`${app.baseUrl}${rest.path}`), 401, "unauthenticated");
    expect((await fetch(`${app.baseUrl}${next}`)).status).toBe(200);
    const again = await expectJson<{ path: string }>(
      await app.api("/api/calendar/feed/regenerate", { method: "POST" }),
      200,
    );
    expect((await fetch(`${app.baseUrl}${next}`)).status).toBe(401);
    expect((await fetch(`${app.baseUrl}${again.path}`)).status).toBe(200);
  });
});
