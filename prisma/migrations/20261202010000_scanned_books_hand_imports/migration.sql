-- A book the library scan found was placed in the library by hand: it is a hand import (suspect
-- until verified). Chapter files keep their origin.
UPDATE "library_file" SET "origin" = 'import' WHERE "kind" = 'book' AND "origin" = 'scan';
