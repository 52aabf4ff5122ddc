-- Issue 23: history bounded per command. A line that repeats one the command already has (same kind, status and
-- code: attempt, released, retry_later, failed_alone ...) is folded into it: times + 1, at = the last time, first_at
-- the first, batch_id and detail of the last. Before, every claim and release wrote a line: 500 pending commands
-- made 30,820 lines in 60 s of outage, about a million a day at the defaults.
ALTER TABLE command_history ADD COLUMN times INTEGER NOT NULL DEFAULT 1;
ALTER TABLE command_history ADD COLUMN first_at INTEGER;  -- epoch ms; NULL: the line happened once, at `at`
