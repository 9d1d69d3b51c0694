-- Releases the operator blocked: the Wanted pass never chooses them again.
-- CreateTable
CREATE TABLE "blocked_release" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "source_mapping_id" INTEGER NOT NULL,
    "external_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "volume" TEXT,
    "chapter" TEXT,
    "part" INTEGER,
    "language" TEXT NOT NULL,
    "scanlator" TEXT,
    "download_id" INTEGER,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "blocked_release_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "blocked_release_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "blocked_release_series_id_idx" ON "blocked_release"("series_id");

-- CreateIndex
CREATE UNIQUE INDEX "blocked_release_source_mapping_id_external_id_key" ON "blocked_release"("source_mapping_id", "external_id");
