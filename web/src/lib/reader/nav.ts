/**
 * Reader navigation as pure functions: which key, tap or swipe turns which way, for right-to-left
 * (manga) and left-to-right reading, and which pages to fetch ahead.
 */

export type Direction = "rtl" | "ltr";
export type Mode = "paged" | "continuous";
export type NavAction = "next" | "prev" | "first" | "last" | "back";

/** Page number kept inside 1…count (1 for an empty file). */
export function clampPage(page: number, count: number): number {
  if (!Number.isFinite(page) || count < 1) return 1;
  return Math.min(count, Math.max(1, Math.round(page)));
}

/** A page number from a query parameter, or null. */
export function parsePage(text: string | null, count: number): number | null {
  if (text === null || !/^\d{1,6}$/.test(text)) return null;
  return clampPage(Number(text), count);
}

/**
 * The action of a key. Left and right follow the reading direction (right to left: ← is the
 * next page, as in a printed manga). Space and PageDown go on, PageUp and Shift+Space back.
 * In continuous mode the vertical keys scroll the page themselves, so they are not taken.
 */
export function keyAction(key: string, direction: Direction, mode: Mode, shift = false): NavAction | null {
  switch (key) {
    case "ArrowLeft":
      return direction === "rtl" ? "next" : "prev";
    case "ArrowRight":
      return direction === "rtl" ? "prev" : "next";
    case " ":
    case "Spacebar":
      if (mode === "continuous") return null;
      return shift ? "prev" : "next";
    case "PageDown":
      return mode === "continuous" ? null : "next";
    case "PageUp":
      return mode === "continuous" ? null : "prev";
    case "ArrowDown":
      return mode === "continuous" ? null : "next";
    case "ArrowUp":
      return mode === "continuous" ? null : "prev";
    case "Home":
      return "first";
    case "End":
      return "last";
    case "Escape":
      return "back";
    default:
      return null;
  }
}

/** The page an action leads to. */
export function target(action: Exclude<NavAction, "back">, page: number, count: number): number {
  switch (action) {
    case "next":
      return clampPage(page + 1, count);
    case "prev":
      return clampPage(page - 1, count);
    case "first":
      return 1;
    case "last":
      return clampPage(count, count);
  }
}

export type TapZone = "next" | "prev" | "menu";

/**
 * A tap on the page: the outer thirds turn (the left third is "next" when reading right to
 * left), the middle third shows or hides the controls.
 */
export function tapZone(x: number, width: number, direction: Direction): TapZone {
  if (width <= 0) return "menu";
  const f = x / width;
  if (f < 1 / 3) return direction === "rtl" ? "next" : "prev";
  if (f > 2 / 3) return direction === "rtl" ? "prev" : "next";
  return "menu";
}

/**
 * A finished touch as a page turn, or null. A swipe is mostly horizontal, at least 50 px long
 * and quicker than 800 ms. Right to left, the page is pulled to the right to go on (as a printed
 * manga's page turns); left to right, to the left.
 */
export function classifySwipe(dx: number, dy: number, ms: number, direction: Direction): "next" | "prev" | null {
  if (Math.abs(dx) < 50 || Math.abs(dx) < Math.abs(dy) * 1.5 || ms > 800) return null;
  const pulledRight = dx > 0;
  if (direction === "rtl") return pulledRight ? "next" : "prev";
  return pulledRight ? "prev" : "next";
}

/** Pages to fetch ahead of the current one (the next `ahead` pages, then the one before). */
export function preloadWindow(page: number, count: number, ahead = 3): number[] {
  const out: number[] = [];
  for (let p = page + 1; p <= Math.min(count, page + ahead); p++) out.push(p);
  if (page - 1 >= 1) out.push(page - 1);
  return out;
}

/** "Page 3 of 11". */
export function pageLabel(page: number, count: number): string {
  return `Page ${page} of ${count}`;
}
