/**
 * The service's About (GET /api/system/status, GraphQL `systemStatus`, the Settings page), as the
 * *arr apps' System → Status → About and Komga's server page: which version, since when it runs,
 * what it runs on (Node, the database and its version, how events travel, the instance's role),
 * where it keeps the library and its data, and the library's totals. Never a connection string or
 * a secret.
 */
import { PRODUCT_VERSION, type InstanceRole } from "../config.ts";
import { systemRepo } from "../repositories/system-repo.ts";
import type { AppContext } from "./context.ts";

export interface SystemStatus {
  /** The product's version (the repository's package.json). */
  version: string;
  startedAt: string;
  uptimeSeconds: number;
  nodeVersion: string;
  database: { kind: "sqlite" | "postgresql"; version: string | null };
  /** How events reach the browsers of other instances: in this process, or through Redis. */
  events: "in_process" | "redis";
  instanceRole: InstanceRole;
  libraryRoot: string;
  dataDir: string;
  library: { series: number; files: number; bytes: number };
}

export function systemStatusService(ctx: AppContext) {
  const startedAt = new Date();
  const repo = systemRepo(ctx.db);
  return {
    async get(): Promise<SystemStatus> {
      const [database, library] = await Promise.all([repo.database(), repo.libraryTotals()]);
      return {
        version: PRODUCT_VERSION,
        startedAt: startedAt.toISOString(),
        uptimeSeconds: Math.floor((Date.now() - startedAt.getTime()) / 1000),
        nodeVersion: process.versions.node,
        database,
        events: ctx.config.redisUrl === null ? "in_process" : "redis",
        instanceRole: ctx.config.instanceRole,
        libraryRoot: ctx.config.libraryRoot,
        dataDir: ctx.config.dataDir,
        library,
      };
    },
  };
}
