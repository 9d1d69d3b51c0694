/**
 * fast-check generators of MangaDex aggregates for the property suite: numbered volumes (spelled
 * "1" or "01"), the `none` key, unnumbered volumes ("Special"), chapter keys that are labels or not,
 * and chapters listed under several volumes — from the same small label universe as the series
 * generators, so suggestions, slots and files collide often.
 */
import fc from "fast-check";
import type { AggregateVolume } from "./catalogue.ts";
import { chapterLabel } from "./test-arbitraries.ts";

const volumeKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 6 }).map(String), weight: 6 },
  { arbitrary: fc.integer({ min: 1, max: 6 }).map((n) => `0${n}`), weight: 1 },
  { arbitrary: fc.constant("none"), weight: 2 },
  { arbitrary: fc.constantFrom("Special", "1-2"), weight: 1 },
);

const chapterKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: chapterLabel.map(String), weight: 12 },
  { arbitrary: fc.constantFrom("none", "Extra", "3a"), weight: 1 },
);

export const aggregateArb: fc.Arbitrary<AggregateVolume[]> = fc.array(
  fc.record({ volume: volumeKey, chapters: fc.uniqueArray(chapterKey, { maxLength: 8 }) }),
  { maxLength: 8 },
);
