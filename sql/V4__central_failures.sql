-- Issue 23: how many times central failed on this event alone (a 5xx, a dropped connection or a timeout of a request
-- that held it and no other event, with proof that central answers other events), or answered a request without a
-- receipt for it. forwarder.maxServerErrors of them park the event with a code of its own. Kept in the row, so that
-- a restart does not begin the count again (it was in memory before). An admin's requeue sets it back to 0.
ALTER TABLE commands ADD COLUMN central_failures INTEGER NOT NULL DEFAULT 0;
