#!/usr/bin/env node
// The README's test command (`npm test`): brings the checkout up to date (scripts/setup.mjs: system
// packages, dependencies when the lockfile changed, the web client for the browser tests when its
// sources changed), then type checks, lint, format and every vitest project; ends with
// `N passed, N failed` on a line of its own.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pnpm, root, setup } from "./setup.mjs";

const mode = process.argv[2];

if (mode === "test") {
  setup("test");
  const checks = [
    ["typecheck", () => pnpm("-r", "typecheck")],
    ["typecheck test/", () => pnpm("exec", "tsc", "--noEmit", "-p", "test")],
    ["lint", () => pnpm("exec", "eslint", ".")],
    ["format", () => pnpm("exec", "prettier", "--check", "--log-level", "warn", ".")],
  ];
  let failedChecks = 0;
  for (const [name, run] of checks) {
    const status = run();
    console.log(`${name}: ${status === 0 ? "ok" : "FAILED"}`);
    if (status !== 0) failedChecks += 1;
  }
  const report = path.join(root, "node_modules", ".vitest-report.json");
  const status = pnpm("exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`);
  let passed = 0;
  let failed = failedChecks;
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, "utf8"));
    passed += r.numPassedTests ?? 0;
    failed += (r.numFailedTests ?? 0) + (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    // A suite that failed to load counts as a failure even when it declared no test.
    failed += (r.testResults ?? []).filter(
      (t) => t.status === "failed" && (t.assertionResults ?? []).length === 0,
    ).length;
  } else {
    failed += 1;
  }
  if (passed === 0 && failed === 0) failed = 1; // a run that executed no test is not a pass
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(status !== 0 || failed > 0 ? 1 : 0);
} else {
  console.error("usage: node scripts/run.mjs test");
  process.exit(2);
}
