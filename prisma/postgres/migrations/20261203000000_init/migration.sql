-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "series" (
    "id" SERIAL NOT NULL,
    "title" TEXT NOT NULL,
    "folder" TEXT NOT NULL,
    "form" TEXT,
    "language" TEXT NOT NULL DEFAULT 'en',
    "original_language" TEXT,
    "status" TEXT NOT NULL DEFAULT 'running',
    "known_book_count" INTEGER,
    "edition_book_count" INTEGER,
    "webtoon" BOOLEAN NOT NULL DEFAULT false,
    "plan_wording" TEXT NOT NULL DEFAULT 'books_first',
    "monitored" BOOLEAN NOT NULL DEFAULT true,
    "assemble_books_automatically" BOOLEAN NOT NULL DEFAULT false,
    "translation_fallback_enabled" BOOLEAN NOT NULL DEFAULT false,
    "translation_source_languages" TEXT NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "series_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "volume_slot" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "monitored" BOOLEAN NOT NULL DEFAULT true,
    "title" TEXT,
    "origin" TEXT,
    "unlisted_at" TIMESTAMP(3),

    CONSTRAINT "volume_slot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "chapter_slot" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "monitored" BOOLEAN NOT NULL DEFAULT true,
    "parts" INTEGER NOT NULL DEFAULT 1,
    "extra" BOOLEAN NOT NULL DEFAULT false,
    "title" TEXT,
    "origin" TEXT,
    "unlisted_at" TIMESTAMP(3),

    CONSTRAINT "chapter_slot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "map_source" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "data" TEXT NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "map_source_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "map_entry" (
    "id" SERIAL NOT NULL,
    "source_id" INTEGER NOT NULL,
    "volume" TEXT NOT NULL,
    "chapters" TEXT NOT NULL DEFAULT '[]',

    CONSTRAINT "map_entry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "library_file" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "path" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "mtime_ms" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "page_count" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "volume" TEXT,
    "chapter" TEXT,
    "chapter_end" TEXT,
    "part" INTEGER,
    "tag_source" TEXT,
    "language" TEXT,
    "origin" TEXT NOT NULL DEFAULT 'scan',
    "state" TEXT NOT NULL DEFAULT 'active',
    "recycled_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "library_file_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "chapter_release" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "volume" TEXT,
    "chapter" TEXT,
    "part" INTEGER,
    "language" TEXT NOT NULL DEFAULT 'en',
    "scanlator" TEXT,
    "provider_id" INTEGER,
    "source_mapping_id" INTEGER,
    "external_id" TEXT,
    "file_id" INTEGER,
    "assembled_from" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chapter_release_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "provider" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "base_url" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "source_mapping" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "provider_id" INTEGER NOT NULL,
    "source_id" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "source_mapping_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "offer" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "source_mapping_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "volume" TEXT,
    "chapter" TEXT,
    "part" INTEGER,
    "language" TEXT NOT NULL,
    "scanlator" TEXT,
    "external_id" TEXT NOT NULL,
    "page_count" INTEGER,
    "uploaded_at" TIMESTAMP(3),
    "overridden" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "offer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "source_rejection" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "provider_id" INTEGER NOT NULL,
    "source_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "source_rejection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "download" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "source_mapping_id" INTEGER,
    "kind" TEXT NOT NULL,
    "volume" TEXT,
    "chapter" TEXT,
    "part" INTEGER,
    "language" TEXT NOT NULL,
    "scanlator" TEXT,
    "external_id" TEXT,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "verdict" TEXT,
    "needs_replacement" BOOLEAN NOT NULL DEFAULT false,
    "file_id" INTEGER,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3),
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "pages_done" INTEGER NOT NULL DEFAULT 0,
    "pages_total" INTEGER,
    "replaces_file_id" INTEGER,
    "replacement_group" TEXT,
    "replaces_file_ids" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "download_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recycle_entry" (
    "id" SERIAL NOT NULL,
    "file_id" INTEGER,
    "series_id" INTEGER,
    "original_path" TEXT NOT NULL,
    "bin_path" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'recycled',
    "recycled_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "restored_at" TIMESTAMP(3),

    CONSTRAINT "recycle_entry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "publication_journal" (
    "id" SERIAL NOT NULL,
    "op" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "publication_journal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verification" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "volume" TEXT NOT NULL,
    "file_id" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "chapters" TEXT NOT NULL,
    "source_url" TEXT,
    "note" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "setting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "numbering_override" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "source_mapping_id" INTEGER NOT NULL,
    "external_id" TEXT NOT NULL,
    "observed_number" TEXT NOT NULL,
    "correction" TEXT NOT NULL,
    "evidence" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "numbering_override_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wanted_entry" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '{}',
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "wanted_entry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wanted_state" (
    "series_id" INTEGER NOT NULL,
    "last_pass_at" TIMESTAMP(3),
    "empty_passes" INTEGER NOT NULL DEFAULT 0,
    "next_pass_at" TIMESTAMP(3),

    CONSTRAINT "wanted_state_pkey" PRIMARY KEY ("series_id")
);

-- CreateTable
CREATE TABLE "torrent_job" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "info_hash" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "indexer" TEXT,
    "books" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'added',
    "content_path" TEXT,
    "imported" TEXT NOT NULL DEFAULT '[]',
    "retention" TEXT,
    "error" TEXT,
    "purpose" TEXT NOT NULL DEFAULT 'native',
    "source_language" TEXT,
    "pending" TEXT NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "torrent_job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "translation_job" (
    "id" SERIAL NOT NULL,
    "job_key" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "series_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "source_language" TEXT NOT NULL,
    "target_language" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "source_mapping_id" INTEGER,
    "external_id" TEXT,
    "source_path" TEXT,
    "source_sha256" TEXT,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "paused_from" TEXT,
    "paused_reason" TEXT,
    "cancel_pending" BOOLEAN NOT NULL DEFAULT false,
    "pages_done" INTEGER,
    "pages_total" INTEGER,
    "error_code" TEXT,
    "error_message" TEXT,
    "transient_failures" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3),
    "file_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "translation_job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "page_signature_set" (
    "sha256" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "pages" TEXT NOT NULL DEFAULT '[]',
    "page_count" INTEGER NOT NULL DEFAULT 0,
    "last_mean" DOUBLE PRECISION,
    "last_stdev" DOUBLE PRECISION,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "page_signature_set_pkey" PRIMARY KEY ("sha256")
);

-- CreateTable
CREATE TABLE "session" (
    "id" SERIAL NOT NULL,
    "token_hash" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "password_stamp" TEXT NOT NULL,
    "user_agent" TEXT,
    "address" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalogue_link" (
    "id" SERIAL NOT NULL,
    "series_id" INTEGER NOT NULL,
    "catalogue" TEXT NOT NULL,
    "catalogue_id" TEXT NOT NULL,
    "status" TEXT,
    "volumes" INTEGER,
    "chapters" INTEGER,
    "data" TEXT NOT NULL DEFAULT '{}',
    "cover_file" TEXT,
    "cover_type" TEXT,
    "cover_source" TEXT,
    "refreshed_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalogue_link_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "series_revision" (
    "series_id" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "series_revision_pkey" PRIMARY KEY ("series_id")
);

-- CreateTable
CREATE TABLE "read_progress" (
    "id" SERIAL NOT NULL,
    "user_name" TEXT NOT NULL,
    "file_id" INTEGER NOT NULL,
    "page" INTEGER NOT NULL,
    "completed" BOOLEAN NOT NULL DEFAULT false,
    "device" TEXT NOT NULL DEFAULT 'web',
    "koreader_progress" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "read_progress_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reader_document" (
    "file_id" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "partial_md5" TEXT NOT NULL,
    "name_md5" TEXT NOT NULL,

    CONSTRAINT "reader_document_pkey" PRIMARY KEY ("file_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "series_folder_key" ON "series"("folder");

-- CreateIndex
CREATE UNIQUE INDEX "volume_slot_series_id_number_key" ON "volume_slot"("series_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "chapter_slot_series_id_number_key" ON "chapter_slot"("series_id", "number");

-- CreateIndex
CREATE INDEX "map_source_series_id_idx" ON "map_source"("series_id");

-- CreateIndex
CREATE UNIQUE INDEX "map_source_series_id_name_key" ON "map_source"("series_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "map_entry_source_id_volume_key" ON "map_entry"("source_id", "volume");

-- CreateIndex
CREATE INDEX "library_file_series_id_state_idx" ON "library_file"("series_id", "state");

-- CreateIndex
CREATE INDEX "library_file_path_idx" ON "library_file"("path");

-- CreateIndex
CREATE INDEX "chapter_release_series_id_idx" ON "chapter_release"("series_id");

-- CreateIndex
CREATE INDEX "chapter_release_file_id_idx" ON "chapter_release"("file_id");

-- CreateIndex
CREATE UNIQUE INDEX "provider_name_key" ON "provider"("name");

-- CreateIndex
CREATE UNIQUE INDEX "source_mapping_series_id_provider_id_source_id_key" ON "source_mapping"("series_id", "provider_id", "source_id");

-- CreateIndex
CREATE INDEX "offer_series_id_idx" ON "offer"("series_id");

-- CreateIndex
CREATE UNIQUE INDEX "offer_source_mapping_id_external_id_key" ON "offer"("source_mapping_id", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "source_rejection_series_id_provider_id_source_id_key" ON "source_rejection"("series_id", "provider_id", "source_id");

-- CreateIndex
CREATE INDEX "download_series_id_state_idx" ON "download"("series_id", "state");

-- CreateIndex
CREATE INDEX "download_state_next_attempt_at_idx" ON "download"("state", "next_attempt_at");

-- CreateIndex
CREATE INDEX "recycle_entry_state_recycled_at_idx" ON "recycle_entry"("state", "recycled_at");

-- CreateIndex
CREATE INDEX "publication_journal_step_idx" ON "publication_journal"("step");

-- CreateIndex
CREATE UNIQUE INDEX "verification_series_id_volume_key" ON "verification"("series_id", "volume");

-- CreateIndex
CREATE INDEX "numbering_override_series_id_idx" ON "numbering_override"("series_id");

-- CreateIndex
CREATE UNIQUE INDEX "numbering_override_source_mapping_id_external_id_key" ON "numbering_override"("source_mapping_id", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "wanted_entry_series_id_kind_number_key" ON "wanted_entry"("series_id", "kind", "number");

-- CreateIndex
CREATE INDEX "torrent_job_state_idx" ON "torrent_job"("state");

-- CreateIndex
CREATE UNIQUE INDEX "torrent_job_series_id_info_hash_key" ON "torrent_job"("series_id", "info_hash");

-- CreateIndex
CREATE INDEX "translation_job_series_id_idx" ON "translation_job"("series_id");

-- CreateIndex
CREATE INDEX "translation_job_state_next_attempt_at_idx" ON "translation_job"("state", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "translation_job_job_key_attempt_key" ON "translation_job"("job_key", "attempt");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_hash_key" ON "session"("token_hash");

-- CreateIndex
CREATE INDEX "session_username_idx" ON "session"("username");

-- CreateIndex
CREATE INDEX "session_expires_at_idx" ON "session"("expires_at");

-- CreateIndex
CREATE INDEX "catalogue_link_catalogue_catalogue_id_idx" ON "catalogue_link"("catalogue", "catalogue_id");

-- CreateIndex
CREATE UNIQUE INDEX "catalogue_link_series_id_catalogue_key" ON "catalogue_link"("series_id", "catalogue");

-- CreateIndex
CREATE INDEX "read_progress_user_name_updated_at_idx" ON "read_progress"("user_name", "updated_at");

-- CreateIndex
CREATE INDEX "read_progress_file_id_idx" ON "read_progress"("file_id");

-- CreateIndex
CREATE UNIQUE INDEX "read_progress_user_name_file_id_key" ON "read_progress"("user_name", "file_id");

-- CreateIndex
CREATE INDEX "reader_document_partial_md5_idx" ON "reader_document"("partial_md5");

-- CreateIndex
CREATE INDEX "reader_document_name_md5_idx" ON "reader_document"("name_md5");

-- AddForeignKey
ALTER TABLE "volume_slot" ADD CONSTRAINT "volume_slot_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chapter_slot" ADD CONSTRAINT "chapter_slot_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "map_source" ADD CONSTRAINT "map_source_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "map_entry" ADD CONSTRAINT "map_entry_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "map_source"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library_file" ADD CONSTRAINT "library_file_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chapter_release" ADD CONSTRAINT "chapter_release_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chapter_release" ADD CONSTRAINT "chapter_release_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "library_file"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chapter_release" ADD CONSTRAINT "chapter_release_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "provider"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chapter_release" ADD CONSTRAINT "chapter_release_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "source_mapping" ADD CONSTRAINT "source_mapping_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "source_mapping" ADD CONSTRAINT "source_mapping_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "provider"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "offer" ADD CONSTRAINT "offer_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "offer" ADD CONSTRAINT "offer_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "download" ADD CONSTRAINT "download_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "download" ADD CONSTRAINT "download_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "verification" ADD CONSTRAINT "verification_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "numbering_override" ADD CONSTRAINT "numbering_override_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wanted_entry" ADD CONSTRAINT "wanted_entry_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wanted_state" ADD CONSTRAINT "wanted_state_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "torrent_job" ADD CONSTRAINT "torrent_job_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "translation_job" ADD CONSTRAINT "translation_job_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "catalogue_link" ADD CONSTRAINT "catalogue_link_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

