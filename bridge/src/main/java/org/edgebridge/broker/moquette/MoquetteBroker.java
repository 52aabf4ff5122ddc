package org.edgebridge.broker.moquette;

import io.moquette.broker.ClientDescriptor;
import io.moquette.broker.MoquetteInternals;
import io.moquette.broker.Server;
import io.moquette.interception.InterceptHandler;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.edgebridge.broker.BrokerEngine;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.BrokerStatus;
import org.edgebridge.broker.BrokerStoreResets;
import org.edgebridge.broker.CertificateDevices;
import org.edgebridge.broker.DeviceLogin;
import org.edgebridge.broker.DeviceRegistry;
import org.edgebridge.broker.InboundCommands;
import org.edgebridge.broker.ProtocolViolations;
import org.edgebridge.broker.ReceiptAcks;
import org.edgebridge.broker.ReceiptQueues;
import org.edgebridge.broker.RefusalLog;
import org.edgebridge.broker.TlsSettings;
import org.edgebridge.broker.Topics;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded Moquette 0.17, run the bridge's way: its lifecycle, the bridge's own listeners in front of its protocol
 * handler, the ACL, and receipts out. The only way into this package is {@code org.edgebridge.broker.Broker}, which
 * builds it through {@link BrokerEngine.Factory} ({@code MoquetteBroker::new}, passed in by the composition root).
 *
 * <p>Moquette 0.17 bug answered here: an exception in a session loop's command kills that thread for good, and
 * every client hashed to it gets no CONNACK, PUBACK or SUBACK any more. {@code onSessionLoopError} restarts the
 * whole broker from "broker-enforcer" (devices reconnect and resend; the outbox answers). A loop death cannot be
 * provoked through the bridge's never-throwing ACL (seen once in CI, docs/moquette.md); a store whose commit failed,
 * which kills the next loop that touches it, restarts the broker too. A full disk keeps the broker down, trying again
 * every {@link #DISK_FULL_RETRY}, with its store kept: {@code FullDiskIT}.
 *
 * <p>Threads: Moquette owns its session-loop threads and the one interceptor thread, {@link MqttListeners} the
 * Netty threads; this class owns "broker-enforcer", which closes connections that broke the ACL and restarts the
 * broker when a session loop has died.
 */
public final class MoquetteBroker implements BrokerEngine {
    private static final Logger LOG = LoggerFactory.getLogger(MoquetteBroker.class);

    private final BrokerSettings settings;
    private final Clock clock;
    private final Topics topics;
    private final InboundCommands commands;
    private final DeviceRegistry devices;
    private final DeviceLogin login;
    private final RefusalLog refusals;
    private final BrokerStoreResets storeResets;
    private final CertificateDevices certificates;
    private final ScheduledExecutorService enforcer;
    private final AclRefusals acl;
    private final Consumer<Throwable> lost;
    private final ReceiptAcks acks;
    private final AtomicLong restarts = new AtomicLong();
    private final ProtocolViolations violations = new ProtocolViolations();
    private final AtomicLong wills = new AtomicLong();
    private final BrokerLimits limits = new BrokerLimits();
    private final ConnectionLimits connections;
    private final ReceiptsOut receipts;
    private volatile InboundBackPressure backPressure = new InboundBackPressure(() -> 0, Integer.MAX_VALUE);
    private volatile @Nullable Server server;
    private volatile @Nullable MqttListeners listeners;
    /** The ports the listeners bound (0: off), kept so that a restart binds the same ones. */
    private volatile int mqttPort;

    private volatile int tlsPort;
    private volatile boolean stopping;
    /** Set once every configured listener accepts connections; cleared while the broker (re)starts or stops. */
    private volatile boolean listening;
    /** Why the broker is down and waits to start again (a full disk), or null. */
    private volatile @Nullable String waitingFor;
    /** When the store last had every commit synced to the disk (sessions acknowledged before it survive a power cut). */
    private volatile @Nullable Instant sessionsSyncedAt;
    /** Which start the running server came from: a failure reported by an earlier one is old news. Guarded by this. */
    private int generation;
    /** The next try of a broker that waits for room, if one is scheduled. Guarded by this. */
    private @Nullable ScheduledFuture<?> retry;

    /** Built by {@code org.edgebridge.broker.Broker} from its parts ({@link BrokerEngine.Factory}). */
    public MoquetteBroker(BrokerEngine.Parts parts) {
        this.settings = parts.settings();
        this.clock = parts.clock();
        this.topics = new Topics(settings.publishes().topicPrefix());
        this.commands = parts.commands();
        this.devices = parts.devices();
        this.login = parts.login();
        this.refusals = parts.refusals();
        this.storeResets = parts.storeResets();
        this.certificates = parts.certificates();
        this.lost = parts.lost();
        this.acks = parts.acks();
        this.enforcer = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "broker-enforcer"));
        this.acl = new AclRefusals(
                topics,
                devices,
                refusals,
                clientId -> enforcer.execute(() -> {
                    Server s = server;
                    if (s != null) {
                        s.disconnectClient(clientId);
                    }
                }));
        this.receipts = new ReceiptsOut(
                topics,
                refusals,
                new ReceiptQueues(
                        settings.limits().receipts().perDevice(),
                        settings.limits().receipts().bytesPerDevice().bytes(),
                        settings.limits().receipts().total(),
                        settings.limits().receipts().bytesTotal().bytes()));
        this.connections = new ConnectionLimits(
                settings.limits().connections().max(),
                settings.limits().connections().maxPerAddress(),
                settings.limits().beforeLogin().max(),
                settings.limits().beforeLogin().maxPerNetwork(),
                limits,
                refusals);
    }

    /**
     * Starts the broker at the bridge's start. A disk without room for its store leaves it down and waiting, as for a
     * running broker ({@link #startAgain}), with the rest of the bridge up: the outbox still goes to central and the
     * admin page says why devices cannot connect.
     */
    public synchronized void start() {
        try {
            startServer();
        } catch (BrokerStoreDiskFull e) {
            waitForRoom(e);
        }
    }

    /** Starts Moquette ({@link MoquetteStart}), then the listeners, and checks that each accepts connections. */
    private synchronized void startServer() {
        int life = ++generation;
        Optional<SslContext> ssl = settings.listener().tls().map(t -> new PemSslContextCreator(t).build());
        List<InterceptHandler> handlers =
                List.of(new CommandInterceptor(topics, clock, commands, devices, error -> onLoopDeath(life, error)));
        DeviceAuthorizer authorizer = new DeviceAuthorizer(topics, acl::publish, acl::subscribe);
        ConnectPolicy policy = new ConnectPolicy(settings, topics, devices, refusals, certificates, limits);
        DeviceAuthenticator authenticator = new DeviceAuthenticator(login, policy);
        listening = false;
        MoquetteStart.Started started =
                MoquetteStart.start(settings, clock, handlers, authenticator, authorizer, storeResets);
        Server s = started.server();
        server = s;
        MoquetteInternals.syncStoreCommits(
                s,
                MoquetteProperties.AUTOSAVE_SECONDS * 1_000L,
                () -> sessionsSyncedAt = clock.instant(),
                e -> onStoreFailure(life, e));
        int retained = MoquetteInternals.clearRetained(s);
        if (retained > 0) {
            limits.retainedClearedAtStart(retained);
            LOG.info(
                    "broker store: removed {} retained messages (left by an older bridge; the bridge keeps none)",
                    retained);
        }
        try {
            MqttListeners l = new MqttListeners(
                    settings.listener().transport(), settings.listener().ioThreads());
            listeners = l;
            ChannelHandler protocol = MoquetteInternals.protocolHandler(s, started.config(), authenticator);
            Supplier<ChannelHandler> sessionCheck = () -> new SessionSubscriptionCheck(
                    (clientId, topic) -> MoquetteInternals.routesTo(s, clientId, topic), topics);
            IntSupplier inBroker = MoquetteInternals.inboundBacklog(s);
            InboundBackPressure pressure = new InboundBackPressure(
                    () -> inBroker.getAsInt() + commands.waiting(),
                    settings.publishes().maxWaiting());
            backPressure = pressure;
            Supplier<ChannelHandler> gate = () -> new ConnectGate(
                    policy,
                    login,
                    violations,
                    will -> lastWill(s, will),
                    () -> stopping || server != s,
                    pressure,
                    limits,
                    settings.limits().maxTopic().intBytes(),
                    settings.limits().connections().maxHeldPackets(),
                    connections::loggedIn);
            BrokerSettings.Limits bounds = settings.limits();
            Supplier<ChannelHandler> beforeConnect = () -> new BeforeConnect(
                    bounds.connections().maxConnectBytes().intBytes(),
                    bounds.connections().connectTimeout(),
                    violations,
                    limits);
            Supplier<ChannelHandler> receiptAcks = () -> new FinalReceiptAcks(topics, acks, clock);
            Supplier<ChannelHandler> pubackAfterCommit = settings.publishes().pubackAfterCommit()
                    ? () -> new PubackAfterCommit(
                            topics,
                            clock,
                            commands,
                            limits,
                            settings.publishes().maxAwaitingCommit())
                    : null;
            MqttListeners.Pipeline pipeline = new MqttListeners.Pipeline(
                    protocol,
                    connections,
                    beforeConnect,
                    gate,
                    sessionCheck,
                    receiptAcks,
                    pubackAfterCommit,
                    settings.publishes().maxPacket().intBytes(),
                    (int) Math.max(1, bounds.connections().connectTimeout().toSeconds()));
            if (settings.listener().port() != 0) {
                mqttPort = l.bind(
                        settings.listener().host(),
                        mqttPort != 0 ? mqttPort : settings.listener().port(),
                        null,
                        pipeline,
                        "mqtt.port");
            }
            settings.listener()
                    .tls()
                    .ifPresent(t -> tlsPort = l.bind(
                            settings.listener().host(),
                            tlsPort != 0 ? tlsPort : t.port(),
                            ssl.orElseThrow(),
                            pipeline,
                            "tls.port"));
            List<String> dead = new ArrayList<>();
            if (mqttPort != 0 && !MqttListeners.accepts(settings.listener().host(), mqttPort)) {
                dead.add("mqtt.port=" + mqttPort);
            }
            if (tlsPort != 0 && !MqttListeners.accepts(settings.listener().host(), tlsPort)) {
                dead.add("tls.port=" + tlsPort);
            }
            if (!dead.isEmpty()) {
                throw new IllegalStateException("the MQTT broker started but is not listening on "
                        + String.join(", ", dead)
                        + " (host " + settings.listener().host() + ")");
            }
        } catch (RuntimeException e) {
            stopServer();
            throw e;
        }
        listening = true;
        LOG.info("MQTT broker listening on {}", listeners());
    }

    /**
     * The port the plain MQTT listener bound (also with {@code mqtt.port=any}); before it is bound (a broker that waits
     * for room on its disk), the configured port; 0 when it is off, or any and not bound yet.
     */
    public int mqttPort() {
        int configured = settings.listener().port();
        return mqttPort != 0 ? mqttPort : configured == BrokerSettings.ANY_PORT ? 0 : configured;
    }

    /** The port the TLS listener bound (also with {@code tls.port=any}); 0 when it is off or before the first start. */
    public int tlsPort() {
        return tlsPort;
    }

    /** The listeners with the ports they bound, e.g. {@code mqtt://0.0.0.0:1883, mqtts://0.0.0.0:8883}. */
    public String listeners() {
        List<String> out = new ArrayList<>();
        if (settings.listener().port() != 0) {
            out.add("mqtt://" + settings.listener().host() + ":"
                    + (mqttPort != 0 ? mqttPort : settings.listener().port()));
        }
        settings.listener()
                .tls()
                .ifPresent(
                        t -> out.add("mqtts://" + settings.listener().host() + ":" + (tlsPort != 0 ? tlsPort : t.port())
                                + (t.clientAuth() == TlsSettings.ClientAuth.NONE
                                        ? ""
                                        : " (client certificates "
                                                + t.clientAuth().name().toLowerCase() + ")")));
        return String.join(", ", out);
    }

    public boolean isRunning() {
        return server != null && listening && !stopping;
    }

    @Override
    public boolean publishReceipt(String clientId, byte[] json) {
        Server s = server;
        return s != null && receipts.publish(s, clientId, json);
    }

    public Collection<String> connectedClientIds() {
        Server s = server;
        if (s == null) {
            return List.of();
        }
        try {
            return s.listConnectedClients().stream()
                    .map(ClientDescriptor::getClientID)
                    .toList();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    public BrokerStatus status() {
        InboundBackPressure p = backPressure;
        Server s = server;
        return new BrokerStatus(
                isRunning(),
                listeners(),
                connectedClientIds().size(),
                acl.publishes(),
                acl.subscribes(),
                violations.total(),
                restarts.get(),
                storeResets.count(),
                login.refusedCredentials(),
                login.refusedThrottled(),
                login.refusedBusy(),
                wills.get(),
                p.waiting(),
                p.mostWaiting(),
                p.pauses(),
                limits.status(
                        connections.open(),
                        connections.openBeforeLogin(),
                        devices,
                        refusals,
                        s == null ? receipts.queues() : receipts.queuesNow(s)),
                login.refusedBusyAddress(),
                Optional.ofNullable(waitingFor),
                Optional.ofNullable(sessionsSyncedAt));
    }

    /**
     * A device's connection broke and it had left a Last Will on one of its own command topics: the will is a
     * command of that device, stored like any other (after the PUBLISHes the device sent before it broke).
     */
    private void lastWill(Server s, ConnectPolicy.LastWill will) {
        wills.incrementAndGet();
        if (!MoquetteInternals.notifyPublishedInOrder(s, will.clientId(), null, will.topic(), will.payload())) {
            LOG.warn(
                    "the Last Will of {} was not taken (broker queues full); it is lost",
                    RefusalLog.quote(will.clientId()));
        }
    }

    private void onLoopDeath(int life, Throwable error) {
        LOG.error("a broker session loop died (Moquette 0.17 never recovers one); restarting the broker", error);
        submit(() -> restart(life, Optional.empty()));
    }

    private void onStoreFailure(int life, Throwable error) {
        LOG.error(
                "the broker store could not commit (Moquette 0.17 cannot go on with a failed store); restarting "
                        + "the broker",
                error);
        Path storeDir = settings.sessions().storeDir();
        Optional<BrokerStoreDiskFull> full = BrokerStoreDiskFull.of(storeDir, error, true)
                .or(() -> BrokerStoreDiskFull.hasRoom(storeDir)
                        ? Optional.empty()
                        : Optional.of(BrokerStoreDiskFull.noRoomNow(storeDir, error)));
        submit(() -> restart(life, full));
    }

    /** Runs {@code task} on "broker-enforcer"; what it throws stops the bridge for its supervisor ({@code lost}). */
    private void submit(Runnable task) {
        if (stopping) {
            return;
        }
        try {
            enforcer.execute(() -> guarded(task));
        } catch (RejectedExecutionException e) {
            // the bridge is stopping: nothing to restart
        }
    }

    private void guarded(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) { // an Error too: nothing else would see it in this executor's future
            waitingFor = null;
            lost.accept(t);
        }
    }

    /**
     * Stops and starts the broker after a failure of start {@code life}; nothing if a later start runs now, or the
     * broker is down already (it waits for room). With {@code full}, the broker stays down and waits for room: a
     * start would only eat the disk's last bytes with the repair's copy and fail again.
     */
    private synchronized void restart(int life, Optional<BrokerStoreDiskFull> full) {
        if (stopping || life != generation || server == null) {
            return;
        }
        restarts.incrementAndGet();
        try {
            stopServer();
        } catch (RuntimeException e) {
            LOG.error("stopping the broker after a session-loop death failed; starting it again anyway", e);
        }
        if (full.isPresent()) {
            waitForRoom(full.get());
            return;
        }
        startAgain();
    }

    /** How often a broker down for a full disk tries to start again. */
    static final Duration DISK_FULL_RETRY = Duration.ofSeconds(5);

    /**
     * Starts the stopped broker. A full disk (its store cannot write) leaves it down and tries again every
     * {@link #DISK_FULL_RETRY}, once the disk has the store's size and a margin free: exiting would bring a
     * supervisor's restart to the same full disk, and the store, which is intact, must not be set aside. Any other
     * failure stops the bridge for its supervisor to start it again.
     */
    private synchronized void startAgain() {
        retry = null;
        if (stopping || server != null) {
            return;
        }
        if (waitingFor != null
                && !BrokerStoreDiskFull.hasRoom(settings.sessions().storeDir())) {
            scheduleRetry();
            return;
        }
        try {
            startServer();
        } catch (BrokerStoreDiskFull e) {
            waitForRoom(e);
            return;
        } catch (RuntimeException e) {
            LOG.error(
                    "the broker could not be started again: the bridge stops so that its supervisor starts it again",
                    e);
            waitingFor = null;
            lost.accept(e);
            return;
        }
        if (waitingFor != null) {
            LOG.warn("the broker store's disk has room again: broker started with the sessions it held; devices "
                    + "reconnect");
            waitingFor = null;
        } else {
            LOG.warn("broker restarted after a session-loop death; devices reconnect");
        }
    }

    private synchronized void waitForRoom(BrokerStoreDiskFull full) {
        if (waitingFor == null) {
            LOG.error("{}; trying again every {} s", full.getMessage(), DISK_FULL_RETRY.toSeconds(), full);
        }
        waitingFor = full.getMessage();
        scheduleRetry();
    }

    private synchronized void scheduleRetry() {
        if (retry == null && !stopping) {
            try {
                retry = enforcer.schedule(
                        () -> guarded(this::startAgain), DISK_FULL_RETRY.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // the bridge is stopping
            }
        }
    }

    /** How long Moquette's own stop may take (a clean one takes a fraction of a second): {@link BoundedStop}. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(15);

    /** Stops the enforcer, then closes the listeners (and every device connection), then Moquette. */
    @Override
    public synchronized void close() {
        stopping = true;
        waitingFor = null;
        enforcer.shutdownNow();
        try {
            enforcer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopServer();
    }

    /** Closes the listeners (and every device connection), then Moquette. */
    private void stopServer() {
        listening = false;
        // server first: connections closed below see that the bridge closed them (no Last Will is sent for them)
        Server s = server;
        server = null;
        MqttListeners l = listeners;
        listeners = null;
        if (l != null) {
            l.close();
        }
        if (s != null) {
            try {
                MoquetteInternals.stopIdleAcceptor(s, 500);
            } catch (RuntimeException e) {
                LOG.warn("Moquette's idle acceptor did not stop at once: {}", e.toString());
            }
            try {
                if (!MoquetteInternals.stopStoreCommitter(s, 5_000)) {
                    LOG.warn("the broker store's commit did not end within 5 s; the broker stops regardless");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.warn("Moquette's store committer did not stop on its own: {}", e.toString());
            }
            BoundedStop.run(s::stopServer, STOP_LIMIT, "broker-stop");
        }
    }
}
