-- The time of each scheduled pass's last cycle, kept across restarts.
-- CreateTable
CREATE TABLE "scheduled_run" (
    "name" TEXT NOT NULL,
    "last_run" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "scheduled_run_pkey" PRIMARY KEY ("name")
);
