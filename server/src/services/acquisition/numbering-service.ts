/**
 * Numbering overrides (docs/rules.md, "Sources"; domain/numbering-override.ts): an INTERNAL operation, no
 * endpoint. Stored per (source mapping, release id) with the number the source showed and the evidence that
 * justified it; applied by every refresh before anything reads the numbers (sources-service.ts); invalidated
 * when the source's number changes (domain/numbering-override.ts); an empty correction withdraws it. After a
 * change the mapping is refreshed so its offers show the corrected numbering at once (a provider failure then
 * is reported, the override stays stored).
 */
import { isWithdrawal, observedKey, parseCorrection } from "../../domain/numbering-override.ts";
import { parseLabel } from "../../domain/labels.ts";
import { AppError } from "../../errors.ts";
import { sourceRepo } from "../../repositories/source-repo.ts";
import type { AppContext } from "../context.ts";
import type { MappingRefresh, SourcesService } from "./sources-service.ts";

export interface NumberingOverrideOutcome {
  action: "set" | "withdrawn" | "none";
  refresh: MappingRefresh | null;
}

export function numberingService(ctx: AppContext, sources: SourcesService) {
  const repo = sourceRepo(ctx.db);
  return {
    /**
     * Sets (or, with a null/empty correction, withdraws) the override of one release.
     * `observedNumber` is the source's number as reviewed ("4.5"), null for an unnumbered release.
     */
    async setNumberingOverride(
      seriesId: number,
      mappingId: number,
      externalId: string,
      observedNumber: string | null,
      correction: unknown,
      evidence: string,
    ): Promise<NumberingOverrideOutcome> {
      const mapping = await repo.mapping(mappingId);
      if (!mapping || mapping.seriesId !== seriesId)
        throw new AppError("mapping_not_found", `series ${seriesId} has no source mapping ${mappingId}`);
      if (!externalId || externalId.length > 500)
        throw new AppError("invalid_field", "externalId must be the provider's release id", { field: "externalId" });
      if (observedNumber !== null && parseLabel(observedNumber) === null)
        throw new AppError(
          "invalid_label",
          `observedNumber is not an exact decimal: ${JSON.stringify(observedNumber)}`,
          { field: "observedNumber" },
        );
      const parsed = parseCorrection(correction);
      if (!parsed.ok) throw new AppError("invalid_field", parsed.error, { field: "correction" });
      let action: NumberingOverrideOutcome["action"];
      if (isWithdrawal(parsed.correction)) {
        action = (await repo.deleteOverride(mappingId, externalId)) ? "withdrawn" : "none";
      } else {
        const why = evidence.trim();
        if (!why) throw new AppError("invalid_field", "an override needs its evidence", { field: "evidence" });
        await repo.upsertOverride({
          seriesId,
          sourceMappingId: mappingId,
          externalId,
          observedNumber: observedKey(observedNumber),
          correction: JSON.stringify(parsed.correction),
          evidence: why.slice(0, 2000),
        });
        action = "set";
      }
      const refresh =
        mapping.state === "active" && action !== "none"
          ? await sources.refreshOne(seriesId, mappingId).catch(() => null)
          : null;
      return { action, refresh };
    },

    async overridesOf(seriesId: number, mappingId: number) {
      const mapping = await repo.mapping(mappingId);
      if (!mapping || mapping.seriesId !== seriesId)
        throw new AppError("mapping_not_found", `series ${seriesId} has no source mapping ${mappingId}`);
      return repo.overridesOf(mappingId);
    },
  };
}

export type NumberingService = ReturnType<typeof numberingService>;
