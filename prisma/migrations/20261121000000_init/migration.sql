-- CreateTable
CREATE TABLE "series" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "volume_slot" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "monitored" BOOLEAN NOT NULL DEFAULT true,
    "title" TEXT,
    CONSTRAINT "volume_slot_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "chapter_slot" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "monitored" BOOLEAN NOT NULL DEFAULT true,
    "parts" INTEGER NOT NULL DEFAULT 1,
    "extra" BOOLEAN NOT NULL DEFAULT false,
    "title" TEXT,
    CONSTRAINT "chapter_slot_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "map_source" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "data" TEXT NOT NULL DEFAULT '{}',
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "map_source_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "map_entry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "source_id" INTEGER NOT NULL,
    "volume" TEXT NOT NULL,
    "chapters" TEXT NOT NULL DEFAULT '[]',
    CONSTRAINT "map_entry_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "map_source" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "library_file" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "recycled_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "library_file_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "chapter_release" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "chapter_release_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "chapter_release_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "library_file" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "chapter_release_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "provider" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "chapter_release_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "provider" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "base_url" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "source_mapping" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "provider_id" INTEGER NOT NULL,
    "source_id" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL DEFAULT 'active',
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "source_mapping_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "source_mapping_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "provider" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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
CREATE UNIQUE INDEX "provider_name_key" ON "provider"("name");

-- CreateIndex
CREATE UNIQUE INDEX "source_mapping_series_id_provider_id_source_id_key" ON "source_mapping"("series_id", "provider_id", "source_id");

