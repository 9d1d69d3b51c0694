import { describe, expect, it } from "vitest";
import { changes, continueHref, placeLabel, progressFor, resumePage } from "./progress";

const stored = (page: number, completed = false, updatedAt: string | null = "2026-01-01T00:00:00.000Z") => ({
  fileId: 1,
  page,
  completed,
  pageCount: 20,
  updatedAt,
});

describe("reading progress in the web reader", () => {
  it("opens at the address's page, else the stored place, else page 1", () => {
    expect(resumePage(7, stored(12), 20)).toBe(7);
    expect(resumePage(null, stored(12), 20)).toBe(12);
    expect(resumePage(null, stored(12, false, null), 20)).toBe(1);
    expect(resumePage(null, null, 20)).toBe(1);
    // A finished file opens at its start again; a place past the end is clamped.
    expect(resumePage(null, stored(20, true), 20)).toBe(1);
    expect(resumePage(null, stored(30), 20)).toBe(20);
  });

  it("saves the page on screen; the last page completes the file", () => {
    expect(progressFor(3, 20)).toEqual({ page: 3, completed: false });
    expect(progressFor(20, 20)).toEqual({ page: 20, completed: true });
    expect(progressFor(0, 20)).toEqual({ page: 1, completed: false });
    expect(changes({ page: 3, completed: false }, { page: 3, completed: false })).toBe(false);
    expect(changes({ page: 4, completed: false }, { page: 3, completed: false })).toBe(true);
    expect(changes({ page: 3, completed: false }, null)).toBe(true);
  });

  it("labels and links a place", () => {
    expect(placeLabel(stored(12))).toBe("Page 12 of 20");
    expect(placeLabel(stored(1, false, null))).toBe("Not started");
    expect(continueHref({ fileId: 9 })).toBe("/read/9");
  });
});
