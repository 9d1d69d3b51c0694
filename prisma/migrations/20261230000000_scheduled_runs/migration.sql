-- The time of each scheduled pass's last cycle, kept across restarts.
-- CreateTable
CREATE TABLE "scheduled_run" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "last_run" DATETIME NOT NULL
);
