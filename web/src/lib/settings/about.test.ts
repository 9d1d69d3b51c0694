import { describe, expect, it } from "vitest";
import { aboutRows, type SystemStatus } from "./about";

const status: SystemStatus = {
  version: "0.1.0",
  startedAt: "2026-03-12T14:05:00.000Z",
  uptimeSeconds: 7200,
  nodeVersion: "20.19.2",
  database: { kind: "SQLITE", version: "3.46.1" },
  events: "IN_PROCESS",
  instanceRole: "ALL",
  libraryRoot: "/srv/manga",
  dataDir: "/var/lib/manga-library",
  library: { series: 1, files: 12, bytes: 1_250_000_000 },
};

describe("about words", () => {
  it("lists what the service runs on, in order", () => {
    expect(aboutRows(status, new Date("2026-03-12T16:05:00.000Z"), "UTC")).toEqual([
      ["Version", "0.1.0"],
      ["Running since", "12 Mar 2026, 14:05 (2 hours ago)"],
      ["Library", "1 series, 12 files, 1.3 GB"],
      ["Library folder", "/srv/manga"],
      ["Data folder", "/var/lib/manga-library"],
      ["Database", "SQLite 3.46.1"],
      ["Events", "In this process (one instance)"],
      ["This instance", "Web, API and background work"],
      ["Node.js", "20.19.2"],
    ]);
  });

  it("names PostgreSQL, Redis and the instance's role", () => {
    const rows = new Map(
      aboutRows({
        ...status,
        database: { kind: "POSTGRESQL", version: null },
        events: "REDIS",
        instanceRole: "WORKER",
        library: { series: 3, files: 1, bytes: 0 },
      }),
    );
    expect(rows.get("Database")).toBe("PostgreSQL");
    expect(rows.get("Events")).toBe("Through Redis (several instances)");
    expect(rows.get("This instance")).toBe("Background work only");
    expect(rows.get("Library")).toBe("3 series, 1 file, 0 B");
  });
});
