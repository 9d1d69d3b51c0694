/**
 * The built-in engine: the service's own local path (OCR, chat AI, lettering) behind the processor's
 * engine interface. Its checkpoints live in the job's checkpoint folder, keyed by the engine itself.
 */
import { createLocalEngine, OCR_SETTINGS, RENDER_SETTINGS } from "../translation/local-engine.ts";
import type { LocalEngine } from "../translation/types.ts";
import type { ProcessorEngine } from "./types.ts";

export function builtInEngine(engine: LocalEngine = createLocalEngine()): ProcessorEngine {
  return {
    fingerprint: `local|${OCR_SETTINGS}|${RENDER_SETTINGS}`,
    async run(job, signal, onProgress) {
      await engine.run({
        jobId: job.id,
        source: job.source,
        sourceSha256: job.sourceSha256,
        sourceLanguage: job.sourceLanguage,
        targetLanguage: job.targetLanguage,
        ai: job.ai,
        checkpointDir: job.checkpointDir,
        output: job.output,
        signal,
        onProgress,
      });
      return job.output;
    },
    close: () => engine.close(),
  };
}
