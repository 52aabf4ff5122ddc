-- The outbox: one row per (client_id, command_id). CONTRACT §3.
-- Migrations are append-only: never edit a file once it has landed; add V2__… instead.

-- One row per device ever seen; last_sequence makes the per-device sequence gapless
-- even after retention has purged old command rows.
CREATE TABLE devices (
    client_id      TEXT    PRIMARY KEY,
    last_sequence  INTEGER NOT NULL,
    first_seen_at  INTEGER NOT NULL,  -- epoch ms
    last_seen_at   INTEGER NOT NULL   -- epoch ms, last stored or resent command
) WITHOUT ROWID;

CREATE TABLE commands (
    id              INTEGER PRIMARY KEY,          -- rowid: also the order in which commands were stored
    client_id       TEXT    NOT NULL,
    command_id      TEXT    NOT NULL,
    sequence        INTEGER NOT NULL,
    topic           TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    payload         BLOB    NOT NULL,             -- the device's bytes, unchanged
    payload_sha256  TEXT    NOT NULL,
    received_at     INTEGER NOT NULL,             -- epoch ms
    state           TEXT    NOT NULL CHECK (state IN
                        ('pending', 'inflight', 'parked', 'accepted', 'duplicate', 'rejected')),
    attempts        INTEGER NOT NULL DEFAULT 0,   -- requests to central that carried it
    retry_laters    INTEGER NOT NULL DEFAULT 0,   -- central retry_later receipts; maxAttempts parks
    not_before      INTEGER NOT NULL DEFAULT 0,   -- epoch ms; not sent before
    claimed_at      INTEGER,
    batch_id        TEXT,
    last_error      TEXT,
    code            TEXT,                         -- final receipt
    message         TEXT,
    result          TEXT,                         -- JSON
    final_at        INTEGER,
    receipt_published INTEGER NOT NULL DEFAULT 0, -- final receipt handed to the broker
    UNIQUE (client_id, command_id),
    UNIQUE (client_id, sequence)
);

-- Open rows per device in sequence order: what the forwarder claims from.
CREATE INDEX commands_open ON commands (client_id, sequence)
    WHERE state IN ('pending', 'inflight', 'parked');
-- Final receipts committed but not yet handed to the broker (republished at start-up).
CREATE INDEX commands_unpublished ON commands (id)
    WHERE receipt_published = 0 AND state IN ('accepted', 'duplicate', 'rejected');
-- Retention: final rows by age.
CREATE INDEX commands_final_at ON commands (final_at)
    WHERE final_at IS NOT NULL;

-- What happened to each command: attempts, receipts, releases. Kept as long as the command.
CREATE TABLE command_history (
    id          INTEGER PRIMARY KEY,
    command     INTEGER NOT NULL REFERENCES commands (id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,    -- epoch ms
    kind        TEXT    NOT NULL,    -- attempt, receipt, retry_later, released, parked
    batch_id    TEXT,
    status      TEXT,
    code        TEXT,
    detail      TEXT
);
CREATE INDEX command_history_command ON command_history (command);
