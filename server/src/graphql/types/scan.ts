import type { LibraryInfo, ScanResult } from "../../services/series/scan-service.ts";
import { builder } from "../builder.ts";

const ScanErrorRef = builder.objectRef<ScanResult["errors"][number]>("ScanError").implement({
  fields: (t) => ({ path: t.exposeString("path"), code: t.exposeString("code"), message: t.exposeString("message") }),
});

const ScanResultRef = builder.objectRef<ScanResult>("ScanResult").implement({
  fields: (t) => ({
    added: t.exposeInt("added"),
    changed: t.exposeInt("changed"),
    moved: t.exposeInt("moved"),
    removed: t.exposeInt("removed"),
    unchanged: t.exposeInt("unchanged"),
    seriesCreated: t.exposeInt("seriesCreated"),
    errors: t.field({ type: [ScanErrorRef], resolve: (r) => r.errors }),
  }),
});

builder.mutationField("scanLibrary", (t) =>
  t.field({ type: ScanResultRef, resolve: (_r, _a, { services }) => services.scan.scan() }),
);

const LibraryInfoRef = builder.objectRef<LibraryInfo>("LibraryInfo").implement({
  description: "Where the library is on the server.",
  fields: (t) => ({
    root: t.exposeString("root", { description: "LIBRARY_ROOT: one folder per series, holding its CBZ files." }),
    recycleBin: t.exposeString("recycleBin", { description: "Where retired files go, restorable." }),
    scanIntervalSeconds: t.exposeInt("scanIntervalSeconds", {
      description: "Seconds between scheduled library scans; 0 scans only when asked.",
    }),
  }),
});

builder.queryField("library", (t) =>
  t.field({ type: LibraryInfoRef, resolve: (_r, _a, { services }) => services.scan.info() }),
);
