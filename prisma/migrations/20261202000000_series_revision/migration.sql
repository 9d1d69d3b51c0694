-- CreateTable
CREATE TABLE "series_revision" (
    "series_id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "revision" INTEGER NOT NULL DEFAULT 0
);
