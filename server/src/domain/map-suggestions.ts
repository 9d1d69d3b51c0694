/**
 * Catalogue and official-platform maps as suggestions (docs/rules.md, "Map trust" 1, 4, 6, and
 * "Catalogues suggest, never decide").
 *
 * They are shown in the map editor for review and can be adopted into the operator map; they never
 * become operational by themselves. Adoption turns the chosen claims into operator boundaries (the
 * operator's explicit act is the evidence a conflict waits for), but:
 * - a chapter the suggestion itself places in two books is never adopted ("Map trust" 3, even a
 *   contradiction inside one catalogue), nor is a chapter the operator already places elsewhere;
 * - a book the operator has an entry for is never touched: a non-empty entry is a manual boundary
 *   ("Map trust" 6), an empty one rejected the catalogue claims for that book ("Map trust" 4). To
 *   adopt a suggestion there, the operator first removes that entry;
 * - two catalogues disagreeing is flagged for review but does not block adopting one of them:
 *   choosing which catalogue to trust is exactly the operator's call.
 */
import { parseLabel, sortLabels, type Label } from "./labels.ts";
import { canonicalLabels } from "./map-labels.ts";
import type { MapEntryFacts, MapSourceFacts, MapSourceKind } from "./types.ts";

/** Catalogue and official-platform maps: shown for review, never operational. */
export function isSuggestionKind(kind: MapSourceKind): boolean {
  return kind === "catalogue" || kind === "official";
}

/** Where a contradiction comes from: inside this source, between catalogues, against the operator map. */
export type ConflictScope = "source" | "catalogues" | "operator";

export interface SuggestionConflict {
  chapter: Label;
  /** Every book the chapter is claimed for in that scope (this entry's volume included). */
  volumes: Label[];
  scope: ConflictScope;
}

/** open: adoptable; set: the operator has boundaries for the book; suppressed: the operator said unknown. */
export type SuggestionStatus = "open" | "set" | "suppressed";

export interface SuggestionEntry {
  volume: Label;
  chapters: Label[];
  status: SuggestionStatus;
  conflicts: SuggestionConflict[];
  /** What adoptSuggestion would take from this entry (open entries minus source/operator conflicts). */
  adoptable: Label[];
}

export interface CatalogueSuggestion {
  sourceId: number;
  name: string;
  kind: "catalogue" | "official";
  revision: number;
  entries: SuggestionEntry[];
}

/** Volume → chapters, united per volume, canonical. */
function entriesByVolume(entries: readonly MapEntryFacts[]): Map<Label, Label[]> {
  const out = new Map<Label, Set<Label>>();
  for (const e of entries) {
    const v = parseLabel(e.volume);
    if (v === null) continue;
    const set = out.get(v) ?? new Set<Label>();
    for (const c of canonicalLabels(e.chapters)) set.add(c);
    out.set(v, set);
  }
  return new Map(sortLabels([...out.keys()]).map((v) => [v, sortLabels([...(out.get(v) ?? [])])]));
}

/** Chapter → the books claiming it. */
function claimsOf(byVolume: Map<Label, Label[]>): Map<Label, Set<Label>> {
  const claims = new Map<Label, Set<Label>>();
  for (const [v, chapters] of byVolume) {
    for (const c of chapters) {
      const set = claims.get(c) ?? new Set<Label>();
      set.add(v);
      claims.set(c, set);
    }
  }
  return claims;
}

/**
 * The suggestions to show next to the operator map: one per catalogue/official source, each entry
 * with its status and its conflicts (see the module comment). Operator, reading and estimate
 * sources are not suggestions and are skipped.
 */
export function catalogueSuggestions(
  sources: readonly MapSourceFacts[],
  operatorEntries: readonly MapEntryFacts[],
): CatalogueSuggestion[] {
  const operator = entriesByVolume(operatorEntries);
  const operatorClaims = claimsOf(operator);
  const suggestionSources = sources.filter((s) => isSuggestionKind(s.kind));
  const perSource = suggestionSources.map((s) => entriesByVolume(s.entries));
  const allClaims = new Map<Label, Set<Label>>();
  for (const byVolume of perSource) {
    for (const [c, volumes] of claimsOf(byVolume)) {
      const set = allClaims.get(c) ?? new Set<Label>();
      for (const v of volumes) set.add(v);
      allClaims.set(c, set);
    }
  }

  return suggestionSources.map((source, i) => {
    const byVolume = perSource[i] ?? new Map<Label, Label[]>();
    const own = claimsOf(byVolume);
    const entries = [...byVolume].map(([volume, chapters]): SuggestionEntry => {
      const conflicts: SuggestionConflict[] = [];
      const blocked = new Set<Label>();
      for (const c of chapters) {
        const inSource = own.get(c) ?? new Set<Label>();
        if (inSource.size > 1) {
          conflicts.push({ chapter: c, volumes: sortLabels([...inSource]), scope: "source" });
          blocked.add(c);
        }
        const across = allClaims.get(c) ?? new Set<Label>();
        if (across.size > inSource.size)
          conflicts.push({ chapter: c, volumes: sortLabels([...across]), scope: "catalogues" });
        const byOperator = [...(operatorClaims.get(c) ?? [])].filter((v) => v !== volume);
        if (byOperator.length > 0) {
          conflicts.push({ chapter: c, volumes: sortLabels([volume, ...byOperator]), scope: "operator" });
          blocked.add(c);
        }
      }
      const set = operator.get(volume);
      const status: SuggestionStatus = set === undefined ? "open" : set.length === 0 ? "suppressed" : "set";
      const adoptable = status === "open" ? chapters.filter((c) => !blocked.has(c)) : [];
      return { volume, chapters, status, conflicts, adoptable };
    });
    return {
      sourceId: source.id,
      name: source.name,
      kind: source.kind === "official" ? "official" : "catalogue",
      revision: source.revision,
      entries,
    };
  });
}

export type AdoptionSkipReason = "set_by_operator" | "suppressed_by_operator" | "nothing_adoptable";
export type DroppedClaimReason = "conflict_in_suggestion" | "claimed_by_operator";

export interface AdoptionResult {
  /** The operator map after adoption, sorted by volume. */
  entries: MapEntryFacts[];
  /** Books that received an entry. */
  adopted: Label[];
  skipped: { volume: Label; reason: AdoptionSkipReason }[];
  droppedClaims: { chapter: Label; volume: Label; reason: DroppedClaimReason }[];
}

/**
 * The operator map after adopting a suggestion (all its books, or only `volumes`). Existing
 * operator entries are kept exactly as they are; conflicting claims are dropped (see the module
 * comment). The result still has to be saved through the ordinary revision-bound PUT.
 */
export function adoptSuggestion(
  operatorEntries: readonly MapEntryFacts[],
  suggestionEntries: readonly MapEntryFacts[],
  volumes?: readonly string[],
): AdoptionResult {
  const operator = entriesByVolume(operatorEntries);
  const operatorClaims = claimsOf(operator);
  const suggestion = entriesByVolume(suggestionEntries);
  const suggestionClaims = claimsOf(suggestion);
  const wanted = volumes === undefined ? null : new Set(canonicalLabels(volumes));

  const result = new Map(operator);
  const adopted: Label[] = [];
  const skipped: AdoptionResult["skipped"] = [];
  const droppedClaims: AdoptionResult["droppedClaims"] = [];
  for (const [volume, chapters] of suggestion) {
    if (wanted !== null && !wanted.has(volume)) continue;
    const existing = operator.get(volume);
    if (existing !== undefined) {
      skipped.push({ volume, reason: existing.length === 0 ? "suppressed_by_operator" : "set_by_operator" });
      continue;
    }
    const kept: Label[] = [];
    for (const c of chapters) {
      if ((suggestionClaims.get(c)?.size ?? 0) > 1)
        droppedClaims.push({ chapter: c, volume, reason: "conflict_in_suggestion" });
      else if (operatorClaims.has(c)) droppedClaims.push({ chapter: c, volume, reason: "claimed_by_operator" });
      else kept.push(c);
    }
    if (kept.length === 0) {
      // An empty entry would mean "unknown" and suppress future suggestions: never create one here.
      skipped.push({ volume, reason: "nothing_adoptable" });
      continue;
    }
    result.set(volume, kept);
    adopted.push(volume);
  }
  const entries = sortLabels([...result.keys()]).map((volume) => ({ volume, chapters: result.get(volume) ?? [] }));
  return { entries, adopted, skipped, droppedClaims };
}
