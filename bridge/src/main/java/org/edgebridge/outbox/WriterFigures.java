package org.edgebridge.outbox;

/**
 * What the outbox's one writer ({@link OutboxWriter}) has done since start: how busy it is, and how many write
 * requests met per transaction (requests ÷ transactions). A writer busy most of the time is what bounds intake and
 * settles; see docs/BENCHMARKS.md.
 *
 * @param transactions transactions committed or rolled back
 * @param requests write requests run in them
 * @param busySeconds time spent inside those transactions, begin to commit
 * @param receiptAcksUnrecorded devices' PUBACKs of final receipts not recorded in their command's timeline: more
 *     than {@link OutboxWriter#MAX_WAITING_ACKS} waited for a transaction (a writer that cannot commit)
 */
public record WriterFigures(long transactions, long requests, double busySeconds, long receiptAcksUnrecorded) {}
