-- CreateTable
CREATE TABLE "setting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "numbering_override" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "source_mapping_id" INTEGER NOT NULL,
    "external_id" TEXT NOT NULL,
    "observed_number" TEXT NOT NULL,
    "correction" TEXT NOT NULL,
    "evidence" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "numbering_override_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "wanted_entry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '{}',
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "wanted_entry_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "wanted_state" (
    "series_id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last_pass_at" DATETIME,
    "empty_passes" INTEGER NOT NULL DEFAULT 0,
    "next_pass_at" DATETIME,
    CONSTRAINT "wanted_state_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "torrent_job" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "torrent_job_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_download" (
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
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME,
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "pages_done" INTEGER NOT NULL DEFAULT 0,
    "pages_total" INTEGER,
    "replaces_file_id" INTEGER,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "download_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "download_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_download" ("chapter", "created_at", "error", "external_id", "file_id", "id", "kind", "language", "needs_replacement", "part", "scanlator", "series_id", "source_mapping_id", "state", "updated_at", "verdict", "volume") SELECT "chapter", "created_at", "error", "external_id", "file_id", "id", "kind", "language", "needs_replacement", "part", "scanlator", "series_id", "source_mapping_id", "state", "updated_at", "verdict", "volume" FROM "download";
DROP TABLE "download";
ALTER TABLE "new_download" RENAME TO "download";
CREATE INDEX "download_series_id_state_idx" ON "download"("series_id", "state");
CREATE INDEX "download_state_next_attempt_at_idx" ON "download"("state", "next_attempt_at");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

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

