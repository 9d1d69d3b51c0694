/**
 * What a source of chapters offers the service: search a title, list a work's chapters,
 * fetch a chapter's pages. Implementations: Suwayomi-Server (GraphQL), the drop folder. The Wanted
 * pass and the download pipeline only see this interface.
 *
 * Numbers are exact decimal labels (domain/labels.ts): a provider's float 4.5 arrives as "4.5",
 * 0 as "0"; an unnumbered chapter (Suwayomi −1) has `number: null` (the reconciliation makes it an
 * extra of its own, fetched only on request).
 */
import { AppError } from "../errors.ts";
import type { Label } from "../domain/labels.ts";
import type { ArchiveErrorCode } from "../library/archive/archive-error.ts";

export type ProviderKind = "suwayomi" | "drop_folder";

export interface ProviderWork {
  /** The provider's work id (Suwayomi manga id, drop-folder folder name). */
  sourceId: string;
  title: string;
  language: string;
  /** e.g. the Suwayomi source the work comes from. */
  sourceName: string | null;
  thumbnailUrl: string | null;
}

export interface ProviderChapter {
  /** The provider's id of this release (Suwayomi chapter id, drop-folder entry name). */
  externalId: string;
  /** Exact decimal label; null when the provider could not number it. */
  number: Label | null;
  /** Only when the chapter's name states it; never guessed. */
  volume: Label | null;
  /** 1-based part of a split chapter, else null. */
  part: number | null;
  name: string;
  scanlator: string | null;
  language: string;
  uploadedAt: Date | null;
  /** null until the provider knows it. */
  pageCount: number | null;
}

/** Why an entry of a work was left out of its listing (the drop folder says so; Suwayomi leaves nothing out). */
export type ListingProblemCode =
  ArchiveErrorCode | "unreadable" | "symbolic_link" | "no_pages" | "number_range" | "unsupported_format";

export interface ListingProblem {
  /** The entry's name: one path segment inside the work, never a path. */
  name: string;
  code: ListingProblemCode;
  /** A short sentence for a person; never file content, never a path. */
  detail: string;
}

export interface ListOptions {
  signal?: AbortSignal;
  /** The language a chapter is offered in when nothing about it says otherwise (the mapping's). */
  language?: string;
}

export interface FetchedPage {
  /** 1-based, reading order. */
  index: number;
  bytes: Buffer;
  /** As the provider answered it; the pipeline trusts the bytes' magic, not this. */
  contentType: string | null;
  /**
   * When the bytes are in a reused buffer: gives it back. Called once nothing reads `bytes` any
   * more (the page is written); a page never released is simply collected.
   */
  release?(): void;
}

export interface ChapterPages {
  count: number;
  /** Fetches page `index` (1-based). Transient failures throw ProviderError with `transient: true`. */
  fetch(index: number, signal?: AbortSignal): Promise<FetchedPage>;
}

export interface SourceProvider {
  readonly kind: ProviderKind;
  /** The Provider row's name. */
  readonly name: string;
  search(title: string, options?: { language?: string; signal?: AbortSignal }): Promise<ProviderWork[]>;
  listChapters(sourceId: string, options?: ListOptions): Promise<ProviderChapter[]>;
  /** The listing with every entry the provider saw but could not offer; absent: it leaves nothing out. */
  listWithProblems?(
    sourceId: string,
    options?: ListOptions,
  ): Promise<{ chapters: ProviderChapter[]; problems: ListingProblem[] }>;
  pages(sourceId: string, externalId: string, options?: { signal?: AbortSignal }): Promise<ChapterPages>;
}

/**
 * A provider failure. `transient` (connection refused, timeout, 5xx, 429) retries with bounded
 * back-off; otherwise (4xx, a malformed answer, a page off the provider's origin) the download fails.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/**
 * A provider failure that reached the API without a service turning it into a coded error: always
 * 502 `provider_failed`, the upstream's own status (null when it never answered) in `upstream_status`.
 */
export function providerFailed(e: ProviderError): AppError {
  return new AppError("provider_failed", e.message, { transient: e.transient, upstream_status: e.status });
}

/**
 * The indexer manager + torrent client channel for whole books (Prowlarr + qBittorrent; optional,
 * off by default). The Wanted pass hands it the wanted book slots it could not fill from sources.
 */
export type BookChannelOutcome = "grabbed" | "already_grabbed" | "no_result" | "disabled" | "failed";

export interface BookChannel {
  enabled(): Promise<boolean>;
  /** Searches the indexers and adds torrents for these wanted books; one outcome per book. */
  fetchBooks(
    seriesId: number,
    books: readonly Label[],
  ): Promise<{ book: Label; outcome: BookChannelOutcome; detail: string }[]>;
  /** Polls the client, imports the requested books of completed torrents, then runs the retention action. */
  poll(): Promise<void>;
}
