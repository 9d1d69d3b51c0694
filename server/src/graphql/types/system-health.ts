/** The service's health (REST GET /api/system/health). */
import { builder } from "../builder.ts";
import type { HealthCheck, HealthCode } from "../../domain/health.ts";
import type { SystemHealth } from "../../services/system-health.ts";

const HealthLevelEnum = builder.enumType("HealthLevel", {
  values: {
    WARNING: { value: "warning", description: "The service works, but something needs attention." },
    ERROR: { value: "error", description: "Part of the service's work cannot be done until it is fixed." },
  } as const,
});

const HealthStatusEnum = builder.enumType("HealthStatus", {
  values: {
    OK: { value: "ok", description: "No check raised." },
    WARNING: { value: "warning", description: "Warnings only." },
    ERROR: { value: "error", description: "At least one error." },
  } as const,
});

const HealthCodeEnum = builder.enumType("HealthCode", {
  description: "A health check; REST spells it in lower case.",
  values: {
    LIBRARY_ROOT_MISSING: { value: "library_root_missing", description: "LIBRARY_ROOT is not a folder." },
    LIBRARY_ROOT_EMPTY: {
      value: "library_root_empty",
      description: "LIBRARY_ROOT holds no series folder while files are recorded in it (an unmounted disk?).",
    },
    LIBRARY_ROOT_NOT_WRITABLE: {
      value: "library_root_not_writable",
      description: "The service cannot write in the library folder.",
    },
    DISK_SPACE_LOW: { value: "disk_space_low", description: "Little free space on the library's disk." },
    LIBRARY_NOT_SCANNED: { value: "library_not_scanned", description: "Series folders no scan recorded yet." },
    SUWAYOMI_UNREACHABLE: { value: "suwayomi_unreachable", description: "Suwayomi is in use but did not answer." },
    SOURCES_FAILING: {
      value: "sources_failing",
      description: "Linked sources whose latest downloads mostly failed or were degraded.",
    },
  } satisfies Record<Uppercase<HealthCode>, { value: HealthCode; description: string }>,
});

const HealthCheckRef = builder.objectRef<HealthCheck>("HealthCheck").implement({
  fields: (t) => ({
    code: t.field({ type: HealthCodeEnum, resolve: (c) => c.code }),
    level: t.field({ type: HealthLevelEnum, resolve: (c) => c.level }),
    message: t.exposeString("message", { description: "What was found and what to do." }),
  }),
});

const SystemHealthRef = builder.objectRef<SystemHealth>("SystemHealth").implement({
  description: "What keeps the service from its work, as the *arr apps' System → Status → Health.",
  fields: (t) => ({
    status: t.field({ type: HealthStatusEnum, resolve: (h) => h.status }),
    checks: t.field({ type: [HealthCheckRef], resolve: (h) => h.checks }),
  }),
});

builder.queryFields((t) => ({
  systemHealth: t.field({
    type: SystemHealthRef,
    resolve: (_r, _a, { services }) => services.systemHealth.get(),
  }),
}));
