/**
 * Page evidence on the web: which chapters each book file holds, shown by its pages (the server
 * compares page signatures; the client only words its answer), and the one-click adoption of a
 * book's proposal as its map entry and proof.
 */
import { graphql } from "$lib/gql";
import { chapterSummary } from "./verification";

export interface ChapterEvidence {
  number: string;
  fileIds: number[];
  pages: number;
  matched: number;
  bookPages: number[] | null;
  inOrder: boolean;
}

export interface BookEvidence {
  volume: string;
  fileId: number;
  pages: number;
  chapters: ChapterEvidence[];
  proposal: { volume: string; chapters: string[] } | null;
}

export interface PageEvidence {
  status: "ready" | "computing" | string;
  progress: { done: number; total: number } | null;
  books: BookEvidence[];
}

export const PAGE_EVIDENCE_QUERY = graphql(`
  query PageEvidence($seriesId: Int!) {
    pageEvidence(seriesId: $seriesId) {
      status
      progress {
        done
        total
      }
      books {
        volume
        fileId
        pages
        chapters {
          number
          fileIds
          pages
          matched
          bookPages
          inOrder
        }
        proposal {
          volume
          chapters
        }
      }
    }
  }
`);

export interface AdoptionPreview {
  volume: string;
  revision: number;
  entry: { volume: string; chapters: string[] };
  proof: { digest: string; chapters: string[]; note: string };
  confirmation: string;
}

export const PREVIEW_ADOPTION = graphql(`
  mutation PreviewPageEvidenceAdoption($seriesId: Int!, $volume: String!) {
    previewPageEvidenceAdoption(seriesId: $seriesId, volume: $volume) {
      volume
      revision
      entry {
        volume
        chapters
      }
      proof {
        digest
        chapters
        note
      }
      confirmation
    }
  }
`);

export const ADOPT_PAGE_EVIDENCE = graphql(`
  mutation AdoptPageEvidence($seriesId: Int!, $volume: String!, $confirmation: String!) {
    adoptPageEvidence(seriesId: $seriesId, volume: $volume, confirmation: $confirmation) {
      volume
      revision
      verification {
        verified
      }
    }
  }
`);

/** The chapters of the proposal as one run of book pages: [first page, last page], or null. */
export function proposalPages(book: BookEvidence): [number, number] | null {
  if (!book.proposal) return null;
  const found = book.chapters.filter((c) => book.proposal!.chapters.includes(c.number) && c.bookPages);
  if (found.length === 0) return null;
  const first = Math.min(...found.map((c) => c.bookPages![0]!));
  const last = Math.max(...found.map((c) => c.bookPages![1]!));
  return [first, last];
}

/** One sentence per book: "chapters 25–32 found in order at pages 3–190", or what is missing. */
export function evidenceSentence(book: BookEvidence): string {
  const pages = proposalPages(book);
  if (book.proposal && pages) {
    const n = book.proposal.chapters.length;
    return `${n === 1 ? "chapter" : "chapters"} ${chapterSummary(book.proposal.chapters)} found in order at pages ${pages[0]}–${pages[1]}`;
  }
  const found = book.chapters.filter((c) => c.inOrder).map((c) => c.number);
  if (found.length === 0) return "no chapter on disk was found in its pages";
  return `${found.length === 1 ? "chapter" : "chapters"} ${chapterSummary(found)} found in order, but they do not explain the book's pages (no proposal)`;
}

/** "Checking pages: 12 of 40 files" while the signatures are computed. */
export function progressSentence(progress: { done: number; total: number } | null): string {
  if (!progress || progress.total === 0) return "Reading the pages of the series' files…";
  return `Reading the pages of the series' files: ${progress.done} of ${progress.total} done…`;
}
