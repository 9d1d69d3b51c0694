/**
 * The reviewed-action flow every destructive dialog shares (retire files, reject a source, assemble
 * a book or a series): preview → review → confirm with the preview's token → done, or failed with
 * the error and whether only a fresh preview helps. A newer preview or a closed dialog fences off
 * the answers of older requests, so a late answer never overwrites what the user now sees.
 */
import { toProblem } from "$lib/errors";

/** Codes saying the reviewed state changed or the token is spent: only a fresh preview helps. */
const FRESH_PREVIEW_CODES: ReadonlySet<string> = new Set([
  "snapshot_stale",
  "confirmation_invalid",
  "assembly_changed_files",
]);

export function needsFreshPreview(code: string | null | undefined): boolean {
  return code != null && FRESH_PREVIEW_CODES.has(code);
}

export type FlowStep<P, R> =
  | { name: "idle" }
  | { name: "loading" }
  | { name: "review"; preview: P }
  | { name: "running"; preview: P }
  | { name: "done"; result: R }
  /** `preview` is the one the failed confirm used (null when the preview itself failed). */
  | { name: "failed"; error: unknown; preview: P | null; fresh: boolean };

export interface PreviewFlowOptions<P, R> {
  preview: () => Promise<P>;
  confirm: (preview: P) => Promise<R>;
  onpreview?: (preview: P) => void;
  ondone?: (result: R) => void;
}

export class PreviewFlow<P, R> {
  step = $state<FlowStep<P, R>>({ name: "idle" });
  #run = 0;

  constructor(private readonly options: PreviewFlowOptions<P, R>) {}

  /** The preview under review or kept beside a failed confirm (null while loading, idle or done). */
  get preview(): P | null {
    const s = this.step;
    return s.name === "review" || s.name === "running" || s.name === "failed" ? s.preview : null;
  }

  async load(): Promise<void> {
    const mine = ++this.#run;
    this.step = { name: "loading" };
    try {
      const preview = await this.options.preview();
      if (mine !== this.#run) return;
      this.step = { name: "review", preview };
      this.options.onpreview?.(preview);
    } catch (error) {
      if (mine !== this.#run) return;
      this.step = { name: "failed", error, preview: null, fresh: false };
    }
  }

  /** Confirms the preview under review (or the one kept beside a confirm that may be tried again). */
  async confirm(): Promise<void> {
    const s = this.step;
    const preview = s.name === "review" || (s.name === "failed" && !s.fresh) ? s.preview : null;
    if (preview === null) return;
    const mine = ++this.#run;
    this.step = { name: "running", preview };
    try {
      const result = await this.options.confirm(preview);
      if (mine !== this.#run) return;
      this.step = { name: "done", result };
      this.options.ondone?.(result);
    } catch (error) {
      if (mine !== this.#run) return;
      this.step = { name: "failed", error, preview, fresh: needsFreshPreview(toProblem(error).code) };
    }
  }

  /** Back to the start (a dialog closed or reopened): answers still on their way are ignored. */
  reset(): void {
    this.#run += 1;
    this.step = { name: "idle" };
  }
}
