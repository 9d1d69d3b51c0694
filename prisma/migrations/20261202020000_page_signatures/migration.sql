-- CreateTable
CREATE TABLE "page_signature_set" (
    "sha256" TEXT NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "pages" TEXT NOT NULL DEFAULT '[]',
    "page_count" INTEGER NOT NULL DEFAULT 0,
    "last_mean" REAL,
    "last_stdev" REAL,
    "error" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
