-- Several instances: the journal entry publishing a download or a translation, and the claim epoch
-- of a translation job (a stalled instance's writes are refused once another took the job over).
-- AlterTable
ALTER TABLE "download" ADD COLUMN     "journal_id" INTEGER;

-- AlterTable
ALTER TABLE "translation_job" ADD COLUMN     "epoch" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "journal_id" INTEGER;
