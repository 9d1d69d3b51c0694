import type { LibraryEvent } from "../../events.ts";
import { builder } from "../builder.ts";

const LibraryEventKindEnum = builder.enumType("LibraryEventKind", {
  values: {
    SERIES_CHANGED: { value: "series_changed" },
    MAP_CHANGED: { value: "map_changed" },
    SCAN_FINISHED: { value: "scan_finished" },
  } as const,
});

const LibraryEventRef = builder.objectRef<LibraryEvent>("LibraryEvent").implement({
  description: "Something in the library changed; clients refetch what they show.",
  fields: (t) => ({
    kind: t.field({ type: LibraryEventKindEnum, resolve: (e) => e.kind }),
    seriesId: t.int({ nullable: true, resolve: (e) => e.seriesId }),
    at: t.exposeString("at", { description: "ISO 8601 time of the change." }),
  }),
});

/** The events a subscriber of `seriesId` (or of everything) hears: library-wide ones always. */
function ofSeries(seriesId: number | null | undefined): ((e: LibraryEvent) => boolean) | undefined {
  if (seriesId === null || seriesId === undefined) return undefined;
  return (e) => e.seriesId === null || e.seriesId === seriesId;
}

builder.subscriptionType({});
builder.subscriptionField("libraryEvents", (t) =>
  t.field({
    type: LibraryEventRef,
    description: "Library changes, optionally only those of one series (library-wide events always come).",
    args: { seriesId: t.arg.int() },
    subscribe: (_root, { seriesId }, { events }) => events.subscribe(ofSeries(seriesId)),
    resolve: (e) => e,
  }),
);
