import { describe, expect, it } from "vitest";
import { komgaScanInterval } from "./komga-dto.ts";

describe("komgaScanInterval", () => {
  it("names the service's interval by Komga's closest value at or above it", () => {
    expect([0, 60, 3600, 3601, 21_600, 43_200, 86_400, 86_401].map((s) => [s, komgaScanInterval(s)])).toEqual([
      [0, "DISABLED"],
      [60, "HOURLY"],
      [3600, "HOURLY"],
      [3601, "EVERY_6H"],
      [21_600, "EVERY_6H"],
      [43_200, "EVERY_12H"],
      [86_400, "DAILY"],
      [86_401, "WEEKLY"],
    ]);
  });
});
