-- Leases of running instances: locks, the turn of scheduled passes, claims on background work.
-- CreateTable
CREATE TABLE "lease" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "lease_owner_idx" ON "lease"("owner");

-- CreateIndex
CREATE INDEX "lease_expires_at_idx" ON "lease"("expires_at");
