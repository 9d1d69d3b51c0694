/**
 * Duplicate retirement for one book (docs/rules.md, "Series page grouping": the preview lists the file ids
 * and paths of the chapter files the exact map shows inside an owned book; the confirm re-checks
 * the reviewed set, then moves them to the recycle bin).
 *
 * The duplicates are the coverage index's `BookState.duplicateFileIds`: exact map only (a partial
 * map or none finds nothing), never from an estimate, never through a hand import or a translation.
 * A suspect book (docs/rules.md, "Suspect and verified books") is refused outright with `book_suspect`,
 * also when it is verified (a proof never retires a chapter file); nothing to retire is `nothing_to_retire`.
 */
import { AppError } from "../../errors.ts";
import type { Label } from "../../domain/labels.ts";
import type { CoverageIndex, SeriesSnapshot } from "../../domain/types.ts";
import { downloadMarks, fileIdentities, releasesAndMappings, requireMovable } from "../../repositories/audit-repo.ts";
import type { AuditFileView, Preview, RetiredFile } from "./audit-service.ts";
import type { ConfirmationInput, Confirmations } from "../confirmation.ts";
import { requireSameSnapshot } from "../confirmation.ts";
import type { AppContext } from "../context.ts";
import { asLabel } from "../input.ts";

export const DUPLICATES_KIND = "duplicates.retire";

export interface DuplicatePreview extends Preview {
  volume: string;
}

interface Deps {
  ctx: AppContext;
  coverage(seriesId: number): Promise<{ snapshot: SeriesSnapshot; index: CoverageIndex }>;
  pick(seriesId: number, ids: readonly number[], index?: CoverageIndex): Promise<AuditFileView[]>;
  requireNoDownload(seriesId: number): Promise<void>;
  exclusive<T>(seriesId: number, fn: () => Promise<T>): Promise<T>;
  retire(seriesId: number, ids: number[], reason: string): Promise<RetiredFile[]>;
  confirmations: Confirmations;
}

/** How one book stands for duplicate retirement, read from the coverage index. */
function bookState(index: CoverageIndex, volume: Label) {
  const book = index.books.find((b) => b.number === volume) ?? null;
  // The index's verdict, judged against the series' median book: the one definition of suspect.
  const suspect = book?.owned ? book.suspect : null;
  return { book, suspect, duplicates: book ? [...book.duplicateFileIds].sort((a, b) => a - b) : [] };
}

export function duplicateRetirement(deps: Deps) {
  const { ctx, confirmations } = deps;

  /**
   * Everything the confirm re-checks: the map's verdict on the book, the book's files, the
   * duplicates, and the series' newest downloads (one started since the preview invalidates it).
   */
  async function bind(seriesId: number, volume: Label, index: CoverageIndex, state: ReturnType<typeof bookState>) {
    const root = ctx.config.libraryRoot;
    return {
      volume,
      map: { state: index.map.state, revision: index.map.revision },
      chapters: state.book?.chapters ?? null,
      suspect: state.suspect,
      book: await fileIdentities(ctx.db, root, state.book?.fileIds ?? []),
      duplicates: await fileIdentities(ctx.db, root, state.duplicates),
      ...(await releasesAndMappings(ctx.db, state.duplicates)),
      downloads: await downloadMarks(ctx.db, seriesId),
    };
  }

  return {
    /** POST /api/manga/{id}/volumes/{volume}/duplicates/preview */
    async preview(seriesId: number, volumeText: unknown): Promise<DuplicatePreview> {
      const volume = asLabel(volumeText, "volume");
      const { index } = await deps.coverage(seriesId);
      const state = bookState(index, volume);
      const { book, suspect } = state;
      if (!book) throw new AppError("not_found", `series ${seriesId} has no book ${volume}`);
      if (!book.owned)
        throw new AppError("nothing_to_retire", `book ${volume} is not owned: no chapter file is inside it`);
      if (suspect) {
        throw new AppError(
          "book_suspect",
          `book ${volume} is suspect (${suspect}): its chapter files are never retired through it`,
          { suspect_reason: suspect },
        );
      }
      if (state.duplicates.length === 0) {
        const why =
          index.map.state === "exact"
            ? "no chapter file lies inside it"
            : `duplicates are found only under an exact map, and the map is ${index.map.state}`;
        throw new AppError("nothing_to_retire", `book ${volume}: ${why}`, { map: index.map.state });
      }
      await deps.requireNoDownload(seriesId);
      const bound = await bind(seriesId, volume, index, state);
      requireMovable(bound.duplicates);
      const { token, expiresAt } = confirmations.sign(DUPLICATES_KIND, seriesId, bound);
      return {
        volume,
        files: await deps.pick(seriesId, state.duplicates, index),
        confirmation: token,
        expiresAt: expiresAt.toISOString(),
      };
    },

    /** POST /api/manga/{id}/volumes/{volume}/duplicates/retire */
    async confirm(seriesId: number, volumeText: string, input: ConfirmationInput): Promise<{ retired: RetiredFile[] }> {
      const volume = asLabel(volumeText, "volume");
      await deps.coverage(seriesId);
      const signed = confirmations.verify<{ volume: string; duplicates: { id: number }[] }>(
        input.confirmation,
        DUPLICATES_KIND,
        seriesId,
      );
      if (signed.volume !== volume)
        throw new AppError("confirmation_invalid", `the confirmation is for book ${signed.volume}, not ${volume}`);
      return deps.exclusive(seriesId, async () => {
        await deps.requireNoDownload(seriesId);
        const { index } = await deps.coverage(seriesId);
        requireSameSnapshot(
          signed,
          await bind(seriesId, volume, index, bookState(index, volume)),
          "the book, its map entry or its duplicates",
        );
        const ids = signed.duplicates.map((f) => f.id);
        return { retired: await deps.retire(seriesId, ids, `duplicate of book ${volume}`) };
      });
    },
  };
}
