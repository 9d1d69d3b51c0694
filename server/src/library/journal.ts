/**
 * The publication journal's entries and payloads: what each operation in flight records before its
 * first irreversible step, so that start-up recovery can finish or undo it. The rows themselves are
 * read and written by repositories/publication-repo.ts.
 */
export type {
  JournalEntry,
  PublicationClaim,
  PublishFile,
  PublishPayload,
  PublishRelease,
  PurgePayload,
  RestorePayload,
  RetireFilePlan,
  RetirePayload,
} from "../repositories/publication-repo.ts";
