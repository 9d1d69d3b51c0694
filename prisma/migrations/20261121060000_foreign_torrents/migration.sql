-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_torrent_job" (
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
    "purpose" TEXT NOT NULL DEFAULT 'native',
    "source_language" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "torrent_job_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_torrent_job" ("books", "content_path", "created_at", "error", "id", "imported", "indexer", "info_hash", "retention", "series_id", "state", "title", "updated_at") SELECT "books", "content_path", "created_at", "error", "id", "imported", "indexer", "info_hash", "retention", "series_id", "state", "title", "updated_at" FROM "torrent_job";
DROP TABLE "torrent_job";
ALTER TABLE "new_torrent_job" RENAME TO "torrent_job";
CREATE INDEX "torrent_job_state_idx" ON "torrent_job"("state");
CREATE UNIQUE INDEX "torrent_job_series_id_info_hash_key" ON "torrent_job"("series_id", "info_hash");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

