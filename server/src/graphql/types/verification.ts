import { asId } from "../../services/input.ts";
import type { StoredProof, VerifiedBook } from "../../services/audit/verification-service.ts";
import { builder } from "../builder.ts";

/** Verified books (REST GET/PUT/DELETE …/verified-books, …/volumes/{volume}/verification). */
const ProofStatusEnum = builder.enumType("ProofStatus", {
  values: {
    APPLIES: { value: "applies", description: "Same digest and same map entry: the book is verified." },
    DIGEST_CHANGED: { value: "digest_changed", description: "The book's content changed since the proof." },
    MAP_CHANGED: { value: "map_changed", description: "The volume's map entry changed since the proof." },
  } as const,
});

const BookProofRef = builder.objectRef<StoredProof>("BookProof").implement({
  description: "A recorded proof of what a book holds; it applies only while content and map entry are unchanged.",
  fields: (t) => ({
    fileId: t.exposeInt("fileId"),
    digest: t.exposeString("digest", { description: '"sha256:<hex>" of the content the proof was recorded for.' }),
    chapters: t.exposeStringList("chapters"),
    sourceUrl: t.string({ nullable: true, resolve: (p) => p.sourceUrl }),
    note: t.exposeString("note"),
    createdAt: t.exposeString("createdAt", { description: "ISO 8601." }),
    status: t.field({ type: ProofStatusEnum, resolve: (p) => p.status }),
  }),
});

export const VerifiedBookRef = builder.objectRef<VerifiedBook>("VerifiedBook").implement({
  description: "An owned book with its current digest, the map's chapters for its volume and why it is suspect.",
  fields: (t) => ({
    volume: t.exposeString("volume"),
    fileId: t.exposeInt("fileId"),
    digest: t.exposeString("digest", { description: '"sha256:<hex>" of the current content.' }),
    chapters: t.exposeStringList("chapters", { description: "Chapters the operational map lists for the volume." }),
    suspectReason: t.string({
      nullable: true,
      description: "hand import | machine translation | oversized pack; null = not suspect.",
      resolve: (b) => b.suspectReason,
    }),
    verified: t.exposeBoolean("verified"),
    proof: t.field({ type: BookProofRef, nullable: true, resolve: (b) => b.proof }),
  }),
});

const VerificationInput = builder.inputType("VerificationInput", {
  fields: (t) => ({
    digest: t.string({ required: true, description: 'The current digest read from verifiedBooks ("sha256:<hex>").' }),
    chapters: t.stringList({ required: true, description: "Exactly the map's chapters for the volume." }),
    sourceUrl: t.string({ required: false }),
    note: t.string({ required: true, description: "How the book was checked." }),
  }),
});

builder.queryField("verifiedBooks", (t) =>
  t.field({
    type: [VerifiedBookRef],
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.verification.list(asId(seriesId)),
  }),
);

builder.mutationFields((t) => ({
  verifyBook: t.field({
    type: VerifiedBookRef,
    description: "Records a proof (digest_stale, map_entry_not_registered, proof_chapters_mismatch, book_not_owned).",
    args: {
      seriesId: t.arg.int({ required: true }),
      volume: t.arg.string({ required: true }),
      input: t.arg({ type: VerificationInput, required: true }),
    },
    resolve: (_r, { seriesId, volume, input }, { services }) =>
      services.verification.verify(asId(seriesId), volume, {
        digest: input.digest,
        chapters: input.chapters,
        sourceUrl: input.sourceUrl,
        note: input.note,
      }),
  }),
  withdrawVerification: t.field({
    type: "Boolean",
    description: "Withdraws the proof of a book (verification_not_found when none).",
    args: { seriesId: t.arg.int({ required: true }), volume: t.arg.string({ required: true }) },
    resolve: async (_r, { seriesId, volume }, { services }) => {
      await services.verification.withdraw(asId(seriesId), volume);
      return true;
    },
  }),
}));
