-- Releases the operator blocked: the Wanted pass never chooses them again.
-- CreateTable
CREATE TABLE "blocked_release" (
    "id" SERIAL NOT NULL,
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
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blocked_release_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "blocked_release_series_id_idx" ON "blocked_release"("series_id");

-- CreateIndex
CREATE UNIQUE INDEX "blocked_release_source_mapping_id_external_id_key" ON "blocked_release"("source_mapping_id", "external_id");

-- AddForeignKey
ALTER TABLE "blocked_release" ADD CONSTRAINT "blocked_release_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "blocked_release" ADD CONSTRAINT "blocked_release_source_mapping_id_fkey" FOREIGN KEY ("source_mapping_id") REFERENCES "source_mapping"("id") ON DELETE CASCADE ON UPDATE CASCADE;
