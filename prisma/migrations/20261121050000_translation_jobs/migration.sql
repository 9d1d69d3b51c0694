-- CreateTable
CREATE TABLE "translation_job" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "job_key" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "series_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "source_language" TEXT NOT NULL,
    "target_language" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "source_mapping_id" INTEGER,
    "external_id" TEXT,
    "source_path" TEXT,
    "source_sha256" TEXT,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "paused_from" TEXT,
    "paused_reason" TEXT,
    "cancel_pending" BOOLEAN NOT NULL DEFAULT false,
    "pages_done" INTEGER,
    "pages_total" INTEGER,
    "error_code" TEXT,
    "error_message" TEXT,
    "transient_failures" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME,
    "file_id" INTEGER,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "translation_job_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "translation_job_series_id_idx" ON "translation_job"("series_id");

-- CreateIndex
CREATE INDEX "translation_job_state_next_attempt_at_idx" ON "translation_job"("state", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "translation_job_job_key_attempt_key" ON "translation_job"("job_key", "attempt");

