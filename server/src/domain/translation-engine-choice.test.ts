/** Which engine a job works with when the processor URL is set or cleared (engineSwitch). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { engineSwitch, TRANSLATION_STATES, type TranslationState } from "./translation-jobs.ts";

const engines = ["external", "local"] as const;
const facts = (state: TranslationState, pausedFrom: TranslationState | null = null) => ({ state, pausedFrom });

describe("engineSwitch", () => {
  it("a queued job follows the settings both ways", () => {
    expect(engineSwitch(facts("queued"), "external", "local")).toEqual({
      engine: "local",
      state: "queued",
      pausedFrom: null,
    });
    expect(engineSwitch(facts("queued"), "local", "external")).toEqual({
      engine: "external",
      state: "queued",
      pausedFrom: null,
    });
  });

  it("a job whose source was still being uploaded starts over queued with the selected engine", () => {
    expect(engineSwitch(facts("uploading"), "external", "local")).toEqual({
      engine: "local",
      state: "queued",
      pausedFrom: null,
    });
    expect(engineSwitch(facts("paused", "uploading"), "external", "local")).toEqual({
      engine: "local",
      state: "paused",
      pausedFrom: "queued",
    });
  });

  it("a job already submitted keeps its engine; an unchanged engine is no change", () => {
    expect(engineSwitch(facts("submitted"), "external", "local")).toBeNull();
    expect(engineSwitch(facts("running"), "local", "external")).toBeNull();
    expect(engineSwitch(facts("paused", "running"), "external", "local")).toBeNull();
    expect(engineSwitch(facts("cancelling"), "external", "local")).toBeNull();
    expect(engineSwitch(facts("queued"), "local", "local")).toBeNull();
  });

  it("property: a switch always lands on the selected engine, queued (or paused from queued), and only before a submit", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TRANSLATION_STATES),
        fc.option(fc.constantFrom(...TRANSLATION_STATES), { nil: null }),
        fc.constantFrom(...engines),
        fc.constantFrom(...engines),
        (state, pausedFrom, current, selected) => {
          const next = engineSwitch({ state, pausedFrom }, current, selected);
          if (next === null) return;
          expect(current).not.toBe(selected);
          expect(next.engine).toBe(selected);
          const before = state === "paused" ? pausedFrom : state;
          expect(["queued", "uploading"]).toContain(before);
          expect(next.state === "queued" || (next.state === "paused" && next.pausedFrom === "queued")).toBe(true);
        },
      ),
    );
  });
});
