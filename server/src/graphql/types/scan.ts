import type { ScanResult } from "../../services/series/scan-service.ts";
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
