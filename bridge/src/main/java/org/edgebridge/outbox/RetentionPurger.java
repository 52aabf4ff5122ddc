package org.edgebridge.outbox;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.Once;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes final commands older than the retention (docs/protocol.md §2.5), in small transactions with a pause between
 * them, so that intake never waits long for the writer; then gives the file's free pages back to the file system
 * ({@code auto_vacuum=INCREMENTAL}). The retention is also the dedup window: a
 * command resent after its row was purged is stored and forwarded again (central still deduplicates it).
 *
 * <p>Thread: "outbox-retention", owned by this class.
 */
public final class RetentionPurger implements Component, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionPurger.class);
    private static final Duration PAUSE_BETWEEN_BATCHES = Duration.ofMillis(20);
    private static final Duration FIRST_RUN_AFTER = Duration.ofSeconds(2);
    /** Free pages given back to the file system per transaction (8 MiB of 4 KiB pages): short, as a purge batch. */
    static final int VACUUM_PAGES = 2048;

    private final Outbox outbox;
    private final RetentionSettings settings;
    private final Clock clock;
    private final Thread thread;
    private final Object signal = new Object();
    private final AtomicLong purged = new AtomicLong();
    private final AtomicLong pagesGivenBack = new AtomicLong();
    private final AtomicLong devicesForgotten = new AtomicLong();
    private volatile boolean running = true;
    private volatile boolean purging;
    private volatile @Nullable Instant lastRunAt;

    public RetentionPurger(Outbox outbox, RetentionSettings settings, Clock clock) {
        this.outbox = outbox;
        this.settings = settings;
        this.clock = clock;
        this.thread = new Thread(this::loop, "outbox-retention");
        this.thread.setDaemon(true);
    }

    private final Once once = new Once();

    @Override
    public void start() {
        if (once.start()) {
            thread.start();
        }
    }

    private void loop() {
        if (!pause(FIRST_RUN_AFTER)) {
            return;
        }
        while (running) {
            try {
                runOnce();
                forgetDevices();
                giveBackFreePages();
            } catch (RuntimeException e) {
                LOG.warn("retention purge failed; trying again in {}", settings.interval(), e);
            }
            if (!pause(settings.interval())) {
                return;
            }
        }
    }

    /** Purges everything due now, batch by batch. @return rows deleted */
    long runOnce() {
        purging = true;
        long total = 0;
        try {
            Instant cutoff = clock.instant().minus(settings.retention());
            int n;
            do {
                n = outbox.purgeFinalBefore(cutoff, settings.batch());
                total += n;
                purged.addAndGet(n);
            } while (n == settings.batch() && running && pause(PAUSE_BETWEEN_BATCHES));
        } finally {
            purging = false;
            lastRunAt = clock.instant();
        }
        if (total > 0) {
            LOG.info("retention: purged {} final commands older than {}", total, settings.retention());
        }
        return total;
    }

    /**
     * Deletes the rows of devices not heard of for {@code outbox.deviceRetention} that the outbox holds no command of,
     * batch by batch. @return rows deleted
     */
    long forgetDevices() {
        Instant cutoff = clock.instant().minus(settings.deviceRetention());
        long total = 0;
        int n;
        do {
            n = outbox.forgetDevicesBefore(cutoff, settings.batch());
            total += n;
            devicesForgotten.addAndGet(n);
        } while (n == settings.batch() && running && pause(PAUSE_BETWEEN_BATCHES));
        if (total > 0) {
            LOG.info(
                    "retention: forgot {} devices not heard of for {} with no command left",
                    total,
                    settings.deviceRetention());
        }
        return total;
    }

    /**
     * Gives the outbox file's free pages (purged rows, payloads dropped once their final receipt was published) back to
     * the file system, {@link #VACUUM_PAGES} per short transaction with a pause between them. @return pages given back
     */
    long giveBackFreePages() {
        long total = 0;
        long n;
        do {
            n = outbox.giveBackFreePages(VACUUM_PAGES);
            total += n;
            pagesGivenBack.addAndGet(n);
        } while (n >= VACUUM_PAGES && running && pause(PAUSE_BETWEEN_BATCHES));
        return total;
    }

    /**
     * Deletes up to {@code batch} final rows (and their history) that became final before {@code cutoff}, inside the
     * write transaction under way ({@link Outbox#purgeFinalBefore}). Open rows are never purged.
     */
    static int purge(NamedStatements sql, Instant cutoff, int batch) throws SQLException {
        List<Long> ids = sql.get(UpkeepSql.PURGE_CANDIDATES)
                .set("cutoff", cutoff.toEpochMilli())
                .set("limit", batch)
                .list(rs -> rs.getLong("id"));
        if (ids.isEmpty()) {
            return 0;
        }
        sql.get(UpkeepSql.PURGE_HISTORY).set("ids", OutboxSql.idList(ids)).update();
        return sql.get(UpkeepSql.PURGE_COMMANDS)
                .set("ids", OutboxSql.idList(ids))
                .update();
    }

    /** @return false if stopped while waiting */
    private boolean pause(Duration d) {
        synchronized (signal) {
            if (!running) {
                return false;
            }
            try {
                signal.wait(Math.max(1, d.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return running;
        }
    }

    /**
     * Rows purged since start, whether a purge is running now, when the last one ended, and the outbox file's free
     * pages given back to the file system and the devices forgotten since start.
     */
    public record Status(
            long purged, boolean purging, @Nullable Instant lastRunAt, long pagesGivenBack, long devicesForgotten) {}

    public Status status() {
        return new Status(purged.get(), purging, lastRunAt, pagesGivenBack.get(), devicesForgotten.get());
    }

    /** {@link #close(Duration)} with 10 s, for try-with-resources. */
    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /** Ends the purge under way after its transaction, waiting at most {@code timeout}. */
    @Override
    public void close(Duration timeout) {
        running = false;
        synchronized (signal) {
            signal.notifyAll();
        }
        if (!once.close() || !once.started()) {
            return;
        }
        try {
            thread.join(Math.max(1, timeout.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
