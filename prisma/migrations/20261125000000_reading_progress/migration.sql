-- CreateTable
CREATE TABLE "read_progress" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "user_name" TEXT NOT NULL,
    "file_id" INTEGER NOT NULL,
    "page" INTEGER NOT NULL,
    "completed" BOOLEAN NOT NULL DEFAULT false,
    "device" TEXT NOT NULL DEFAULT 'web',
    "koreader_progress" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "reader_document" (
    "file_id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sha256" TEXT NOT NULL,
    "partial_md5" TEXT NOT NULL,
    "name_md5" TEXT NOT NULL
);

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

