import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isAppError } from "../errors.ts";
import { canonicalJson, createConfirmations, requireSameSnapshot } from "./confirmation.ts";

const key = (k: string) => ({ sign: (payload: string) => createHmac("sha256", k).update(payload).digest("base64url") });

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isAppError(e)) return `${e.status} ${e.code}`;
    throw e;
  }
  return "no error";
}

describe("confirmation tokens", () => {
  let now = 1_700_000_000_000;
  const c = createConfirmations(key("k1"), { ttlMs: 60_000, now: () => now });
  const snapshot = { files: [{ id: 3, sha256: "ab", size: "12" }], releases: [7] };

  it("a token verifies for its operation and series and gives back the snapshot", () => {
    const { token, expiresAt } = c.sign("audit.retire", 5, snapshot);
    expect(token).toMatch(/^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(expiresAt.getTime()).toBe(now + 60_000);
    expect(c.verify(token, "audit.retire", 5)).toEqual(snapshot);
  });

  it("another operation or series, a forged or malformed token: 400 confirmation_invalid", () => {
    const { token } = c.sign("audit.retire", 5, snapshot);
    const [prefix, body, mac] = token.split(".") as [string, string, string];
    const forgedBody = Buffer.from(
      canonicalJson({
        kind: "audit.retire",
        seriesId: 5,
        expiresAt: now + 60_000,
        snapshot: { ...snapshot, files: [] },
      }),
    ).toString("base64url");
    const cases: [string, unknown, string, number][] = [
      ["other operation", token, "audit.reject_source", 5],
      ["other series", token, "audit.retire", 6],
      ["payload changed, old MAC", `${prefix}.${forgedBody}.${mac}`, "audit.retire", 5],
      [
        "MAC of another key",
        createConfirmations(key("k2"), { now: () => now }).sign("audit.retire", 5, snapshot).token,
        "audit.retire",
        5,
      ],
      ["MAC cut short", `${prefix}.${body}.${mac.slice(0, -2)}`, "audit.retire", 5],
      ["no MAC", `${prefix}.${body}`, "audit.retire", 5],
      ["other version", `c2.${body}.${mac}`, "audit.retire", 5],
      ["not a string", 42, "audit.retire", 5],
      ["missing", undefined, "audit.retire", 5],
      ["empty", "", "audit.retire", 5],
      ["valid MAC over garbage", `c1.Zm9v.${key("k1").sign("confirmation:c1:Zm9v")}`, "audit.retire", 5],
    ];
    for (const [name, t, kind, series] of cases)
      expect(
        codeOf(() => c.verify(t, kind, series)),
        name,
      ).toBe("400 confirmation_invalid");
  });

  it("a session cookie signed with the same key is not a token", () => {
    const body = Buffer.from(
      canonicalJson({ kind: "audit.retire", seriesId: 5, expiresAt: now + 1, snapshot }),
    ).toString("base64url");
    const sessionMac = key("k1").sign(`session:${body}`);
    expect(codeOf(() => c.verify(`c1.${body}.${sessionMac}`, "audit.retire", 5))).toBe("400 confirmation_invalid");
  });

  it("an expired token: 409 snapshot_stale (preview again)", () => {
    const { token } = c.sign("audit.retire", 5, snapshot);
    now += 60_000;
    expect(codeOf(() => c.verify(token, "audit.retire", 5))).toBe("409 snapshot_stale");
    now -= 1;
    expect(c.verify(token, "audit.retire", 5)).toEqual(snapshot);
  });
});

describe("snapshots", () => {
  it("canonical JSON ignores key order, not array order or values", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ n: 10n })).toBe('{"n":"10"}');
  });

  it("requireSameSnapshot passes equal states and answers 409 snapshot_stale otherwise", () => {
    const a = { files: [{ id: 1, sha256: "x", disk: { size: "3" } }] };
    expect(codeOf(() => requireSameSnapshot(a, { files: [{ disk: { size: "3" }, sha256: "x", id: 1 }] }))).toBe(
      "no error",
    );
    expect(codeOf(() => requireSameSnapshot(a, { files: [{ id: 1, sha256: "y", disk: { size: "3" } }] }))).toBe(
      "409 snapshot_stale",
    );
    expect(codeOf(() => requireSameSnapshot(a, { files: [] }))).toBe("409 snapshot_stale");
  });
});
