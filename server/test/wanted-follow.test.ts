/**
 * A Wanted pass asked for while one runs is one more pass after it, shared by every request made
 * meanwhile: never the pass under way, which may have read the series before the change that asked
 * for a pass (a block, a link). Service test on prepared state (a slot, a mapping, an offer).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineApp, seriesWithSlots } from "./downloads-fixtures.ts";
import type { TestApp } from "./utils.ts";

let app: TestApp;
beforeAll(async () => {
  app = await pipelineApp();
});
afterAll(() => app.dispose());

describe("Wanted pass requests while a pass runs", () => {
  it("are answered by one more pass after it, shared; then the series is free again", async () => {
    const id = await seriesWithSlots(app, "Follow Up", ["1", "2"]);
    const wanted = app.services.wanted;
    const first = wanted.runPass(id, { force: true });
    const second = wanted.runPass(id);
    const third = wanted.runPass(id, { force: true });
    expect(second).not.toBe(first);
    expect(third).toBe(second);
    const [a, b] = await Promise.all([first, second]);
    // The follow-up ran after the first ended: its pass is a later one.
    expect(b.lastPassAt!.getTime()).toBeGreaterThanOrEqual(a.lastPassAt!.getTime());
    expect(b).not.toBe(a);
    // Nothing runs now: a new request starts a pass of its own, and it is not the follow-up.
    const fourth = wanted.runPass(id);
    expect(fourth).not.toBe(second);
    await fourth;
    await wanted.settle();
  });

  it("a failed pass does not stop the follow-up", async () => {
    const first = app.services.wanted.runPass(999_999);
    const second = app.services.wanted.runPass(999_999);
    expect(second).not.toBe(first);
    await expect(first).rejects.toMatchObject({ code: "series_not_found" });
    await expect(second).rejects.toMatchObject({ code: "series_not_found" });
  });
});
