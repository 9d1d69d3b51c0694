-- Slots a source refresh created, and whether a source still lists them.
ALTER TABLE "chapter_slot" ADD COLUMN "origin" TEXT;
ALTER TABLE "chapter_slot" ADD COLUMN "unlisted_at" DATETIME;
ALTER TABLE "volume_slot" ADD COLUMN "origin" TEXT;
ALTER TABLE "volume_slot" ADD COLUMN "unlisted_at" DATETIME;
-- Offers numbered by a numbering override.
ALTER TABLE "offer" ADD COLUMN "overridden" BOOLEAN NOT NULL DEFAULT false;
-- Recovery of split chapters: one group of downloads replaces all the old parts.
ALTER TABLE "download" ADD COLUMN "replacement_group" TEXT;
ALTER TABLE "download" ADD COLUMN "replaces_file_ids" TEXT;
-- Torrent books waiting for an explicit assignment.
ALTER TABLE "torrent_job" ADD COLUMN "pending" TEXT NOT NULL DEFAULT '[]';
