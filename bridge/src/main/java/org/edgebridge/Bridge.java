package org.edgebridge;

import java.time.Clock;
import org.edgebridge.admin.AdminServer;
import org.edgebridge.broker.Broker;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.forward.Forwarder;
import org.edgebridge.intake.Intake;
import org.edgebridge.outbox.Outbox;
import org.edgebridge.outbox.RetentionPurger;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.worker.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: takes the data dir's lock, then builds every part with {@code new} and starts them in
 * the order data flows — outbox, intake, broker, forwarder, admin. {@link #close()} stops them so that nothing is lost: intake
 * stops taking commands, the request under way finishes, what is queued is written, then the broker and
 * the admin side stop.
 */
public final class Bridge implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Bridge.class);

    private final BridgeConfig config;
    private final Outbox outbox;
    private final Broker broker;
    private final Intake intake;
    private final Forwarder forwarder;
    private final AdminServer admin;
    private final RetentionPurger retention;
    private final DataDirLock lock;
    private final Workers workers;
    private boolean closed;

    private Bridge(BridgeConfig config, Clock clock, DataDirLock lock, Runnable onWorkerDeath) {
        this.config = config;
        this.lock = lock;
        restrictToOwner(config.outboxFile());
        this.outbox = Outbox.open(config.outboxFile(), clock);
        int released = outbox.releaseAbandonedClaims();
        if (released > 0) {
            LOG.info("{} commands claimed by requests that never completed are pending again", released);
        }
        this.broker = new Broker(config.broker(), clock, this::acceptCommand);
        ReceiptSender receipts = new ReceiptSender(broker);
        this.workers = new Workers(onWorkerDeath);
        this.forwarder = new Forwarder(config.forwarder(), outbox, receipts, this::storedUpTo, clock, workers);
        this.intake = new Intake(outbox, receipts, config.intake(), forwarder::wake, workers);
        this.retention = new RetentionPurger(outbox, config.retention(), clock);
        this.admin = new AdminServer(config.admin(), new AdminServer.Parts(config.edgeId(), outbox, broker, intake, forwarder,
                retention, receipts, workers, clock, config.forwarder().url()));
    }

    /**
     * Builds and starts a bridge that only reports a dead worker (not ready, alarm {@code worker_died}): for a bridge
     * inside another program, e.g. a test.
     */
    public static Bridge start(BridgeConfig config, Clock clock) {
        return start(config, clock, () -> { });
    }

    /**
     * Takes the data dir's lock, builds and starts a bridge; on failure, stops what had started and rethrows.
     *
     * @param onWorkerDeath what to do, once, when a worker thread dies ({@code run}: exit non-zero)
     */
    public static Bridge start(BridgeConfig config, Clock clock, Runnable onWorkerDeath) {
        DataDirLock lock = DataDirLock.acquire(config.dataDir());
        Bridge bridge;
        try {
            bridge = new Bridge(config, clock, lock, onWorkerDeath);
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        try {
            bridge.intake.start();
            bridge.broker.start();
            bridge.forwarder.start();
            bridge.retention.start();
            bridge.admin.start();
        } catch (RuntimeException e) {
            bridge.close();
            throw e;
        }
        LOG.info("edge bridge {} running: MQTT {}, admin http://{}:{}/, central {}", config.edgeId(),
                bridge.broker.listeners(), config.admin().host(), bridge.admin.port(), config.forwarder().url());
        // one line in a fixed shape for scripts and tests that start the bridge with a port "any" (BridgeProcess reads it)
        LOG.info("bound ports: mqtt={} tls={} admin={}", portText(bridge.broker.mqttPort()), portText(bridge.broker.tlsPort()),
                bridge.admin.port());
        return bridge;
    }

    private static String portText(int port) {
        return port == 0 ? "off" : String.valueOf(port);
    }

    private void acceptCommand(InboundPublish publish) {
        intake.accept(publish);
    }

    private long storedUpTo() {
        return intake.storedUpTo();
    }

    public BridgeConfig config() {
        return config;
    }

    public int adminPort() {
        return admin.port();
    }

    public Outbox outbox() {
        return outbox;
    }

    public Forwarder forwarder() {
        return forwarder;
    }

    public RetentionPurger retention() {
        return retention;
    }

    public Intake intake() {
        return intake;
    }

    public Broker broker() {
        return broker;
    }

    private static java.time.Duration remaining(long deadlineNanos) {
        return java.time.Duration.ofNanos(Math.max(1_000_000, deadlineNanos - System.nanoTime()));
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long start = System.nanoTime();
        long deadline = start + config.shutdownTimeout().toNanos();
        LOG.info("edge bridge stopping (at most {})", config.shutdownTimeout());
        intake.stopAccepting();
        retention.close();
        forwarder.close(remaining(deadline));
        intake.close(remaining(deadline));
        broker.close();
        admin.close();
        outbox.close();
        lock.close();
        LOG.info("edge bridge stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * The outbox holds every payload: mode 600, made before SQLite opens it (SQLite gives its -wal and -shm
     * files the database file's mode), and tightened when an older version left it readable by others.
     */
    static void restrictToOwner(java.nio.file.Path db) {
        if (!java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        var ownerOnly = java.nio.file.attribute.PosixFilePermissions.fromString("rw-------");
        try {
            java.nio.file.Files.createDirectories(db.toAbsolutePath().getParent());
            if (!java.nio.file.Files.exists(db)) {
                java.nio.file.Files.createFile(db, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(ownerOnly));
            }
            for (String suffix : new String[] {"", "-wal", "-shm"}) {
                java.nio.file.Path f = db.resolveSibling(db.getFileName() + suffix);
                if (java.nio.file.Files.exists(f)) {
                    java.nio.file.Files.setPosixFilePermissions(f, ownerOnly);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("data.dir: cannot make " + db + " readable by its owner only: " + e.getMessage(), e);
        }
    }
}
