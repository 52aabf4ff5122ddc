-- Issue 26 part 1: commands that must not run late. expires_at is when the command stops being worth applying (epoch
-- ms; NULL: never), from the payload's expiresAt or the intake.expiryByType rule of its type, whichever is earlier.
-- A command that central never saw and is still pending at that time becomes final here: rejected / expired.
-- unsent_attempts counts the claims of a row that provably never reached central (connection refused, circuit breaker
-- open, no token, held back from its request): attempts = unsent_attempts means central never saw it; a row from
-- before this version that was claimed counts as seen. expiry_reported = 0 marks such a row until central was told (the next request's "expired" list,
-- docs/protocol.md §2.2), so that central can tell the gap in the device's sequence from a lost command; the device's
-- later commands wait for that report.
ALTER TABLE commands ADD COLUMN expires_at INTEGER;
ALTER TABLE commands ADD COLUMN expiry_reported INTEGER NOT NULL DEFAULT 1;
ALTER TABLE commands ADD COLUMN unsent_attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX commands_expiring ON commands (expires_at) WHERE expires_at IS NOT NULL AND state = 'pending';
CREATE INDEX commands_expiry_unreported ON commands (client_id, sequence) WHERE expiry_reported = 0;
