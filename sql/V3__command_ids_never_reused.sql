-- Row ids are never reused. commands.id was a plain INTEGER PRIMARY KEY, which SQLite fills with max(id) + 1: once
-- retention had purged every row of an idle site, new commands got low ids again, ids the intake had already
-- reported as "stored receipt published" (its high-water mark, kept in memory), so the forwarder could send a
-- command and publish its final receipt before its stored receipt. AUTOINCREMENT never hands out an id twice.
-- SQLite cannot add AUTOINCREMENT to a table, so both tables are rebuilt: command_history first (it references
-- commands, and dropping commands would cascade into it), keeping every row and id.

CREATE TABLE commands_v3 (
    id              INTEGER PRIMARY KEY AUTOINCREMENT, -- also the order in which commands were stored; never reused
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
INSERT INTO commands_v3 (id, client_id, command_id, sequence, topic, type, payload, payload_sha256, received_at, state,
        attempts, retry_laters, not_before, claimed_at, batch_id, last_error, code, message, result, final_at,
        receipt_published)
    SELECT id, client_id, command_id, sequence, topic, type, payload, payload_sha256, received_at, state,
        attempts, retry_laters, not_before, claimed_at, batch_id, last_error, code, message, result, final_at,
        receipt_published
    FROM commands ORDER BY id;

CREATE TABLE command_history_v3 (
    id          INTEGER PRIMARY KEY,
    command     INTEGER NOT NULL REFERENCES commands_v3 (id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,    -- epoch ms
    kind        TEXT    NOT NULL,    -- attempt, receipt, retry_later, released, parked
    batch_id    TEXT,
    status      TEXT,
    code        TEXT,
    detail      TEXT
);
INSERT INTO command_history_v3 (id, command, at, kind, batch_id, status, code, detail)
    SELECT id, command, at, kind, batch_id, status, code, detail FROM command_history ORDER BY id;

DROP TABLE command_history;
DROP TABLE commands;
ALTER TABLE commands_v3 RENAME TO commands;
ALTER TABLE command_history_v3 RENAME TO command_history;

CREATE INDEX commands_open ON commands (client_id, sequence)
    WHERE state IN ('pending', 'inflight', 'parked');
CREATE INDEX commands_unpublished ON commands (id)
    WHERE receipt_published = 0 AND state IN ('accepted', 'duplicate', 'rejected');
CREATE INDEX commands_state ON commands (state, id);
CREATE INDEX commands_final_at ON commands (final_at)
    WHERE final_at IS NOT NULL;
CREATE INDEX command_history_command ON command_history (command);
