-- Issue 40 point 4: one device cannot fill the box. Each device's open commands (pending, inflight, parked) and their
-- payload bytes, kept in its devices row by the triggers below whatever writes the commands (the intake, the
-- forwarder's settle, the expiry, the admin's desk, the purge): the intake reads them with one lookup by key and
-- answers retry_later / device_outbox_full past outbox.maxPendingPerDevice or outbox.maxPendingBytesPerDevice.
-- The partial index devices_with_open lets the forwarder's claim visit only the devices that have open commands, not
-- every device ever seen (point 9).
--
-- auto_vacuum=INCREMENTAL is not set here: it takes effect only on an empty file or with a VACUUM, and VACUUM cannot
-- run inside Flyway's transaction. OutboxDatabase switches the mode (one VACUUM, once) before Flyway runs.
ALTER TABLE devices ADD COLUMN open_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN open_bytes INTEGER NOT NULL DEFAULT 0;

UPDATE devices SET
    open_count = (SELECT COUNT(*) FROM commands c
                  WHERE c.client_id = devices.client_id AND c.state IN ('pending', 'inflight', 'parked')),
    open_bytes = (SELECT COALESCE(SUM(length(c.payload)), 0) FROM commands c
                  WHERE c.client_id = devices.client_id AND c.state IN ('pending', 'inflight', 'parked'));

CREATE INDEX devices_with_open ON devices (client_id) WHERE open_count > 0;

-- Point 9: final receipts committed but not handed to the broker, per device, so that they are published again device
-- by device (a few each), not oldest first: a device that never reads held every other device's behind its own.
CREATE INDEX commands_unpublished_device ON commands (client_id, id)
    WHERE receipt_published = 0 AND state IN ('accepted', 'duplicate', 'rejected');

CREATE TRIGGER commands_open_inserted AFTER INSERT ON commands
WHEN NEW.state IN ('pending', 'inflight', 'parked')
BEGIN
    UPDATE devices SET open_count = open_count + 1, open_bytes = open_bytes + length(NEW.payload)
    WHERE client_id = NEW.client_id;
END;

CREATE TRIGGER commands_open_closed AFTER UPDATE OF state ON commands
WHEN OLD.state IN ('pending', 'inflight', 'parked') AND NEW.state NOT IN ('pending', 'inflight', 'parked')
BEGIN
    UPDATE devices SET open_count = open_count - 1, open_bytes = open_bytes - length(OLD.payload)
    WHERE client_id = OLD.client_id;
END;

CREATE TRIGGER commands_open_reopened AFTER UPDATE OF state ON commands
WHEN OLD.state NOT IN ('pending', 'inflight', 'parked') AND NEW.state IN ('pending', 'inflight', 'parked')
BEGIN
    UPDATE devices SET open_count = open_count + 1, open_bytes = open_bytes + length(NEW.payload)
    WHERE client_id = NEW.client_id;
END;

CREATE TRIGGER commands_open_deleted AFTER DELETE ON commands
WHEN OLD.state IN ('pending', 'inflight', 'parked')
BEGIN
    UPDATE devices SET open_count = open_count - 1, open_bytes = open_bytes - length(OLD.payload)
    WHERE client_id = OLD.client_id;
END;
