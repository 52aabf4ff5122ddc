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
import java.util.concurrent.atomic.AtomicLong;
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
 * whole broker ({@link BrokerRestarts}; devices reconnect and resend; the outbox answers). A loop death cannot be
 * provoked through the bridge's never-throwing ACL (seen once in CI, docs/moquette.md); a store whose commit failed,
 * which kills the next loop that touches it, restarts the broker too. A full disk keeps the broker down, trying again
 * every {@link BrokerRestarts#DISK_FULL_RETRY}, with its store kept: {@code FullDiskIT}.
 *
 * <p>Threads: Moquette owns its session-loop threads and the one interceptor thread, {@link MqttListeners} the
 * Netty threads; {@link BrokerRestarts} owns "broker-enforcer", which closes connections that broke the ACL and
 * restarts the broker when a session loop has died.
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
    private final BrokerRestarts restarts;
    private final AclRefusals acl;
    private final ReceiptAcks acks;
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
    /** Set once every configured listener accepts connections; cleared while the broker (re)starts or stops. */
    private volatile boolean listening;
    /** When the store last had every commit synced to the disk (sessions acknowledged before it survive a power cut). */
    private volatile @Nullable Instant sessionsSyncedAt;

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
        this.acks = parts.acks();
        this.restarts = new BrokerRestarts(
                new BrokerRestarts.Server() {
                    @Override
                    public void start(int life) {
                        startServer(life);
                    }

                    @Override
                    public void stop() {
                        stopServer();
                    }

                    @Override
                    public boolean isUp() {
                        return server != null;
                    }
                },
                settings.sessions().storeDir(),
                parts.lost());
        this.acl = new AclRefusals(
                topics,
                devices,
                refusals,
                clientId -> restarts.execute(() -> {
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
     * Starts the broker at the bridge's start. A disk without room for its store leaves it down and waiting
     * ({@link BrokerRestarts}), with the rest of the bridge up: the outbox still goes to central and the admin page
     * says why devices cannot connect.
     */
    public void start() {
        restarts.start();
    }

    /**
     * Starts Moquette ({@link MoquetteStart}), then the listeners, and checks that each accepts connections. Only
     * {@link BrokerRestarts} calls it, under its lock; {@code life} comes back with this start's failures.
     */
    private void startServer(int life) {
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
            MqttListeners l = new MqttListeners(settings.listener().ioThreads());
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
                    () -> restarts.stopping() || server != s,
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
                            settings.publishes().maxAwaitingCommit(),
                            settings.publishes().maxBytesAwaitingCommit().intBytes())
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
        return server != null && listening && !restarts.stopping();
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
                restarts.count(),
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
                restarts.waitingFor(),
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
        restarts.failed(life, Optional.empty());
    }

    private void onStoreFailure(int life, Throwable error) {
        LOG.error(
                "the broker store could not commit (Moquette 0.17 cannot go on with a failed store); restarting "
                        + "the broker",
                error);
        Path storeDir = settings.sessions().storeDir();
        restarts.failed(
                life,
                BrokerStoreDiskFull.of(storeDir, error, true)
                        .or(() -> BrokerStoreDiskFull.hasRoom(storeDir)
                                ? Optional.empty()
                                : Optional.of(BrokerStoreDiskFull.noRoomNow(storeDir, error))));
    }

    /** How long Moquette's own stop may take (a clean one takes a fraction of a second): {@link BoundedStop}. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(15);

    /** Stops the restarts, then closes the listeners (and every device connection), then Moquette. */
    @Override
    public void close() {
        restarts.close();
    }

    /** Closes the listeners (and every device connection), then Moquette. Only {@link BrokerRestarts} calls it. */
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
