/**
 * Adopting a catalogue or official suggestion into the operator map, book by book (the map editor's
 * "Adopt book N"): domain/map-suggestions.ts decides what an adoption takes (never a chapter the
 * suggestion places in two books or the operator places elsewhere, never a book the operator has an
 * entry for); the result is previewed and saved through the map service's ordinary revision-bound
 * replace, so the operator's act is the only thing that makes catalogue data operational.
 */
import { AppError } from "../../errors.ts";
import { adoptSuggestion, isSuggestionKind, type AdoptionResult } from "../../domain/map-trust.ts";
import type { AppContext } from "../context.ts";
import { asLabel, asRevision } from "../input.ts";
import type { MapChangeResult, MapService } from "./map-service.ts";

/** Adopting books of a suggestion: its name, the revision read with the map, the books (absent: all). */
export interface AdoptionInput {
  source: string;
  revision: number;
  volumes?: readonly string[] | null;
}

export interface Adoption {
  adopted: AdoptionResult["adopted"];
  skipped: AdoptionResult["skipped"];
  droppedClaims: AdoptionResult["droppedClaims"];
}

export function suggestionAdoptionService(ctx: AppContext, maps: MapService) {
  return {
    /** With dryRun the coverage change, otherwise the saved map. */
    async adopt(
      seriesId: number,
      input: AdoptionInput,
      dryRun: boolean,
    ): Promise<{ result: MapChangeResult; adoption: Adoption }> {
      const source = input.source;
      if (source.length > 120)
        throw new AppError("invalid_field", 'source must name a suggestion, e.g. "catalogue:mangadex"', {
          field: "source",
        });
      const revision = asRevision(input.revision);
      let volumes: string[] | undefined;
      if (input.volumes !== undefined && input.volumes !== null) {
        if (input.volumes.length === 0 || input.volumes.length > 5000)
          throw new AppError("invalid_field", "volumes must be a non-empty list of book numbers (or absent: all)", {
            field: "volumes",
          });
        volumes = input.volumes.map((v, i) => asLabel(v, `volumes[${i}]`));
      }
      await maps.view(seriesId); // 404 for an unknown series
      const sources = await ctx.repos.maps.sources(seriesId);
      const suggestion = sources.find((s) => s.name === source && isSuggestionKind(s.kind));
      if (!suggestion)
        throw new AppError("suggestion_not_found", `series ${seriesId} has no suggestion ${JSON.stringify(source)}`);
      const operator = sources.filter((s) => s.kind === "operator").flatMap((s) => s.entries);
      const r = adoptSuggestion(operator, suggestion.entries, volumes);
      const adoption = { adopted: r.adopted, skipped: r.skipped, droppedClaims: r.droppedClaims };
      if (r.adopted.length === 0)
        throw new AppError("nothing_to_adopt", "none of those books can be adopted from the suggestion", {
          skipped: r.skipped,
          dropped_claims: r.droppedClaims,
        });
      const result = await maps.replace(seriesId, { revision, entries: r.entries }, dryRun);
      if (!dryRun)
        ctx.log(`series ${seriesId}: the operator adopted book(s) ${r.adopted.join(", ")} from ${suggestion.name}`);
      return { result, adoption };
    },
  };
}

export type SuggestionAdoptionService = ReturnType<typeof suggestionAdoptionService>;
