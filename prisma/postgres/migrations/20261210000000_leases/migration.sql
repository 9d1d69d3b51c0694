-- Leases of running instances: locks, the turn of scheduled passes, claims on background work.
-- CreateTable
CREATE TABLE "lease" (
    "key" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "lease_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "lease_owner_idx" ON "lease"("owner");

-- CreateIndex
CREATE INDEX "lease_expires_at_idx" ON "lease"("expires_at");
