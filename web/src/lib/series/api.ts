/**
 * The mutations and the subscription the series page starts. Each call answers the data or throws
 * the urql CombinedError, which the caller shows through ErrorNotice (toProblem).
 */
import { graphql, type ResultOf } from "$lib/gql";
import type { AnyVariables, TypedDocumentNode } from "@urql/core";
import { getClient, onLiveConnection } from "$lib/graphql";

/** One mutation: its data, or the CombinedError thrown. */
export async function mutate<Data, Variables extends AnyVariables>(
  doc: TypedDocumentNode<Data, Variables>,
  variables: Variables,
): Promise<Data> {
  const result = await getClient().mutation(doc, variables, { requestPolicy: "network-only" }).toPromise();
  if (result.error) throw result.error;
  if (!result.data) throw new Error("The service answered without data.");
  return result.data;
}

/**
 * Runs `onValue` for every value of a subscription until the returned function is called (use it
 * as an $effect's cleanup). Errors of the live connection are passed on, never thrown.
 * `onConnected` runs each time the live connection is (re)established: what changed before the
 * subscription was live is never pushed, so its owner refetches then.
 */
export function subscribe<Data, Variables extends AnyVariables>(
  doc: TypedDocumentNode<Data, Variables>,
  variables: Variables,
  onValue: (data: Data) => void,
  onError?: (error: unknown) => void,
  onConnected?: () => void,
): () => void {
  const stopListening = onConnected ? onLiveConnection(onConnected) : () => undefined;
  const { unsubscribe } = getClient()
    .subscription(doc, variables)
    .subscribe((result) => {
      if (result.error) onError?.(result.error);
      else if (result.data) onValue(result.data);
    });
  return () => {
    stopListening();
    unsubscribe();
  };
}

export const LIBRARY_EVENTS = graphql(`
  subscription SeriesEvents($seriesId: Int!) {
    libraryEvents(seriesId: $seriesId) {
      kind
      seriesId
      at
    }
  }
`);

/** Removes a series whose folder is gone (only its records; nothing on disk is touched). */
export const REMOVE_SERIES = graphql(`
  mutation RemoveSeries($seriesId: Int!) {
    removeSeries(seriesId: $seriesId) {
      id
      folder
      recycleEntriesKept
    }
  }
`);

export const SET_MONITORED = graphql(`
  mutation SetMonitored($seriesId: Int!, $kind: UnitKind!, $number: String!, $monitored: Boolean!) {
    setMonitored(seriesId: $seriesId, kind: $kind, number: $number, monitored: $monitored) {
      kind
      number
      monitored
    }
  }
`);

export const SET_PLAN_WORDING = graphql(`
  mutation SetPlanWording($id: Int!, $planWording: PlanWording!) {
    updateSeries(id: $id, input: { planWording: $planWording }) {
      id
      planWording
    }
  }
`);

export type DuplicateFile = ResultOf<typeof PREVIEW_DUPLICATES>["previewDuplicateRetirement"]["files"][number];

export const PREVIEW_DUPLICATES = graphql(`
  mutation PreviewDuplicates($seriesId: Int!, $volume: String!) {
    previewDuplicateRetirement(seriesId: $seriesId, volume: $volume) {
      volume
      confirmation
      expiresAt
      files {
        id
        path
        number
        size
      }
    }
  }
`);

export type RetiredFile = ResultOf<typeof RETIRE_DUPLICATES>["retireDuplicates"]["retired"][number];

export const RETIRE_DUPLICATES = graphql(`
  mutation RetireDuplicates($seriesId: Int!, $volume: String!, $confirmation: String!) {
    retireDuplicates(seriesId: $seriesId, volume: $volume, confirmation: $confirmation) {
      retired {
        fileId
        recycleEntryId
        from
        binPath
      }
    }
  }
`);

/** What the Edit series dialog shows: the fields a client may set, as the service holds them now. */
const SERIES_SETTINGS_FIELDS = graphql(`
  fragment SeriesSettingsFields on Series {
    id
    title
    form
    formOverride
    language
    originalLanguage
    status
    knownBookCount
    editionBookCount
    webtoon
    monitored
    assembleBooksAutomatically
  }
`);

export const SERIES_SETTINGS = graphql(
  `
    query SeriesSettings($id: Int!) {
      series(id: $id) {
        ...SeriesSettingsFields
      }
    }
  `,
  [SERIES_SETTINGS_FIELDS],
);

export const UPDATE_SERIES = graphql(
  `
    mutation UpdateSeries($id: Int!, $input: SeriesInput!) {
      updateSeries(id: $id, input: $input) {
        ...SeriesSettingsFields
      }
    }
  `,
  [SERIES_SETTINGS_FIELDS],
);
