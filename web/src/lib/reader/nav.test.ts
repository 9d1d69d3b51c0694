import { describe, expect, it } from "vitest";
import { clampPage, classifySwipe, keyAction, pageLabel, parsePage, preloadWindow, tapZone, target } from "./nav";

describe("keys", () => {
  it("turn by the reading direction", () => {
    expect(keyAction("ArrowLeft", "rtl", "paged")).toBe("next");
    expect(keyAction("ArrowRight", "rtl", "paged")).toBe("prev");
    expect(keyAction("ArrowLeft", "ltr", "paged")).toBe("prev");
    expect(keyAction("ArrowRight", "ltr", "paged")).toBe("next");
  });

  it("space, page keys, home, end and escape", () => {
    expect(keyAction(" ", "rtl", "paged")).toBe("next");
    expect(keyAction(" ", "rtl", "paged", true)).toBe("prev");
    expect(keyAction("PageDown", "ltr", "paged")).toBe("next");
    expect(keyAction("PageUp", "ltr", "paged")).toBe("prev");
    expect(keyAction("Home", "rtl", "continuous")).toBe("first");
    expect(keyAction("End", "rtl", "paged")).toBe("last");
    expect(keyAction("Escape", "rtl", "paged")).toBe("back");
    expect(keyAction("a", "rtl", "paged")).toBeNull();
  });

  it("leaves scrolling keys to the browser in continuous mode", () => {
    expect(keyAction(" ", "rtl", "continuous")).toBeNull();
    expect(keyAction("PageDown", "rtl", "continuous")).toBeNull();
    expect(keyAction("ArrowDown", "rtl", "continuous")).toBeNull();
    expect(keyAction("ArrowDown", "rtl", "paged")).toBe("next");
  });
});

describe("pages", () => {
  it("clamps and targets", () => {
    expect(clampPage(0, 5)).toBe(1);
    expect(clampPage(9, 5)).toBe(5);
    expect(clampPage(Number.NaN, 5)).toBe(1);
    expect(clampPage(3, 0)).toBe(1);
    expect(target("next", 5, 5)).toBe(5);
    expect(target("prev", 1, 5)).toBe(1);
    expect(target("next", 2, 5)).toBe(3);
    expect(target("first", 4, 5)).toBe(1);
    expect(target("last", 1, 5)).toBe(5);
  });

  it("reads the page parameter", () => {
    expect(parsePage("3", 10)).toBe(3);
    expect(parsePage("30", 10)).toBe(10);
    expect(parsePage("x", 10)).toBeNull();
    expect(parsePage(null, 10)).toBeNull();
    expect(pageLabel(3, 10)).toBe("Page 3 of 10");
  });

  it("preloads the next pages, then the previous one", () => {
    expect(preloadWindow(1, 10)).toEqual([2, 3, 4]);
    expect(preloadWindow(5, 10, 2)).toEqual([6, 7, 4]);
    expect(preloadWindow(9, 10)).toEqual([10, 8]);
    expect(preloadWindow(1, 1)).toEqual([]);
  });
});

describe("touch", () => {
  it("taps on the thirds", () => {
    expect(tapZone(10, 300, "rtl")).toBe("next");
    expect(tapZone(290, 300, "rtl")).toBe("prev");
    expect(tapZone(10, 300, "ltr")).toBe("prev");
    expect(tapZone(290, 300, "ltr")).toBe("next");
    expect(tapZone(150, 300, "ltr")).toBe("menu");
    expect(tapZone(1, 0, "ltr")).toBe("menu");
  });

  it("classifies swipes", () => {
    expect(classifySwipe(120, 10, 200, "rtl")).toBe("next");
    expect(classifySwipe(-120, 10, 200, "rtl")).toBe("prev");
    expect(classifySwipe(-120, 10, 200, "ltr")).toBe("next");
    expect(classifySwipe(120, 10, 200, "ltr")).toBe("prev");
    expect(classifySwipe(30, 0, 100, "ltr")).toBeNull();
    expect(classifySwipe(100, 90, 100, "ltr")).toBeNull();
    expect(classifySwipe(200, 0, 2000, "ltr")).toBeNull();
  });
});
