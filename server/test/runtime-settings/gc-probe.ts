/**
 * Child of runtime-settings.test.ts: counts V8's full collections over a run of promoted garbage
 * (objects that outlive young collections, then go), with the service's runtime settings applied
 * ("on") or not. Prints the count.
 */
import { PerformanceObserver, constants } from "node:perf_hooks";
import { applyRuntimeSettings } from "../../src/runtime-settings.ts";

if (process.argv[2] === "on") applyRuntimeSettings();
let full = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full += 1;
}).observe({ entryTypes: ["gc"] });
const window: unknown[] = [];
for (let i = 0; i < 400_000; i++) {
  window.push({ i, s: "x".repeat(200) + i, a: new Array<number>(20).fill(i) });
  if (window.length > 20_000) window.shift();
}
// The observer's entries are delivered asynchronously.
setTimeout(() => console.log(String(full)), 50);
