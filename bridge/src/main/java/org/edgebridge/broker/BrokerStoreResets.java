package org.edgebridge.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.storage.Fsync;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Broker stores that were set aside because the broker could not start on them, so that it starts with an
 * empty one. Each reset is a directory {@code store-reset-<UTC time>} inside the store directory (same file
 * system: a rename, no copy) holding the store's files and {@code REASON.txt}; it is kept for support. A
 * reset is an alarm until an admin acknowledges it ({@code ACKNOWLEDGED} written into its directory), so the
 * alarm outlives restarts. Thread-safe.
 */
public final class BrokerStoreResets {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerStoreResets.class);
    static final String PREFIX = "store-reset-";
    static final String REASON = "REASON.txt";
    static final String ACKNOWLEDGED = "ACKNOWLEDGED";
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    /** One store set aside: where, when, and why. */
    public record Reset(Path directory, Instant at, String reason) {}

    private final Path storeDir;
    private final Clock clock;
    private final AtomicLong inThisProcess = new AtomicLong();

    BrokerStoreResets(Path storeDir, Clock clock) {
        this.storeDir = storeDir;
        this.clock = clock;
    }

    /** Moves every file of the store directory into a new reset directory, with the reason. */
    public synchronized Reset setAside(Throwable cause) {
        Instant at = clock.instant();
        Path aside = storeDir.resolve(PREFIX + STAMP.format(at));
        String reason = "the MQTT broker could not start on this store: " + describe(cause) + System.lineSeparator()
                + "The bridge moved the store's files here and started the broker with an empty store: devices "
                + "got sessionPresent=0 and subscribed again; commands are in the outbox." + System.lineSeparator();
        try {
            Files.createDirectories(aside);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(storeDir, Files::isRegularFile)) {
                for (Path f : files) {
                    Files.move(f, aside.resolve(f.getFileName()));
                }
            }
            Files.writeString(aside.resolve(REASON), reason, StandardCharsets.UTF_8);
            // the moves and the reason survive a power cut: else the next start finds the refused store again
            Fsync.written(aside.resolve(REASON));
            Fsync.directory(storeDir);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the broker store in " + storeDir + " was refused (" + cause + ") and could "
                            + "not be moved aside: " + e.getMessage() + "; move or delete its files to start",
                    e);
        }
        inThisProcess.incrementAndGet();
        LOG.error(
                "broker store refused ({}); its files are kept in {} and the broker starts with an empty store: "
                        + "devices get sessionPresent=0 and subscribe again, no command is lost (the outbox holds "
                        + "them). Acknowledge with POST /api/alarms/broker_store_reset/ack",
                describe(cause),
                aside);
        return new Reset(aside, at, reason.strip());
    }

    /** The failure's message, and the first cause's if that says something else. */
    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = failure.getMessage() == null ? failure.toString() : failure.getMessage();
        return root == failure || text.contains(String.valueOf(root.getMessage()))
                ? text
                : text + " (cause: " + root + ")";
    }

    /** Resets done by this process (the metric). */
    public long count() {
        return inThisProcess.get();
    }

    /** Resets, of any process, that no admin has acknowledged yet; oldest first. */
    public List<Reset> unacknowledged() {
        List<Reset> out = new ArrayList<>();
        if (!Files.isDirectory(storeDir)) {
            return out;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(storeDir, PREFIX + "*")) {
            for (Path d : dirs) {
                if (Files.isDirectory(d) && !Files.exists(d.resolve(ACKNOWLEDGED))) {
                    out.add(read(d));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort((a, b) -> a.directory().getFileName().compareTo(b.directory().getFileName()));
        return out;
    }

    /** Acknowledges every reset not acknowledged yet. @return how many */
    public synchronized int acknowledgeAll(String by) {
        List<Reset> open = unacknowledged();
        for (Reset r : open) {
            try {
                Files.writeString(
                        r.directory().resolve(ACKNOWLEDGED),
                        "acknowledged at " + clock.instant() + " by " + by + System.lineSeparator(),
                        StandardCharsets.UTF_8);
                Fsync.written(r.directory().resolve(ACKNOWLEDGED));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (!open.isEmpty()) {
            LOG.info("{} broker store reset(s) acknowledged by {}", open.size(), by);
        }
        return open.size();
    }

    private static Reset read(Path dir) throws IOException {
        String name = dir.getFileName().toString().substring(PREFIX.length());
        Instant at;
        try {
            at = STAMP.parse(name, Instant::from);
        } catch (RuntimeException e) {
            at = Files.getLastModifiedTime(dir).toInstant();
        }
        Path reason = dir.resolve(REASON);
        String text = Files.exists(reason)
                ? Files.readString(reason, StandardCharsets.UTF_8)
                        .lines()
                        .findFirst()
                        .orElse("")
                : "";
        return new Reset(dir, at, text);
    }
}
