/**
 * The language identifier of the translation checks: eld (Efficient Language Detector, 60
 * languages, n-gram database "medium"), adapted to the pure judge's interface
 * (domain/translation-language.ts).
 *
 * Chosen by measuring cld3-asm, eld and franc on short manga dialogue (docs/benchmarks.md,
 * "Language identification"): on one- and two-line pools eld is right far more often and
 * confidently wrong far less; "medium" makes the same decisions as "large" on pooled pages while
 * loading in ~1.3 s and ~180 MB instead of ~3 s and ~270 MB.
 *
 * Loading means compiling a 2 MB module of n-grams, which would stall the event loop (HTTP, the
 * worker's polls, WebSockets) for seconds on a busy machine. So the identifier lives in a worker
 * thread (language-id-worker.mjs), started on first use (a translation job), never at start-up;
 * the judge's calls stay synchronous: each text is posted to the thread and the answer is waited
 * for on shared memory (Atomics.wait, a few tens of microseconds a text).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { IdentifierAnswer, LanguageIdentifier } from "../domain/translation-language.ts";

interface EldResult {
  language: string;
  getScores(): Record<string, number>;
  isReliable(): boolean;
}
interface Eld {
  detect(text: string): EldResult;
  info(): { Languages: Record<number, string> };
}

async function eldVersion(): Promise<string> {
  try {
    // The package's exports hide package.json: find it from the entry point.
    const entry = fileURLToPath(import.meta.resolve("eld/medium"));
    const pkg = JSON.parse(await readFile(path.join(entry, "..", "..", "..", "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "?";
  } catch {
    return "?";
  }
}

/** Wraps an eld instance (exported for tests that drive it directly). */
export function eldIdentifier(eld: Eld, name: string): LanguageIdentifier {
  const languages = new Set(Object.values(eld.info().Languages));
  return {
    name,
    languages,
    identify(text: string): IdentifierAnswer {
      const r = eld.detect(text);
      return { language: r.language || null, reliable: r.language !== "" && r.isReliable(), scores: r.getScores() };
    },
  };
}

/** Bytes of shared memory for one answer (a language, a flag and a few dozen scores). */
const ANSWER_BYTES = 64 * 1024;
/** Longest wait for one answer; the thread answers in microseconds once loaded. */
const ANSWER_TIMEOUT_MS = 30_000;

/** The identifier in its own thread, answering synchronously; rejects when the thread cannot load it. */
function threadIdentifier(name: string): Promise<LanguageIdentifier> {
  const shared = new SharedArrayBuffer(8 + ANSWER_BYTES);
  const control = new Int32Array(shared, 0, 2);
  const data = new Uint8Array(shared, 8);
  const decoder = new TextDecoder();
  // A path from import.meta.dirname, not a URL from import.meta.url: the build bundles this file
  // into dist/ and maps import.meta.dirname back to this source folder, where the script lies.
  const worker = new Worker(path.join(import.meta.dirname, "language-id-worker.mjs"), { workerData: { shared } });
  let failure: Error | null = null;
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => {
      failure = e;
      loading = null; // the next job starts a new thread
      reject(e);
    };
    worker.once("error", (e) => fail(new Error(`the language identifier failed to load: ${e.message}`)));
    worker.once("exit", (code) => fail(new Error(`the language identifier stopped (exit code ${code})`)));
    worker.once("message", (m: { ready?: boolean; languages?: string[] }) => {
      if (!m.ready || !Array.isArray(m.languages)) return fail(new Error("the language identifier did not start"));
      worker.unref(); // loaded: an idle identifier never keeps the process alive
      resolve({
        name,
        languages: new Set(m.languages),
        identify(text: string): IdentifierAnswer {
          if (failure) throw failure;
          Atomics.store(control, 0, 0);
          worker.postMessage(text);
          if (Atomics.wait(control, 0, 0, ANSWER_TIMEOUT_MS) === "timed-out")
            throw new Error("the language identifier did not answer");
          const answer = JSON.parse(decoder.decode(data.slice(0, Atomics.load(control, 1)))) as IdentifierAnswer & {
            error?: string;
          };
          if (answer.error) throw new Error(`the language identifier failed: ${answer.error}`);
          return { language: answer.language, reliable: answer.reliable, scores: answer.scores };
        },
      });
    });
  });
}

let loading: Promise<LanguageIdentifier> | null = null;

/** The identifier, started once per process on first use (in its own thread). */
export function loadLanguageIdentifier(): Promise<LanguageIdentifier> {
  loading ??= eldVersion().then((version) => threadIdentifier(`eld ${version} (medium n-grams)`));
  return loading;
}
