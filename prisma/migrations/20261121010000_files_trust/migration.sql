-- CreateTable
CREATE TABLE "offer" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "uploaded_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "offer_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "offer_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "source_rejection" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "provider_id" INTEGER NOT NULL,
    "source_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "download" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "download_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "download_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "recycle_entry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "file_id" INTEGER,
    "series_id" INTEGER,
    "original_path" TEXT NOT NULL,
    "bin_path" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'recycled',
    "recycled_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "restored_at" DATETIME
);

-- CreateTable
CREATE TABLE "publication_journal" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "op" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "offer_series_id_idx" ON "offer"("series_id");

-- CreateIndex
CREATE UNIQUE INDEX "offer_source_mapping_id_external_id_key" ON "offer"("source_mapping_id", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "source_rejection_series_id_provider_id_source_id_key" ON "source_rejection"("series_id", "provider_id", "source_id");

-- CreateIndex
CREATE INDEX "download_series_id_state_idx" ON "download"("series_id", "state");

-- CreateIndex
CREATE INDEX "recycle_entry_state_recycled_at_idx" ON "recycle_entry"("state", "recycled_at");

-- CreateIndex
CREATE INDEX "publication_journal_step_idx" ON "publication_journal"("step");

-- CreateIndex
CREATE INDEX "chapter_release_file_id_idx" ON "chapter_release"("file_id");

