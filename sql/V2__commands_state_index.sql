-- The index for the admin listing by state and the counts per state.
-- It first landed as an edit of V1 (a migration must never be edited once it has landed): databases made by that
-- edited V1 already have it, databases made by the first V1 do not. V1 is back to its first form, this migration
-- creates the index where it is missing, and V1ChecksumRepair (Java) lets Flyway validate both kinds of database.
CREATE INDEX IF NOT EXISTS commands_state ON commands (state, id);
