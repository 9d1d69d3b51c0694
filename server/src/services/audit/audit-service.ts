/**
 * The file audit (docs/rules.md, "The audit"; docs/api.md, "File audit"): the list of every downloaded file of a
 * series with its flags, 24 a page, sorted and filtered, opening no archive; lazy thumbnails; and
 * the reviewed operations, each a preview that signs what it saw and a confirm that re-reads it:
 * retirement of selected files, rejection of one exact provider/source mapping (its files retired,
 * its offers removed, the rejection recorded), and retirement of the duplicates inside one book
 * (audit-duplicates.ts). REST and GraphQL both call these.
 */
import path from "node:path";
import { requireNoActiveDownload } from "../acquisition/download-service.ts";
import { stateDirs } from "../../config.ts";
import { AppError } from "../../errors.ts";
import { buildCoverageIndex } from "../../domain/coverage.ts";
import {
  auditEntries,
  auditPage,
  filterAuditEntries,
  needsEveryPageCheck,
  sortAuditEntries,
  withLastPages,
  type AuditEntry,
  type AuditFlag,
} from "../../domain/audit.ts";
import { seriesForm } from "../../domain/series-form.ts";
import type { CoverageIndex, SeriesSnapshot } from "../../domain/types.ts";
import { createThumbnails, fingerprintOf, onDiskAsRecorded, type Thumbnails } from "../../library/thumbnails.ts";
import { suwayomiProviderName } from "../../providers/suwayomi.ts";
import { pageSignatureRepo } from "../../repositories/page-signature-repo.ts";
import type { PageSignatureWorker } from "./page-signature-worker.ts";
import { loadSnapshot } from "../../repositories/snapshot-repo.ts";
import {
  auditSeries,
  downloadMarks,
  fileIdentities,
  loadAuditFacts,
  mappingByProviderName,
  mappingStates,
  providerName,
  rejectMapping,
  releasesAndMappings,
  requireMovable,
  thumbnailFile,
  type FileIdentity,
} from "../../repositories/audit-repo.ts";
import { DUPLICATES_KIND, duplicateRetirement } from "./audit-duplicates.ts";
import { parseAuditQuery, parseFileIds, parseSide, type AuditQueryInput } from "./audit-input.ts";
import { createConfirmations, requireSameSnapshot } from "../confirmation.ts";
import { releaseRepo } from "../../repositories/release-repo.ts";
import type { AppContext } from "../context.ts";
import { checkString } from "../input.ts";
import type { ConfirmationInput } from "../confirmation.ts";
import type { SubView, ViewCache } from "../series/view-cache.ts";

/** What the publication module answers for each retired file. */
/** previewRetirement: the files to review (1 to MAX_SELECTION ids). */
export interface RetirementInput {
  fileIds: readonly number[];
}

/** previewSourceRejection: the mapping (by provider name and source id) and why. */
export interface SourceRejectionInput {
  provider: string;
  sourceId: string;
  reason?: string | null;
}

export interface RetiredFile {
  fileId: number;
  recycleEntryId: number;
  from: string;
  binPath: string;
}

/** The part of the publication module the audit needs: moving files to the recycle bin. */
export interface Retirer {
  retire(fileIds: number[], reason: string): Promise<RetiredFile[]>;
}

export interface AuditFileView extends AuditEntry {
  /** Thumbnail URLs (REST only); null for a file that is not on disk. */
  thumbnails: { first: string; last: string } | null;
}

export interface AuditPageView {
  seriesId: number;
  page: number;
  pageSize: number;
  total: number;
  files: AuditFileView[];
}

export interface Preview {
  files: AuditFileView[];
  confirmation: string;
  expiresAt: string;
}

export interface SourceRejectionPreview extends Preview {
  provider: string;
  sourceId: string;
  language: string;
  /** Offers of the mapping that the rejection removes. */
  offers: number;
}

export interface SourceRejectionResult {
  provider: string;
  sourceId: string;
  offersRemoved: number;
  retired: RetiredFile[];
}

export const CONFIRM_KINDS = {
  retire: "audit.retire",
  rejectSource: "audit.reject_source",
  duplicates: DUPLICATES_KIND,
} as const;

function view(e: AuditEntry): AuditFileView {
  const url = (side: string) => `/api/files/${e.id}/thumbnail?page=${side}`;
  return { ...e, thumbnails: e.state === "active" ? { first: url("first"), last: url("last") } : null };
}

export function auditService(
  ctx: AppContext,
  publication: Retirer,
  options: { thumbnails?: Thumbnails; pageSignatures?: Pick<PageSignatureWorker, "request">; views: ViewCache },
) {
  const { db } = ctx;
  const signatures = pageSignatureRepo(db);
  const confirmations = createConfirmations(ctx.secrets);
  const locks = ctx.cluster.keyedLock("audit");
  const thumbnails =
    options.thumbnails ?? createThumbnails({ dir: stateDirs(ctx.config).thumbnails, limits: ctx.config.archiveLimits });

  async function requireSeries(id: number) {
    const row = await auditSeries(db, id);
    if (!row) throw new AppError("series_not_found", `series ${id} does not exist`);
    return row;
  }

  async function coverage(seriesId: number): Promise<{ snapshot: SeriesSnapshot; index: CoverageIndex }> {
    const snapshot = await loadSnapshot(db, seriesId);
    if (!snapshot) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    return { snapshot, index: buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series), estimates: false }) };
  }

  /**
   * Every listed file of the series with its flags (a fixed number of selects, no archive). The
   * page checks (black last page) read the stored page signatures; the files without them are
   * handed to the background worker and flagged once it is done.
   */
  async function entries(seriesId: number, index?: CoverageIndex): Promise<AuditEntry[]> {
    const series = await requireSeries(seriesId);
    const facts = await loadAuditFacts(db, seriesId, series.language);
    const active = facts.filter((f) => f.state === "active");
    const last = await signatures.lastPages(active.map((f) => f.sha256));
    options.pageSignatures?.request(
      active
        .filter((f) => !last.has(f.sha256))
        .map((f) => ({ sha256: f.sha256, path: f.path, size: f.size, mtimeMs: f.mtimeMs ?? 0 })),
    );
    for (const f of facts) f.lastPage = last.get(f.sha256) ?? null;
    const idx = index ?? (await coverage(seriesId)).index;
    return auditEntries(facts, new Set(idx.chapters.flatMap((c) => c.duplicateFileIds)));
  }

  /**
   * The list in one order, kept until the series' rows change (view-cache.ts): a page request then
   * costs the revision select, the filter and the slice. The page checks' facts (black last page)
   * are not part of the kept list's validity: the background worker stores them while the list is
   * read, and they change one flag of one file, so each request applies the current ones on top
   * (`list`). A finished check thus never makes the whole list be computed again.
   */
  function sorted(seriesId: number, sort: ReturnType<typeof parseAuditQuery>["sort"]): Promise<AuditEntry[]> {
    const key = `audit:${sort.descending ? "-" : ""}${sort.key}`;
    return options.views.get(seriesId, key, async (sub: SubView) =>
      sortAuditEntries(await sub("audit", () => entries(seriesId)), sort),
    );
  }

  async function pick(seriesId: number, ids: readonly number[], index?: CoverageIndex): Promise<AuditFileView[]> {
    const byId = new Map((await entries(seriesId, index)).map((e) => [e.id, e]));
    return ids
      .map((id) => byId.get(id))
      .filter((e): e is AuditEntry => e !== undefined)
      .map(view);
  }

  const requireNoDownload = (seriesId: number) => requireNoActiveDownload(ctx, seriesId);

  /** Runs a confirm alone for its series: two confirms of one preview cannot both pass the re-check. */
  const exclusive = <T>(seriesId: number, fn: () => Promise<T>) => locks.run([`audit-series:${seriesId}`], fn);

  async function retire(_seriesId: number, ids: number[], reason: string): Promise<RetiredFile[]> {
    if (ids.length === 0) return [];
    // The publication module publishes series_changed once the move commits.
    return publication.retire(ids, reason);
  }

  /* ---- reviewed retirement of selected files ---- */

  async function retirementSnapshot(seriesId: number, ids: readonly number[]) {
    const files = await fileIdentities(db, ctx.config.libraryRoot, ids);
    const known = new Set(files.filter((f) => f.seriesId === seriesId && f.state !== "recycled").map((f) => f.id));
    return {
      files,
      ...(await releasesAndMappings(db, ids)),
      downloads: await downloadMarks(db, seriesId),
      unknown: ids.filter((id) => !known.has(id)),
    };
  }

  /* ---- rejection of one exact provider/source mapping ---- */

  async function findMapping(seriesId: number, provider: string, sourceId: string) {
    const row = await mappingByProviderName(db, seriesId, provider, sourceId);
    if (!row || row.state !== "active") {
      throw new AppError(
        "mapping_not_found",
        `series ${seriesId} has no active mapping ${JSON.stringify(sourceId)} of provider ${JSON.stringify(provider)}`,
      );
    }
    return row.id;
  }

  /**
   * The mapping, its releases and the files they published: what a rejection changes; and the
   * series' newest downloads, so that one started since the preview invalidates it.
   */
  async function rejectionSnapshot(seriesId: number, mappingId: number) {
    const [mapping] = await mappingStates(db, [mappingId]);
    const releases = await releaseRepo(db).ofMapping(mappingId);
    const fileIds = [...new Set(releases.map((r) => r.fileId).filter((id): id is number => id !== null))];
    const files = (await fileIdentities(db, ctx.config.libraryRoot, fileIds)).filter((f) => f.state !== "recycled");
    return { mapping: mapping ?? null, releases, files, downloads: await downloadMarks(db, seriesId) };
  }

  const duplicates = duplicateRetirement({ ctx, coverage, pick, requireNoDownload, exclusive, retire, confirmations });

  return {
    /** GET /api/manga/{id}/audit: one page of the list, sorted and filtered (opens no archive). */
    async list(seriesId: number, query: AuditQueryInput = {}): Promise<AuditPageView> {
      const { page, sort, filter } = parseAuditQuery(query);
      if (needsEveryPageCheck(sort, filter)) {
        // The order or the filter depends on every file's page checks: the current ones of the
        // whole series (one select), then the sort and filter over them.
        const base = await sorted(seriesId, sort.key === "flags" ? { key: "number", descending: false } : sort);
        const current = withLastPages(base, await signatures.lastPagesOfSeries(seriesId));
        const ordered = sort.key === "flags" ? sortAuditEntries(current, sort) : current;
        const p = auditPage(filterAuditEntries(ordered, filter), page);
        return { seriesId, page: p.page, pageSize: p.pageSize, total: p.total, files: p.files.map(view) };
      }
      // Only the listed files' page checks matter: those of the page (one select).
      const p = auditPage(filterAuditEntries(await sorted(seriesId, sort), filter), page);
      const active = p.files.filter((f) => f.state === "active").map((f) => f.sha256);
      const files = withLastPages(p.files, await signatures.lastPages(active));
      return { seriesId, page: p.page, pageSize: p.pageSize, total: p.total, files: files.map(view) };
    },

    async previewRetirement(seriesId: number, input: RetirementInput): Promise<Preview> {
      await requireSeries(seriesId);
      const ids = parseFileIds(input.fileIds);
      await requireNoDownload(seriesId);
      const snapshot = await retirementSnapshot(seriesId, ids);
      if (snapshot.unknown.length > 0) {
        throw new AppError("file_not_found", `series ${seriesId} has no file ${snapshot.unknown.join(", ")}`, {
          file_ids: snapshot.unknown,
        });
      }
      requireMovable(snapshot.files);
      const { token, expiresAt } = confirmations.sign(CONFIRM_KINDS.retire, seriesId, snapshot);
      return { files: await pick(seriesId, ids), confirmation: token, expiresAt: expiresAt.toISOString() };
    },

    async retireFiles(seriesId: number, input: ConfirmationInput): Promise<{ retired: RetiredFile[] }> {
      await requireSeries(seriesId);
      const signed = confirmations.verify<{ files: FileIdentity[] }>(
        input.confirmation,
        CONFIRM_KINDS.retire,
        seriesId,
      );
      const ids = signed.files.map((f) => f.id);
      return exclusive(seriesId, async () => {
        await requireNoDownload(seriesId);
        requireSameSnapshot(signed, await retirementSnapshot(seriesId, ids));
        return { retired: await retire(seriesId, ids, "retired in the file audit") };
      });
    },

    async previewSourceRejection(seriesId: number, input: SourceRejectionInput): Promise<SourceRejectionPreview> {
      await requireSeries(seriesId);
      const provider = checkString(input.provider, "provider", 200);
      const sourceId = checkString(input.sourceId, "source_id", 500);
      if (!provider) throw new AppError("invalid_field", "provider is required", { field: "provider" });
      if (!sourceId) throw new AppError("invalid_field", "source_id is required", { field: "source_id" });
      const reason =
        checkString(input.reason ?? undefined, "reason", 500, { multiline: true })?.trim() ||
        "rejected in the file audit";
      // The provider as the link took it: its name, or a bare Suwayomi source id.
      const providerRow = /^\d{1,25}$/.test(provider) ? suwayomiProviderName(provider) : provider;
      const mappingId = await findMapping(seriesId, providerRow, sourceId);
      await requireNoDownload(seriesId);
      const snapshot = { ...(await rejectionSnapshot(seriesId, mappingId)), reason };
      requireMovable(snapshot.files.filter((f) => f.state === "active"));
      const { token, expiresAt } = confirmations.sign(CONFIRM_KINDS.rejectSource, seriesId, snapshot);
      return {
        provider: providerRow,
        sourceId,
        language: snapshot.mapping?.language ?? "",
        offers: snapshot.mapping?.offers.count ?? 0,
        files: await pick(
          seriesId,
          snapshot.files.map((f) => f.id),
        ),
        confirmation: token,
        expiresAt: expiresAt.toISOString(),
      };
    },

    async rejectSource(seriesId: number, input: ConfirmationInput): Promise<SourceRejectionResult> {
      await requireSeries(seriesId);
      type Signed = Awaited<ReturnType<typeof rejectionSnapshot>> & { reason: string };
      const signed = confirmations.verify<Signed>(input.confirmation, CONFIRM_KINDS.rejectSource, seriesId);
      const mapping = signed.mapping;
      if (!mapping) throw new AppError("confirmation_invalid", "the confirmation names no mapping");
      return exclusive(seriesId, async () => {
        await requireNoDownload(seriesId);
        requireSameSnapshot(
          signed,
          { ...(await rejectionSnapshot(seriesId, mapping.id)), reason: signed.reason },
          "the mapping, its offers or its files",
        );
        const provider = await providerName(db, mapping.providerId);
        // Files first: should the move fail, the mapping is still there to preview again.
        const movable = signed.files.filter((f) => f.state === "active").map((f) => f.id);
        const retired = await retire(seriesId, movable, `source rejected: ${provider.name} ${mapping.sourceId}`);
        const offersRemoved = await rejectMapping(
          db,
          { id: mapping.id, seriesId, providerId: mapping.providerId, sourceId: mapping.sourceId },
          signed.reason,
        );
        ctx.events.publish("series_changed", seriesId);
        return { provider: provider.name, sourceId: mapping.sourceId, offersRemoved, retired };
      });
    },

    previewDuplicateRetirement: duplicates.preview,
    retireDuplicates: duplicates.confirm,

    /**
     * GET /api/files/{id}/thumbnail: the cached or freshly made thumbnail of the first or last page.
     * `ifNoneMatch` is the client's ETag: when it names the file's current fingerprint, nothing is read.
     */
    async thumbnail(fileId: number, side: unknown, ifNoneMatch?: string | null) {
      const s = parseSide(side);
      const row = await thumbnailFile(db, fileId);
      if (!row || row.state !== "active") throw new AppError("file_not_found", `no library file ${fileId} on disk`);
      const fp = { sha256: row.sha256, size: Number(row.size), mtimeMs: Number(row.mtimeMs) };
      const etag = `"${fingerprintOf(fp)}-${s}"`;
      const abs = path.join(ctx.config.libraryRoot, ...row.path.split("/"));
      // The client's copy stands only while the bytes on disk are the recorded ones.
      if (ifNoneMatch && ifNoneMatch.split(",").some((t) => t.trim() === etag) && (await onDiskAsRecorded(abs, fp)))
        return { notModified: true as const, etag };
      const t = await thumbnails.get(abs, fp, s);
      return {
        notModified: false as const,
        etag: t.fingerprint ? etag : null,
        data: t.data,
        contentType: t.contentType,
      };
    },
  };
}

export type AuditService = ReturnType<typeof auditService>;
export type { AuditFlag, AuditQueryInput };
