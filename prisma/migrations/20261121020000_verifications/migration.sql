-- CreateTable
CREATE TABLE "verification" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "series_id" INTEGER NOT NULL,
    "volume" TEXT NOT NULL,
    "file_id" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "chapters" TEXT NOT NULL,
    "source_url" TEXT,
    "note" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "verification_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "verification_series_id_volume_key" ON "verification"("series_id", "volume");

