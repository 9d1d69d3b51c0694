/**
 * The processor's durable state under `--state`:
 *
 *   jobs/<id>.json          one record per job id (also remembered cancellations of unknown ids)
 *   inputs/<sha256>.cbz     uploaded sources, hash-named (two ids with one source share a file)
 *   outputs/<identity>.zip  results, named by the request identity: the cache for resubmissions
 *   uploads/                partial uploads (removed at start)
 *
 * Every record write is atomic (writeJsonAtomic) and serialised per id, so the file always holds
 * the newest state a caller awaited. No record holds a credential or the AI endpoint.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { JOB_ID_RE } from "../domain/translation-jobs.ts";
import { fsyncDir, fsyncFile, statOrNull } from "../library/durable-fs.ts";
import { removeTemporaries, writeJsonAtomic } from "../translation/atomic-files.ts";
import type { JobRecord } from "./types.ts";

export class SourceTooLarge extends Error {}

export interface ProcessorStore {
  readonly root: string;
  get(id: string): JobRecord | undefined;
  all(): JobRecord[];
  /** Replaces the record (in memory at once) and resolves when it is on disk. */
  save(record: JobRecord): Promise<void>;
  inputPath(sha256: string): string;
  outputPath(identity: string): string;
  hasOutput(identity: string): Promise<boolean>;
  /** Streams a body to a temporary file, hashing it; fsynced and renamed to its input name. */
  receiveSource(body: Readable, maxBytes: number): Promise<{ sha256: string; size: number; path: string }>;
  /** Resolves when every record write started so far is on disk. */
  flush(): Promise<void>;
}

export function newRecord(id: string): JobRecord {
  return {
    id,
    status: "new",
    sourceSha256: null,
    request: null,
    progress: null,
    error: null,
    submittedAt: null,
    updatedAt: Date.now(),
  };
}

function parseRecord(text: string, id: string): JobRecord | null {
  try {
    const r = JSON.parse(text) as JobRecord;
    return r && r.id === id && typeof r.status === "string" ? r : null;
  } catch {
    return null;
  }
}

/**
 * Opens (creating) a state directory and loads its records. A job that was running when the
 * previous process stopped goes back to queued (it resumes from its checkpoints); one that was
 * cancelling is cancelled (its work stopped with the process).
 */
export async function openStore(root: string): Promise<ProcessorStore> {
  const dirs = {
    jobs: path.join(root, "jobs"),
    inputs: path.join(root, "inputs"),
    outputs: path.join(root, "outputs"),
    uploads: path.join(root, "uploads"),
  };
  for (const d of Object.values(dirs)) await mkdir(d, { recursive: true, mode: 0o700 });
  await rm(dirs.uploads, { recursive: true, force: true });
  await mkdir(dirs.uploads, { recursive: true, mode: 0o700 });
  for (const d of [dirs.jobs, dirs.inputs, dirs.outputs]) await removeTemporaries(d);

  const records = new Map<string, JobRecord>();
  const chains = new Map<string, Promise<void>>();
  const fileOf = (id: string) => path.join(dirs.jobs, `${id}.json`);

  const save = (record: JobRecord): Promise<void> => {
    if (!JOB_ID_RE.test(record.id)) return Promise.reject(new Error("malformed job id"));
    record.updatedAt = Date.now();
    records.set(record.id, record);
    // Serialised per id: each write takes the newest in-memory state, so the last one wins on disk.
    const next = (chains.get(record.id) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => writeJsonAtomic(fileOf(record.id), records.get(record.id)));
    chains.set(record.id, next);
    return next;
  };

  for (const name of await readdir(dirs.jobs)) {
    const id = name.replace(/\.json$/, "");
    if (!name.endsWith(".json") || !JOB_ID_RE.test(id)) continue;
    const r = parseRecord(await readFile(fileOf(id), "utf8"), id);
    if (!r) continue; // unreadable: as if never submitted (the service re-submits on 404)
    records.set(id, r);
    if (r.status === "running" || r.status === "cancelling") {
      r.status = r.status === "running" ? "queued" : "cancelled";
      await save(r);
    }
  }

  let uploadSeq = 0;
  return {
    root,
    get: (id) => records.get(id),
    all: () => [...records.values()],
    save,
    inputPath: (sha) => path.join(dirs.inputs, `${sha}.cbz`),
    outputPath: (identity) => path.join(dirs.outputs, `${identity}.zip`),
    flush: async () => {
      await Promise.all([...chains.values()].map((c) => c.catch(() => undefined)));
    },
    hasOutput: async (identity) => (await statOrNull(path.join(dirs.outputs, `${identity}.zip`)))?.isFile() ?? false,
    async receiveSource(body, maxBytes) {
      const tmp = path.join(dirs.uploads, `${process.pid}-${Date.now()}-${uploadSeq++}.part`);
      const hash = createHash("sha256");
      let size = 0;
      try {
        await pipeline(
          body,
          async function* (chunks: AsyncIterable<Buffer>) {
            for await (const c of chunks) {
              size += c.length;
              if (size > maxBytes) throw new SourceTooLarge(`source exceeds ${maxBytes} bytes`);
              hash.update(c);
              yield c;
            }
          },
          createWriteStream(tmp, { flags: "wx", mode: 0o600 }),
        );
        await fsyncFile(tmp);
        const sha256 = hash.digest("hex");
        const target = path.join(dirs.inputs, `${sha256}.cbz`);
        // Same name, same bytes: renaming over an existing input changes nothing.
        await rename(tmp, target);
        await fsyncDir(dirs.inputs);
        return { sha256, size, path: target };
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    },
  };
}
