/** The service's About (REST GET /api/system/status). */
import { builder } from "../builder.ts";
import type { SystemStatus } from "../../services/system-status.ts";

const DatabaseKindEnum = builder.enumType("DatabaseKind", {
  values: {
    SQLITE: { value: "sqlite", description: "The embedded SQLite database in the data folder." },
    POSTGRESQL: { value: "postgresql", description: "A PostgreSQL server (DATABASE_URL)." },
  } as const,
});

const EventsTransportEnum = builder.enumType("EventsTransport", {
  values: {
    IN_PROCESS: { value: "in_process", description: "Events stay in this process (one instance)." },
    REDIS: { value: "redis", description: "Events travel between instances through Redis (REDIS_URL)." },
  } as const,
});

const InstanceRoleEnum = builder.enumType("InstanceRole", {
  values: {
    ALL: { value: "all", description: "HTTP, the background workers and the schedules." },
    API: { value: "api", description: "HTTP only." },
    WORKER: { value: "worker", description: "The background workers and the schedules only." },
  } as const,
});

const DatabaseRef = builder.objectRef<SystemStatus["database"]>("DatabaseInfo").implement({
  fields: (t) => ({
    kind: t.field({ type: DatabaseKindEnum, resolve: (d) => d.kind }),
    version: t.exposeString("version", { nullable: true }),
  }),
});

const LibraryTotalsRef = builder.objectRef<SystemStatus["library"]>("LibraryTotals").implement({
  fields: (t) => ({
    series: t.exposeInt("series"),
    files: t.exposeInt("files", { description: "Active library files." }),
    bytes: t.float({ description: "Their bytes.", resolve: (l) => l.bytes }),
  }),
});

const SystemStatusRef = builder.objectRef<SystemStatus>("SystemStatus").implement({
  description:
    "Since when the service runs, on what, and where it keeps things (the *arr apps' System → Status → About).",
  fields: (t) => ({
    version: t.exposeString("version", { description: "The product's version." }),
    startedAt: t.exposeString("startedAt", { description: "ISO 8601." }),
    uptimeSeconds: t.exposeInt("uptimeSeconds"),
    nodeVersion: t.exposeString("nodeVersion"),
    database: t.field({ type: DatabaseRef, resolve: (s) => s.database }),
    events: t.field({ type: EventsTransportEnum, resolve: (s) => s.events }),
    instanceRole: t.field({ type: InstanceRoleEnum, resolve: (s) => s.instanceRole }),
    libraryRoot: t.exposeString("libraryRoot"),
    dataDir: t.exposeString("dataDir"),
    library: t.field({ type: LibraryTotalsRef, resolve: (s) => s.library }),
  }),
});

builder.queryFields((t) => ({
  systemStatus: t.field({
    type: SystemStatusRef,
    resolve: (_r, _a, { services }) => services.systemStatus.get(),
  }),
}));
