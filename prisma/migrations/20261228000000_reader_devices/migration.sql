-- The reading app's own device name and id, and KOReader's percentage, given back as they were sent.
-- AlterTable
ALTER TABLE "read_progress" ADD COLUMN "device_name" TEXT;
ALTER TABLE "read_progress" ADD COLUMN "device_id" TEXT;
ALTER TABLE "read_progress" ADD COLUMN "percentage" REAL;
