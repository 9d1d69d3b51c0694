-- CreateTable
CREATE TABLE "catalogue_link" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "refreshed_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "catalogue_link_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "catalogue_link_catalogue_catalogue_id_idx" ON "catalogue_link"("catalogue", "catalogue_id");

-- CreateIndex
CREATE UNIQUE INDEX "catalogue_link_series_id_catalogue_key" ON "catalogue_link"("series_id", "catalogue");

