import { describe, expect, it } from "vitest";
import { KEEP, checkSentences, mountInput, optionalText, secretInput, secretStatus } from "./settings";

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

describe("checkSentences", () => {
  const off = { status: "OFF" as const, detail: "not enabled" };
  it("says what answered, what did not and why, and nothing of a service that is off", () => {
    expect(
      checkSentences({
        prowlarr: { status: "OK", detail: null, indexers: 3 },
        qbittorrent: {
          status: "FAILED",
          detail: "qBittorrent: login failed: wrong user name or password",
          version: null,
        },
      }),
    ).toEqual({
      answered: ["Prowlarr answered: 3 indexers enabled."],
      failed: ["qBittorrent did not answer: qBittorrent: login failed: wrong user name or password"],
    });
    expect(
      checkSentences({
        prowlarr: { ...off, indexers: null },
        qbittorrent: { status: "OK", detail: null, version: "v5.0.2" },
      }),
    ).toEqual({ answered: ["qBittorrent answered: version v5.0.2."], failed: [] });
  });

  it("warns when Prowlarr answers with no enabled indexer", () => {
    expect(
      checkSentences({ prowlarr: { status: "OK", detail: null, indexers: 0 }, qbittorrent: { ...off, version: null } })
        .answered,
    ).toEqual(["Prowlarr answered, but none of its indexers is enabled: enable one in Prowlarr."]);
  });
});
