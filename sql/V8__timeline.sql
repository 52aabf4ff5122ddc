-- Issue 43 part 4: a timeline per command (GET /api/outbox/{deviceId}/{commandId}, docs/desk.md "A command's
-- timeline"), from the command's row and the history lines it keeps. What the timeline needs and the outbox did not
-- keep goes on the row (set by statements that run anyway: the intake's insert, the final settle, the published mark)
-- or on the history lines that are written already (the rare, folded outcomes of an attempt), never as a new line per
-- command. All NULL on rows and lines from before this version: the timeline leaves those entries out.
ALTER TABLE commands ADD COLUMN stored_at INTEGER;             -- epoch ms: the insert, in the writer's transaction that commits it
ALTER TABLE commands ADD COLUMN http_status INTEGER;           -- central's HTTP status for the request that made it final
ALTER TABLE commands ADD COLUMN took_ms INTEGER;               -- how long that request took, sent to reply read
ALTER TABLE commands ADD COLUMN receipt_published_at INTEGER;  -- epoch ms: the final receipt handed to the broker (its mark)
ALTER TABLE commands ADD COLUMN receipt_acked_at INTEGER;      -- epoch ms: the device's PUBACK of its final receipt
-- The request's HTTP status (0: none, e.g. a timeout or no connection) and duration on the lines that end an attempt
-- without a final (retry_later, failed_alone, released, parked): of the last time when the line is folded.
ALTER TABLE command_history ADD COLUMN http_status INTEGER;
ALTER TABLE command_history ADD COLUMN took_ms INTEGER;
