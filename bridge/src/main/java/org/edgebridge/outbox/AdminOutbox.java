package org.edgebridge.outbox;

import java.util.List;
import java.util.Optional;

/**
 * What the admin side (REST API, status page, metrics) sees of the {@link Outbox}: reads, the desks for parked and
 * pending commands, marks.
 */
public interface AdminOutbox {
    /** {@link Outbox#reads}. */
    OutboxReads reads();

    /** {@link Outbox#parked}. */
    ParkedDesk parked();

    /** {@link Outbox#pendingDesk}. */
    PendingDesk pendingDesk();

    /** {@link Outbox#find(String, String)}. */
    Optional<CommandRecord> find(String clientId, String commandId);

    /** {@link Outbox#openCount()}. */
    long openCount();

    /** {@link Outbox#markPublished}. */
    void markPublished(List<Long> ids);

    /** {@link Outbox#isWritable}. */
    boolean isWritable();

    /** {@link Outbox#freeBytes}. */
    long freeBytes();

    /** {@link Outbox#writerFigures}. */
    WriterFigures writerFigures();
}
