-- Issue 42 item 4: a cheaper mark of a published receipt. commands_unpublished (V1, made again by V3) is read by no
-- statement: the republishing reads commands_unpublished_device (V7, INDEXED BY in ForwarderSql.UNPUBLISHED_DEVICES
-- and UNPUBLISHED). Yet every final settle put each row into it and every published mark (OutboxSql.MARK_PUBLISHED)
-- took it out again: one b-tree insert and one delete per command for nothing (EXPLAIN of MARK_PUBLISHED: two
-- IdxDelete, one per partial index on receipt_published; one without it). Not a switch: nothing reads it.
DROP INDEX IF EXISTS commands_unpublished;
