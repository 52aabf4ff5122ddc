-- Issue 42 item 4: lean rows on the common path (outbox.leanHistory, docs/design.md "History is bounded per
-- command"). With the switch on, a command's first claim writes no `attempt` line of command_history and a final
-- receipt settled from central's answer writes no `receipt` line: what those lines said is kept on the row, set by the
-- claim's and the settle's UPDATE of it, which run anyway. The admin's reads (OutboxReads.history) merge it back into
-- the lines they show, so the history and the timeline read the same with the switch on or off. Both NULL on rows
-- from before this version and on rows written with the switch off: their lines are in command_history, as before,
-- and nothing there is rewritten.
--
-- first_claimed_at: epoch ms of the first claim (the first `attempt` line's time). That line's request is the row's
-- batch_id while attempts = 1; after a second attempt the folded `attempt` line says the last request, as it did.
ALTER TABLE commands ADD COLUMN first_claimed_at INTEGER;
-- final_request_id: the request whose answer made the row final (the `receipt` line's batch_id; not always the
-- claim's batch_id: a probe sends claimed events under a request id of its own). Its time is final_at, its status,
-- code and detail the row's state, code and message.
ALTER TABLE commands ADD COLUMN final_request_id TEXT;
