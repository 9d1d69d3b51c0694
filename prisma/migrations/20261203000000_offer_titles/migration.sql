-- The release name a source lists with each offer (names an unnumbered release to a person).
ALTER TABLE "offer" ADD COLUMN "title" TEXT;
