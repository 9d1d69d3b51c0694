/**
 * GraphQL `seriesPage`: the rule core's grouping (domain/grouping.ts) of the units view, translated
 * and nothing else. For every demo series and several option combinations the answer equals
 * `groupSeriesPage` computed here from the REST units view; a 2,000-chapter series is the same
 * fixed number of statements as a small one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  groupSeriesPage,
  type GroupingOptions,
  type PageRow,
  type RowAction,
  type SeriesPageModel,
} from "../src/domain/grouping.ts";
import { countStatements, gqlEnum, restUnitsView, seriesByTitle, writeBigSeries } from "./web-support-helpers.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const ROW = `key kind number title owned ownedText monitored pageCount plan planText coverage fileIds problems problem estimateHint
  primary { id label } menu { id label }`;
const SERIES_PAGE_QUERY = `query($id: Int!, $filter: UnitFilter, $reversed: Boolean, $problemsOnly: Boolean) {
  seriesPage(seriesId: $id, filter: $filter, reversed: $reversed, problemsOnly: $problemsOnly) {
    seriesId form map status planWording layout notice offerMapEditor
    groups { key collapsed coverText note duplicates { count fileIds note } book { ${ROW} } children { ${ROW} } }
    sections { key title rows { ${ROW} } }
    loose { key title children { ${ROW} } }
  }
}`;

const action = (a: RowAction | null) => (a === null ? null : { id: gqlEnum(a.id), label: a.label });
const row = (r: PageRow) => ({
  key: r.key,
  kind: gqlEnum(r.kind),
  number: r.number,
  title: r.title,
  owned: r.owned,
  ownedText: r.ownedText,
  monitored: r.monitored,
  pageCount: r.pageCount,
  plan: gqlEnum(r.plan),
  planText: r.planText,
  coverage: gqlEnum(r.coverage),
  fileIds: r.fileIds,
  problems: r.problems,
  problem: r.problem,
  estimateHint: r.estimateHint,
  primary: action(r.primary),
  menu: r.menu.map(action),
});

/** The domain model as the GraphQL answer spells it (enum names in capitals, `options` not exposed). */
function asGraphQL(m: SeriesPageModel) {
  return {
    seriesId: m.seriesId,
    form: gqlEnum(m.form),
    map: gqlEnum(m.map),
    status: gqlEnum(m.status),
    planWording: gqlEnum(m.planWording),
    layout: gqlEnum(m.layout),
    notice: m.notice,
    offerMapEditor: m.offerMapEditor,
    groups: m.groups.map((g) => ({
      key: g.key,
      collapsed: g.collapsed,
      coverText: g.coverText,
      note: g.note,
      duplicates: g.duplicates,
      book: row(g.book),
      children: g.children.map(row),
    })),
    sections: m.sections.map((s) => ({ key: s.key, title: s.title, rows: s.rows.map(row) })),
    loose: m.loose && { key: m.loose.key, title: m.loose.title, children: m.loose.children.map(row) },
  };
}

const OPTIONS: GroupingOptions[] = [
  { filter: "all", reversed: false, problemsOnly: false },
  { filter: "all", reversed: true, problemsOnly: false },
  { filter: "missing", reversed: false, problemsOnly: false },
  { filter: "downloaded", reversed: true, problemsOnly: false },
  { filter: "monitored", reversed: false, problemsOnly: true },
  { filter: "all", reversed: false, problemsOnly: true },
];

describe("GraphQL seriesPage", () => {
  let app: TestApp;
  let ids: Map<string, number>;

  beforeAll(async () => {
    app = await createTestApp({ demo: true });
    ids = await seriesByTitle(app);
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const page = async (id: number, o: Partial<GroupingOptions> & { filter?: string } = {}) => {
    const vars: Record<string, unknown> = { id };
    if (o.filter !== undefined) vars.filter = o.filter.toUpperCase();
    if (o.reversed !== undefined) vars.reversed = o.reversed;
    if (o.problemsOnly !== undefined) vars.problemsOnly = o.problemsOnly;
    const r = await app.gql<{ seriesPage: unknown }>(SERIES_PAGE_QUERY, vars);
    expect(r.errors).toBeUndefined();
    return r.data?.seriesPage;
  };

  it("equals groupSeriesPage(units, options) for every demo series and option combination", async () => {
    expect(ids.size).toBe(5);
    const layouts = new Set<string>();
    for (const [title, id] of ids) {
      const view = await restUnitsView(app, id);
      for (const o of OPTIONS) {
        const expected = asGraphQL(groupSeriesPage(view, o));
        expect(await page(id, o), `${title} ${JSON.stringify(o)}`).toEqual(expected);
        layouts.add(expected.layout);
      }
    }
    // The demo exercises both layouts (Harbor has the exact map, the others none).
    expect([...layouts].sort()).toEqual(["FLAT", "GROUPED"]);
  });

  it("defaults: filter ALL, reading order, every row", async () => {
    const id = ids.get("Harbor of Paper Cranes")!;
    const view = await restUnitsView(app, id);
    expect(await page(id)).toEqual(
      asGraphQL(groupSeriesPage(view, { filter: "all", reversed: false, problemsOnly: false })),
    );
  });

  it("Harbor (exact map): books nested with their chapters, owned books collapsed, book 4 tells its chapters on disk", async () => {
    const p = (await page(ids.get("Harbor of Paper Cranes")!)) as ReturnType<typeof asGraphQL>;
    expect(p.layout).toBe("GROUPED");
    expect(p.groups.map((g) => [g.book.number, g.collapsed])).toEqual([
      ["1", true],
      ["2", true],
      ["3", true],
      ["4", false],
      ["5", false],
    ]);
    expect(p.groups[3]?.coverText).toBe("7 of 8 chapters on disk");
    expect(p.groups[3]?.children.map((c) => c.number)).toEqual(["25", "26", "27", "28", "29", "30", "31", "32"]);
  });

  it("unknown series → series_not_found; an unknown filter is refused by the schema", async () => {
    const r = await app.gql(SERIES_PAGE_QUERY, { id: 424242 });
    expect(r.errors?.[0]?.extensions?.code).toBe("series_not_found");
    const bad = await app.gql(`{ seriesPage(seriesId: ${ids.get("Moss & Meteor")}, filter: EVERYTHING) { seriesId } }`);
    expect(bad.errors?.[0]?.message).toMatch(/UnitFilter/);
    // The same mistake in a variable: a client error in words (bad_request), not "internal".
    const badVariable = await app.gql(SERIES_PAGE_QUERY, { id: ids.get("Moss & Meteor"), filter: "EVERYTHING" });
    expect(badVariable.errors?.[0]?.extensions?.code).toBe("bad_request");
    expect(badVariable.errors?.[0]?.message).toMatch(/EVERYTHING/);
  });

  it("a 2,000-chapter series costs the same fixed number of statements as a 10-chapter one", async () => {
    const small = await writeBigSeries(app, "Page Small", 10, 1, () => true);
    const big = await writeBigSeries(app, "Page Big", 2000, 150, (b) => b % 3 !== 0);
    const s = await countStatements(app, () => page(small.id));
    const b = await countStatements(app, () => page(big.id, { filter: "missing" }));
    const all = (await page(big.id)) as ReturnType<typeof asGraphQL>;
    expect(all.groups).toHaveLength(150);
    expect(all.groups.reduce((n, g) => n + g.children.length, 0)).toBe(2000);
    // The series' revision, then the units view's fixed lookup (series row, map sources, proofs in one
    // statement) and five bulk selects.
    expect(s.count, s.statements.join("\n")).toBe(7);
    expect(b.count, b.statements.join("\n")).toBe(s.count);
  });
});
