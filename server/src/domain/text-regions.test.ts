import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findTextRegions, glyphSize, isVerticalLayout, readingOrder, type GrayImage } from "./text-regions.ts";

/** A tiny raster painter for synthetic pages (the real renderer needs sharp; the domain is pure). */
class Canvas implements GrayImage {
  data: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    fill = 160,
  ) {
    this.data = new Uint8Array(width * height).fill(fill);
  }
  rect(x: number, y: number, w: number, h: number, v: number): this {
    for (let j = Math.max(0, y); j < Math.min(this.height, y + h); j++)
      for (let i = Math.max(0, x); i < Math.min(this.width, x + w); i++) this.data[j * this.width + i] = v;
    return this;
  }
  /** Filled white ellipse with a 2-px black outline. */
  bubble(cx: number, cy: number, rx: number, ry: number): this {
    for (let j = 0; j < this.height; j++)
      for (let i = 0; i < this.width; i++) {
        const d = ((i - cx) / rx) ** 2 + ((j - cy) / ry) ** 2;
        if (d <= 1) this.data[j * this.width + i] = d > 0.96 ? 0 : 255;
      }
    return this;
  }
  /** A boxed caption: white rectangle, 1-px black border. */
  box(x: number, y: number, w: number, h: number): this {
    return this.rect(x, y, w, h, 0).rect(x + 1, y + 1, w - 2, h - 2, 255);
  }
  /** "Glyphs": black squares of `size` with a gap, in lines (horizontal) or columns right to left. */
  glyphs(x: number, y: number, size: number, per: number, count: number, vertical: boolean): this {
    const step = Math.round(size * 1.15),
      across = Math.round(size * 1.6);
    for (let k = 0; k < count; k++)
      for (let n = 0; n < per; n++) {
        if (vertical) this.rect(x - k * across, y + n * step, size, size, 0);
        else this.rect(x + n * step, y + k * across, size, size, 0);
      }
    return this;
  }
}

const noMask = (rs: ReturnType<typeof findTextRegions>) => rs.map(({ mask: _m, ...r }) => r);

describe("findTextRegions", () => {
  it("finds a bubble with vertical text, its mask the filled ellipse", () => {
    const c = new Canvas(300, 400).bubble(150, 200, 80, 140).glyphs(165, 120, 16, 6, 3, true);
    const [r, ...rest] = findTextRegions(c);
    expect(rest).toEqual([]);
    expect(r).toMatchObject({ kind: "bubble", vertical: true });
    expect(r!.x).toBeGreaterThanOrEqual(68);
    expect(r!.x + r!.width).toBeLessThanOrEqual(232);
    expect(r!.mask).toHaveLength(r!.width * r!.height);
    // The box corner is outside the ellipse, the centre inside (glyphs included: holes are filled).
    expect(r!.mask![0]).toBe(0);
    const centre = Math.floor(r!.height / 2) * r!.width + Math.floor(r!.width / 2);
    expect(r!.mask![centre]).toBe(1);
  });

  it("finds horizontal lines in a bubble and a boxed caption as kind caption", () => {
    const c = new Canvas(400, 300)
      .bubble(120, 180, 100, 60)
      .glyphs(60, 160, 12, 8, 2, false)
      .box(220, 20, 160, 60)
      .glyphs(235, 40, 12, 9, 1, false);
    const rs = noMask(findTextRegions(c));
    expect(rs).toHaveLength(2);
    expect(rs[0]).toMatchObject({ kind: "caption", vertical: false, x: 221, y: 21 });
    expect(rs[1]).toMatchObject({ kind: "bubble", vertical: false });
  });

  it("ignores empty bubbles, the paper around panels, grey art and screentone", () => {
    const c = new Canvas(400, 400, 255).rect(20, 20, 360, 360, 150);
    for (let y = 30; y < 370; y += 8) for (let x = 30; x < 370; x += 8) c.rect(x, y, 3, 3, 40); // screentone
    c.rect(40, 300, 300, 10, 0); // a stroke
    c.bubble(200, 150, 80, 60); // empty bubble
    expect(findTextRegions(c)).toEqual([]);
  });

  it("finds bubbles cut by the page border or sitting in a corner, with their masks", () => {
    const c = new Canvas(400, 500)
      .bubble(40, 120, 110, 70) // cut by the left edge
      .glyphs(10, 100, 12, 6, 2, false)
      .bubble(360, 20, 90, 80) // in the top-right corner
      .glyphs(320, 10, 12, 5, 2, false)
      .bubble(200, 380, 90, 60) // inside the page
      .glyphs(150, 365, 12, 6, 2, false);
    const rs = findTextRegions(c);
    expect(rs).toHaveLength(3);
    for (const r of rs) {
      expect(r.kind).toBe("bubble");
      expect(r.mask).toHaveLength(r.width * r.height);
    }
    expect(rs.some((r) => r.x === 0 && r.y > 0)).toBe(true);
    expect(rs.some((r) => r.y === 0 && r.x + r.width === 400)).toBe(true);
  });

  it("white paper from one page side to the opposite one is not a bubble, even with text on it", () => {
    // A white band across the page between two panels, with a caption's glyphs on it.
    const c = new Canvas(400, 400).rect(0, 150, 400, 60, 255).glyphs(120, 170, 12, 8, 1, false);
    const rs = findTextRegions(c);
    expect(rs.every((r) => r.kind === "caption" && r.mask === undefined)).toBe(true);
  });

  it("refuses a white shape framing a big drawing (not text)", () => {
    const c = new Canvas(300, 300).rect(50, 50, 200, 200, 255).rect(60, 60, 180, 180, 0).rect(70, 70, 160, 160, 255);
    // The inner white square sits in a hole framed by a big dark shape: no glyph-sized ink.
    expect(noMask(findTextRegions(c)).filter((r) => r.width > 150)).toEqual([]);
  });

  it("clusters text set straight on white paper into a caption block", () => {
    const c = new Canvas(400, 300, 255).glyphs(30, 30, 12, 10, 2, false).glyphs(330, 150, 14, 6, 2, true);
    const rs = noMask(findTextRegions(c));
    expect(rs).toHaveLength(2);
    // Reading order: the right block (top 150) comes after the upper left one (a separate band).
    expect(rs[0]).toMatchObject({ kind: "caption", vertical: false });
    expect(rs[0]!.x).toBeLessThanOrEqual(30);
    expect(rs[1]).toMatchObject({ kind: "caption", vertical: true });
  });

  it("ignores a lone mark on paper", () => {
    expect(findTextRegions(new Canvas(200, 200, 255).rect(100, 100, 10, 10, 0))).toEqual([]);
  });

  it("rejects a buffer smaller than its dimensions; tiny pages have no regions", () => {
    expect(() => findTextRegions({ data: new Uint8Array(10), width: 10, height: 10 })).toThrow(RangeError);
    expect(findTextRegions(new Canvas(4, 4, 255))).toEqual([]);
  });
});

describe("isVerticalLayout", () => {
  const boxes = (vertical: boolean, per: number, count: number, size = 10) => {
    const out = [];
    for (let k = 0; k < count; k++)
      for (let n = 0; n < per; n++) {
        const a = n * Math.round(size * 1.15),
          b = k * size * 1.6;
        const [x, y] = vertical ? [-b, a] : [a, b];
        out.push({ x0: x, y0: y, x1: x + size - 1, y1: y + size - 1 });
      }
    return out;
  };
  it.each([
    [1, 1],
    [5, 1],
    [5, 2],
    [6, 3],
    [3, 6],
    [2, 5],
  ])("%i glyphs × %i lines/columns", (per, count) => {
    // One square alone is as wide as tall: horizontal by default.
    expect(isVerticalLayout(boxes(true, per, count))).toBe(!(per === 1 && count === 1));
    expect(isVerticalLayout(boxes(false, per, count))).toBe(false);
  });
  it("no glyphs: horizontal", () => expect(isVerticalLayout([])).toBe(false));
});

describe("readingOrder", () => {
  const r = (x: number, y: number, width = 50, height = 50) => ({ x, y, width, height });
  it("right to left inside a band, bands top to bottom", () => {
    expect(readingOrder([r(0, 10), r(200, 0), r(100, 300), r(300, 320)])).toEqual([
      r(200, 0),
      r(0, 10),
      r(300, 320),
      r(100, 300),
    ]);
  });
});

describe("properties", () => {
  const page = fc.record({
    w: fc.integer({ min: 40, max: 160 }),
    h: fc.integer({ min: 40, max: 160 }),
    bg: fc.integer({ min: 0, max: 255 }),
    shapes: fc.array(
      fc.record({
        kind: fc.constantFrom("rect", "bubble", "box", "glyphs"),
        x: fc.nat(150),
        y: fc.nat(150),
        a: fc.integer({ min: 3, max: 60 }),
        b: fc.integer({ min: 3, max: 60 }),
        v: fc.integer({ min: 0, max: 255 }),
        vertical: fc.boolean(),
      }),
      { maxLength: 6 },
    ),
  });
  const paint = (p: typeof page extends fc.Arbitrary<infer T> ? T : never) => {
    const c = new Canvas(p.w, p.h, p.bg);
    for (const s of p.shapes) {
      if (s.kind === "rect") c.rect(s.x, s.y, s.a, s.b, s.v);
      else if (s.kind === "bubble") c.bubble(s.x, s.y, s.a, s.b);
      else if (s.kind === "box") c.box(s.x, s.y, s.a + 4, s.b + 4);
      else c.glyphs(s.x, s.y, Math.max(5, s.a % 12), 1 + (s.b % 5), 1 + (s.v % 3), s.vertical);
    }
    return c;
  };

  it("regions lie within the page, masks fit their boxes, no two regions are duplicates", () => {
    fc.assert(
      fc.property(page, (p) => {
        const rs = findTextRegions(paint(p));
        for (const r of rs) {
          expect(r.x).toBeGreaterThanOrEqual(0);
          expect(r.y).toBeGreaterThanOrEqual(0);
          expect(r.width).toBeGreaterThan(0);
          expect(r.height).toBeGreaterThan(0);
          expect(r.x + r.width).toBeLessThanOrEqual(p.w);
          expect(r.y + r.height).toBeLessThanOrEqual(p.h);
          if (r.mask) expect(r.mask.length).toBe(r.width * r.height);
        }
        for (const [i, a] of rs.entries())
          for (const b of rs.slice(i + 1)) {
            const ox = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
            const oy = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
            expect(ox * oy).toBeLessThanOrEqual(0.5 * Math.min(a.width * a.height, b.width * b.height));
          }
      }),
      { numRuns: 150 },
    );
  });

  it("a blank page, whatever its grey, has no regions", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 120 }),
        fc.integer({ min: 8, max: 120 }),
        fc.integer({ min: 0, max: 255 }),
        (w, h, v) => findTextRegions(new Canvas(w, h, v)).length === 0,
      ),
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(page, (p) => {
        expect(noMask(findTextRegions(paint(p)))).toEqual(noMask(findTextRegions(paint(p))));
      }),
      { numRuns: 50 },
    );
  });
});

describe("glyphSize", () => {
  it("is the height of horizontal glyphs and the width of vertical ones, 0 without ink", () => {
    const c = new Canvas(200, 100, 255).rect(10, 10, 12, 30, 0).rect(30, 10, 12, 30, 0).rect(50, 30, 3, 3, 0);
    expect(glyphSize(c, false)).toBe(30);
    expect(glyphSize(c, true)).toBe(12);
    expect(glyphSize(new Canvas(20, 20, 255), false)).toBe(0);
  });
});
