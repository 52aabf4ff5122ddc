package org.edgebridge;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.edgebridge.admin.AdminServer;
import org.edgebridge.admin.StatusReport;
import org.edgebridge.broker.Broker;
import org.edgebridge.broker.InboundCommands;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.broker.moquette.MoquetteBroker;
import org.edgebridge.commission.CentralCheck;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.config.ConfigKeys;
import org.edgebridge.config.ConfigWarnings;
import org.edgebridge.config.IngestKeys;
import org.edgebridge.config.TokenFiles;
import org.edgebridge.forward.Forwarder;
import org.edgebridge.intake.Intake;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.StopWatchdog;
import org.edgebridge.outbox.Outbox;
import org.edgebridge.outbox.RetentionPurger;
import org.edgebridge.outbox.WalCheckpointer;
import org.edgebridge.receipt.ReceiptFigures;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.storage.Fsync;
import org.edgebridge.storage.StorageHonesty;
import org.edgebridge.worker.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root. The flow of one command, one class per step (docs/design.md):
 * device PUBLISH → {@link Broker} → {@link Intake} → {@link Outbox} → {@link Forwarder} → central → receipts
 * ({@link ReceiptSender}) → device. {@link #start} takes the data dir's lock, opens the outbox, builds every part
 * with {@code new} and starts the parts in {@link #parts} order: the outbox's checkpointer ({@link WalCheckpointer}),
 * admin (so that status answers while the rest starts), broker, intake, forwarder, retention. {@link #close()} stops
 * taking commands, then closes the parts in the reverse order, so that nothing is lost: the request under way finishes,
 * what is queued is written and its receipts still reach the devices, then the broker and the admin side stop; the
 * outbox and the lock go last.
 */
public final class Bridge implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Bridge.class);
    /** A part whose close takes this long is named in the log. */
    private static final long SLOW_PART_MILLIS = 1_000;
    /** How long past its budget a stop may run before every thread's stack is logged ({@link StopWatchdog}). */
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private final BridgeConfig config;
    private final Outbox outbox;
    private final Broker broker;
    private final Intake intake;
    private final Forwarder forwarder;
    private final AdminServer admin;
    private final RetentionPurger retention;
    private final WalCheckpointer checkpointer;
    private final DataDirLock lock;
    private final Workers workers;
    /** The metrics of every part, scraped by admin's {@code /metrics}; closed last. */
    private final PrometheusMeterRegistry meters;
    /** In start order; closed in reverse. */
    private final List<Component> parts;

    private final List<Component> started = new ArrayList<>();
    private boolean closed;

    private Bridge(
            BridgeConfig config,
            Clock clock,
            DataDirLock lock,
            Outbox outbox,
            StorageHonesty storage,
            Runnable onWorkerDeath) {
        this.config = config;
        this.lock = lock;
        this.outbox = outbox;
        this.workers = new Workers(onWorkerDeath);
        this.broker = new Broker(
                config.broker(),
                clock,
                new Commands(),
                MoquetteBroker::new,
                cause -> workers.lost("broker", cause),
                outbox::markReceiptAcked);
        this.meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        storage.register(meters);
        ReceiptSender receipts = new ReceiptSender(broker, new ReceiptFigures(meters, clock));
        this.forwarder = new Forwarder(config.forwarder(), outbox, receipts, this::storedUpTo, clock, workers, meters);
        this.intake = new Intake(outbox, receipts, config.intake(), forwarder::wake, workers);
        this.retention = new RetentionPurger(outbox, config.retention(), clock);
        this.checkpointer = new WalCheckpointer(outbox);
        this.admin = new AdminServer(
                config.admin(),
                new AdminServer.Parts(
                        site(config),
                        outbox,
                        broker,
                        intake,
                        forwarder,
                        retention,
                        receipts,
                        workers,
                        meters,
                        clock,
                        new StatusReport.Central(
                                config.forwarder().central().url().toString(),
                                config.forwarder()
                                        .central()
                                        .compression()
                                        .name()
                                        .toLowerCase(Locale.ROOT),
                                config.forwarder()
                                        .central()
                                        .proxy()
                                        .map(Object::toString)
                                        .orElse("direct"),
                                config.forwarder()
                                        .credentials()
                                        .clientCertificate()
                                        .map(c -> "file " + c.certFile())
                                        .orElse("none"),
                                config.forwarder()
                                        .credentials()
                                        .oauth2()
                                        .map(o -> "oauth2 " + o.tokenUrl() + " as " + o.clientId())
                                        .orElse("none")),
                        () -> new CentralCheck(config.forwarder(), clock).run(),
                        config.forecast(),
                        config.budget(),
                        storage));
        this.parts = List.of(checkpointer, admin, broker, intake, forwarder, retention);
    }

    private static StatusReport.Site site(BridgeConfig config) {
        return new StatusReport.Site(
                config.edgeId(),
                config.behindBalancer(),
                TokenFiles.source(config.effective(), IngestKeys.INGEST_TOKEN.name()),
                TokenFiles.source(config.effective(), ConfigKeys.ADMIN_TOKEN.name()));
    }

    /**
     * Builds and starts a bridge that only reports a dead worker (not ready, alarm {@code worker_died}): for a bridge
     * inside another program, e.g. a test.
     */
    public static Bridge start(BridgeConfig config, Clock clock) {
        return start(config, clock, () -> {});
    }

    /**
     * Takes the data dir's lock, opens the outbox, builds and starts a bridge; on failure, closes what had been
     * opened or started (in reverse) and rethrows.
     *
     * @param onWorkerDeath what to do, once, when a worker thread dies ({@code run}: exit non-zero)
     */
    public static Bridge start(BridgeConfig config, Clock clock, Runnable onWorkerDeath) {
        ConfigWarnings.of(config).forEach(w -> LOG.warn("configuration: {}", w));
        PrivateDataDir.create(config.dataDir());
        DataDirLock lock = DataDirLock.acquire(config.dataDir());
        Outbox outbox = null;
        Bridge bridge;
        try {
            PrivateDataDir.restrict(config.dataDir());
            StorageHonesty storage = StorageHonesty.measure(
                    config.dataDir(),
                    Objects.requireNonNull(ConfigKeys.STORAGE_EXPECTED_INTAKE_RATE.value(
                            config.effective().get(ConfigKeys.STORAGE_EXPECTED_INTAKE_RATE.name()))),
                    config.intake().queue().maxBatch());
            outbox = openOutbox(config, clock);
            bridge = new Bridge(config, clock, lock, outbox, storage, onWorkerDeath);
        } catch (RuntimeException e) {
            if (outbox != null) {
                outbox.close();
            }
            lock.close();
            throw onFullDisk(config, e);
        }
        try {
            bridge.startParts();
            // what the start created (the lock file, the broker store, the outbox's -wal) under the process's umask
            PrivateDataDir.restrict(config.dataDir());
            syncNames(config);
        } catch (RuntimeException e) {
            bridge.close();
            throw onFullDisk(config, e);
        }
        LOG.info(
                "edge bridge {} running: MQTT {}, admin http://{}:{}/, central {}",
                config.edgeId(),
                bridge.broker.listeners(),
                config.admin().host(),
                bridge.admin.port(),
                config.forwarder().central().url());
        // one line in a fixed shape for scripts and tests that start the bridge with a port "any" (BridgeProcess reads
        // it)
        LOG.info(
                "bound ports: mqtt={} tls={} admin={}",
                portText(bridge.broker.mqttPort()),
                portText(bridge.broker.tlsPort()),
                bridge.admin.port());
        return bridge;
    }

    /**
     * Makes the names the start created (the data dir, the lock file, the outbox, the broker store's directory and
     * file) survive a power cut: a new name is durable only once its directory is synced. A failure is logged; the
     * stores sync their own data.
     */
    private static void syncNames(BridgeConfig config) {
        try {
            Fsync.directories(config.dataDir());
        } catch (IOException | UncheckedIOException e) {
            LOG.warn(
                    "data.dir={}: could not sync its directories ({}); a power cut soon after this start may lose a "
                            + "file created by it",
                    config.dataDir().toAbsolutePath(),
                    e.toString());
        }
    }

    /** Below this much free space a failed start is put down to the full disk: SQLite alone cannot open the outbox. */
    static final long FULL_DISK_BYTES = 1L << 20;

    /**
     * A start that failed on a disk that is full (SQLite's error then speaks of shared memory or I/O, not of room) says
     * so, with what to do; any other failure as it is.
     */
    private static RuntimeException onFullDisk(BridgeConfig config, RuntimeException failure) {
        long free;
        try {
            free = Files.getFileStore(config.dataDir()).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return failure;
        }
        if (free >= FULL_DISK_BYTES) {
            return failure;
        }
        return new IllegalStateException(
                "the disk of data.dir " + config.dataDir() + " is full (" + free + " bytes "
                        + "free): the bridge cannot open its outbox; free space on that disk and start it again (the "
                        + "outbox and the devices' sessions are kept). The failure: " + failure.getMessage(),
                failure);
    }

    private static String portText(int port) {
        return port == 0 ? "off" : String.valueOf(port);
    }

    private static Outbox openOutbox(BridgeConfig config, Clock clock) {
        PrivateDataDir.createOwnerOnly(config.outboxFile());
        Outbox outbox = Outbox.open(config.outboxFile(), clock);
        try {
            int released = outbox.releaseAbandonedClaims();
            if (released > 0) {
                LOG.info("{} commands claimed by requests that never completed are pending again", released);
            }
            return outbox;
        } catch (RuntimeException e) {
            outbox.close();
            throw e;
        }
    }

    private synchronized void startParts() {
        for (Component part : parts) {
            started.add(part);
            part.start();
        }
    }

    /** The broker's commands, to the intake (built after the broker: the intake sends its receipts through it). */
    private final class Commands implements InboundCommands {
        @Override
        public void accept(InboundPublish publish) {
            intake.accept(publish);
        }

        @Override
        public void accept(InboundPublish publish, Answer answer) {
            intake.accept(publish, answer);
        }

        @Override
        public int waiting() {
            return intake.waiting();
        }
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

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(1_000_000, deadlineNanos - System.nanoTime()));
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
        try (StopWatchdog watchdog =
                StopWatchdog.watch("the edge bridge", config.shutdownTimeout().plus(STOP_GRACE))) {
            intake.stopAccepting();
            for (int i = started.size() - 1; i >= 0; i--) {
                Component part = started.get(i);
                long partStart = System.nanoTime();
                try {
                    part.close(remaining(deadline));
                } catch (RuntimeException e) {
                    LOG.warn("{} did not close cleanly: {}", part.getClass().getSimpleName(), e.toString());
                }
                long tookMillis = (System.nanoTime() - partStart) / 1_000_000;
                if (tookMillis >= SLOW_PART_MILLIS) {
                    LOG.info("closing {} took {} ms", part.getClass().getSimpleName(), tookMillis);
                }
            }
            outbox.close();
            lock.close();
            meters.close();
        }
        LOG.info("edge bridge stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    }
}
