import { describe, expect, it } from "vitest";
import { defaultSettings, loadSettings, saveSettings, settingsKey, type KeyValueStore } from "./settings";

function memory(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

describe("reader settings", () => {
  it("defaults by kind of series", () => {
    expect(defaultSettings(false)).toEqual({ mode: "paged", direction: "rtl" });
    expect(defaultSettings(true)).toEqual({ mode: "continuous", direction: "ltr" });
    expect(loadSettings(null, 1, false)).toEqual({ mode: "paged", direction: "rtl" });
  });

  it("remembers per series", () => {
    const store = memory();
    saveSettings(store, 4, { mode: "continuous", direction: "ltr" });
    expect(loadSettings(store, 4, false)).toEqual({ mode: "continuous", direction: "ltr" });
    expect(loadSettings(store, 5, false)).toEqual({ mode: "paged", direction: "rtl" });
  });

  it("ignores broken values", () => {
    const store = memory();
    store.data.set(settingsKey(1), "{not json");
    expect(loadSettings(store, 1, true)).toEqual(defaultSettings(true));
    store.data.set(settingsKey(1), JSON.stringify({ mode: "sideways", direction: "ltr" }));
    expect(loadSettings(store, 1, false)).toEqual({ mode: "paged", direction: "ltr" });
    const throwing: KeyValueStore = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("denied");
      },
    };
    expect(loadSettings(throwing, 1, false)).toEqual(defaultSettings(false));
    expect(() => saveSettings(throwing, 1, defaultSettings(false))).not.toThrow();
  });
});
