import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const serverDir = path.resolve(import.meta.dirname, "..", "..");

/**
 * Applies the committed migrations with `prisma migrate deploy` (the JS schema engine cannot run
 * `migrate dev` here; see STACK.md). Idempotent: an up-to-date database is left as it is.
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  if (databaseUrl.startsWith("file:")) {
    await mkdir(path.dirname(databaseUrl.slice("file:".length)), { recursive: true });
  }
  const prismaBin = path.join(serverDir, "node_modules", "prisma", "build", "index.js");
  try {
    await run(process.execPath, [prismaBin, "migrate", "deploy"], {
      cwd: serverDir,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`database migration failed: ${err.stderr || err.stdout || err.message}`, { cause: e });
  }
}
