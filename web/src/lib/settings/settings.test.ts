import { describe, expect, it } from "vitest";
import { KEEP, mountInput, optionalText, secretInput, secretStatus } from "./settings";

describe("settings helpers", () => {
  it("keeps, replaces or clears a secret, never sending the mask", () => {
    expect(secretInput(KEEP)).toEqual({});
    expect(secretInput({ replacement: "hunter2", clear: false })).toEqual({ value: "hunter2" });
    expect(secretInput({ replacement: "ignored", clear: true })).toEqual({ value: null });
  });

  it("says set / not set", () => {
    expect(secretStatus(true)).toBe("set");
    expect(secretStatus(false)).toBe("not set");
  });

  it("clears empty text fields", () => {
    expect(optionalText("  ")).toBeNull();
    expect(optionalText(" http://x ")).toBe("http://x");
  });

  it("needs both mount folders or none", () => {
    expect(mountInput("", " ")).toEqual({ mount: null });
    expect(mountInput("/downloads", "/mnt/dl")).toEqual({ mount: { clientPath: "/downloads", localPath: "/mnt/dl" } });
    expect(mountInput("/downloads", "")).toEqual({ problem: "Give both folders of the mount mapping, or neither." });
  });
});
