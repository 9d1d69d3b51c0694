/**
 * Settings of the service's own process, set from its main rather than on the command line: Node
 * refuses `--heap-growing-percent` in NODE_OPTIONS (how the benchmarks pass the start script's
 * flags through tsx), and a process started by hand gets them too.
 */
import v8 from "node:v8";

/**
 * After a full collection, V8 lets its old generation grow to up to four times what survived before
 * it collects again. The service's first minutes of work (a run of downloads after a link) come
 * before any such collection, so promoted garbage (page bytes, query results) piled up: 224–255 MB
 * peak on the downloads benchmark against 181–206 MB with 1.5 times, at 0.3–1.3 ms more CPU a
 * page (docs/benchmarks.md, "Downloads: reused page buffers and a tighter old generation").
 */
export const HEAP_GROWING_PERCENT = 50;

/** Applies the settings above; V8 reads this one at each full collection, so it holds from then on. */
export function applyRuntimeSettings(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
