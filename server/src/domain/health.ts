/**
 * The service's health, as the *arr apps' System → Status → Health: what keeps it from doing its
 * work, each with a stable code, a level and what to do. Pure: the health service reads the facts
 * (the library folder on disk, the scan, the Suwayomi connection, the sources' latest downloads)
 * and this decides.
 *
 * - `library_root_missing` (error): LIBRARY_ROOT is not a folder; nothing can be scanned or stored.
 * - `library_root_empty` (error): LIBRARY_ROOT holds no series folder while active files are
 *   recorded in it (the empty mount point of an unmounted disk); the background work waits.
 * - `library_root_not_writable` (error): downloads, assemblies and retirements cannot write there.
 * - `disk_space_low`: the library's file system has less than DISK_WARNING_BYTES free (warning),
 *   or less than DISK_ERROR_BYTES (error): a download or an assembly may not fit.
 * - `library_not_scanned` (warning): series folders that no scan recorded yet (a first start over
 *   an existing collection waits for the operator's scan).
 * - `suwayomi_unreachable` (error): Suwayomi is in use but did not answer; no chapter list is
 *   refreshed and nothing is fetched from it. Its own answer is quoted, never passed off as ours.
 * - `sources_failing` (warning): linked sources whose latest downloads mostly failed or were
 *   degraded (the health their series' Sources pages show as failing), named with their series.
 */

export type HealthLevel = "warning" | "error";
export type HealthStatus = "ok" | HealthLevel;

export const HEALTH_CODES = [
  "library_root_missing",
  "library_root_empty",
  "library_root_not_writable",
  "disk_space_low",
  "library_not_scanned",
  "suwayomi_unreachable",
  "sources_failing",
] as const;
export type HealthCode = (typeof HEALTH_CODES)[number];

export interface HealthCheck {
  code: HealthCode;
  level: HealthLevel;
  message: string;
}

/** Below this much free space on the library's file system: a warning. */
export const DISK_WARNING_BYTES = 1024 ** 3;
/** Below this much: an error (a chapter download or a book assembly may not fit). */
export const DISK_ERROR_BYTES = 100 * 1024 ** 2;

export interface HealthFacts {
  library: {
    path: string;
    /**
     * `missing` also covers a path that is not a folder; `empty`: no series folder while active
     * files are recorded (library/library-root.ts), whether or not it is writable.
     */
    state: "ok" | "missing" | "empty" | "not_writable";
    /** Free bytes for the service on the library's file system; null when unknown. */
    freeBytes: number | null;
  };
  /** Series folders no scan recorded yet (first start over an existing collection). */
  unscannedFolders: number;
  suwayomi: { state: "off" | "ok" } | { state: "unreachable"; url: string; error: string };
  /** Linked sources whose health is failing, with their series' titles. */
  failingSources: readonly { seriesTitle: string; source: string }[];
}

/** How many failing sources the message names before "and N more". */
export const NAMED_FAILING_SOURCES = 3;

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** "1.4 GB", "230 MB": free space in words (binary units, as `df -h`). */
export function bytesInWords(n: number): string {
  if (n >= GIB) return `${(n / GIB).toFixed(1)} GB`;
  return `${Math.floor(n / MIB)} MB`;
}

export function healthChecks(f: HealthFacts): HealthCheck[] {
  const checks: HealthCheck[] = [];
  const { library } = f;
  if (library.state === "missing") {
    checks.push({
      code: "library_root_missing",
      level: "error",
      message: `The library folder ${library.path} does not exist or is not a folder: create it (or mount its disk), or set LIBRARY_ROOT to the folder that holds your series. Downloads, translations and torrent imports wait for it meanwhile.`,
    });
  } else {
    if (library.state === "empty") {
      checks.push({
        code: "library_root_empty",
        level: "error",
        message: `The library folder ${library.path} holds no series folder while the library records files in it: is its disk mounted? Downloads, translations, torrent imports and the scheduled scan wait until the folders are back. If you emptied it on purpose, press "Scan library" on the Library page to record that.`,
      });
    }
    if (library.state === "not_writable") {
      checks.push({
        code: "library_root_not_writable",
        level: "error",
        message: `The service cannot write in the library folder ${library.path}: downloads, assemblies and retirements fail until the user the service runs as may write there.`,
      });
    }
    if (library.freeBytes !== null && library.freeBytes < DISK_WARNING_BYTES) {
      checks.push({
        code: "disk_space_low",
        level: library.freeBytes < DISK_ERROR_BYTES ? "error" : "warning",
        message: `Only ${bytesInWords(library.freeBytes)} free on the library's disk: downloads and assembled books may not fit. Free some space (the recycle bin keeps retired files until they expire).`,
      });
    }
    if (f.unscannedFolders > 0) {
      const n = f.unscannedFolders;
      checks.push({
        code: "library_not_scanned",
        level: "warning",
        message: `${n} series folder${n === 1 ? " has" : "s have"} not been scanned yet: press "Scan library" on the Library page to record ${n === 1 ? "it" : "them"}.`,
      });
    }
  }
  if (f.suwayomi.state === "unreachable") {
    checks.push({
      code: "suwayomi_unreachable",
      level: "error",
      message: `Suwayomi (${f.suwayomi.url}) is in use but could not list its sources: ${f.suwayomi.error}. No chapter list is refreshed and nothing is fetched from it until it answers: check that it runs, and its address and login on the Settings page.`,
    });
  }
  const failing = f.failingSources;
  if (failing.length > 0) {
    const named = failing.slice(0, NAMED_FAILING_SOURCES).map((s) => `${s.source} for ${s.seriesTitle}`);
    const more = failing.length - named.length;
    const list = more > 0 ? `${named.join(", ")} and ${more} more` : named.join(", ");
    checks.push({
      code: "sources_failing",
      level: "warning",
      message: `${failing.length === 1 ? "A linked source fails" : `${failing.length} linked sources fail`} most of ${failing.length === 1 ? "its" : "their"} downloads: ${list}. Each series' Sources page says what failed; give a working source a higher priority, or link another.`,
    });
  }
  return checks;
}

/** The worst level among the checks; `ok` when there is none. */
export function healthStatus(checks: readonly Pick<HealthCheck, "level">[]): HealthStatus {
  if (checks.some((c) => c.level === "error")) return "error";
  return checks.length > 0 ? "warning" : "ok";
}
