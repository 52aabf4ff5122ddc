package org.edgebridge.broker;

import io.moquette.broker.ClientDescriptor;
import io.moquette.broker.FailedStart;
import io.moquette.broker.MoquetteInternals;
import io.moquette.broker.Server;
import io.moquette.broker.config.MemoryConfig;
import io.moquette.interception.InterceptHandler;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.edgebridge.intake.InboundPublish;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded Moquette 0.17 broker: its configuration, lifecycle, ACL, TLS and the one outbound port,
 * receipts. docs/moquette.md (the store after a crash) and docs/design.md ("Moquette 0.17: what we set and why") say
 * why each setting is what it is.
 *
 * <p>Threads: Moquette owns its Netty and session-loop threads and the one interceptor thread; this class
 * owns "broker-enforcer", which closes connections that broke the ACL and restarts the broker when a
 * session loop has died (0.17 never recovers one).
 */
public final class Broker implements DevicePublisher, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    private static final String PUBLISHER_ID = "edge-bridge";
    /** At most one log line per kind of refusal and client id in this time. */
    private static final java.time.Duration REFUSAL_LOG_INTERVAL = java.time.Duration.ofSeconds(60);

    private final BrokerSettings settings;
    private final Clock clock;
    private final Topics topics;
    private final Consumer<InboundPublish> commands;
    private final DeviceRegistry devices;
    private final Optional<PasswordFile> passwords;
    private final ExecutorService enforcer;
    private final AtomicLong deniedPublishes = new AtomicLong();
    private final AtomicLong deniedSubscribes = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final ProtocolViolations violations = new ProtocolViolations();
    private final AtomicLong wills = new AtomicLong();
    private final RefusalLog refusals;
    private final DeviceLogin login;
    private final BrokerStoreResets storeResets;
    private volatile InboundBackPressure backPressure = new InboundBackPressure(() -> 0, Integer.MAX_VALUE);
    private volatile Server server;
    private volatile MqttListeners listeners;
    /** The ports the listeners bound (0: off), kept so that a restart binds the same ones. */
    private volatile int mqttPort;
    private volatile int tlsPort;
    private volatile boolean stopping;

    /**
     * @param commands receives each PUBLISH on a device's own command topic, on Moquette's interceptor thread
     */
    public Broker(BrokerSettings settings, Clock clock, Consumer<InboundPublish> commands) {
        this.settings = settings;
        this.clock = clock;
        this.topics = new Topics(settings.topicPrefix());
        this.commands = commands;
        this.devices = new DeviceRegistry(clock, settings.takeoverAlarmPerMinute());
        this.passwords = settings.passwordFile().map(Broker::loadPasswords);
        this.enforcer = Executors.newSingleThreadExecutor(r -> new Thread(r, "broker-enforcer"));
        this.refusals = new RefusalLog(LOG, clock, REFUSAL_LOG_INTERVAL);
        BrokerSettings.LoginSettings ls = settings.login();
        this.login = new DeviceLogin(passwords, settings.anonymous(),
                new FailedLogins(clock, ls.failuresPerClientId(), ls.failuresPerAddress()), refusals, ls.threads(), ls.queue());
        this.storeResets = new BrokerStoreResets(settings.storeDir(), clock);
        if (!settings.anonymous() && passwords.map(PasswordFile::size).orElse(0) == 0) {
            LOG.warn("auth.anonymous=false and no registered devices (auth.passwordFile): no device can connect");
        }
    }

    private static PasswordFile loadPasswords(java.nio.file.Path file) {
        try {
            return PasswordFile.load(file);
        } catch (IOException e) {
            throw new IllegalStateException("auth.passwordFile=" + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Starts the broker and checks that every configured listener accepts connections. If the broker cannot
     * start on its store (the repair refuses it, or Moquette throws), the store is set aside and the broker
     * started on an empty one, in this process ({@link BrokerStoreResets}).
     */
    public synchronized void start() {
        Optional<SslContext> ssl = settings.tls().map(t -> new PemSslContextCreator(t).build());
        List<InterceptHandler> handlers = List.of(new CommandInterceptor(topics, clock, commands, devices, this::onLoopDeath));
        DeviceAuthorizer authorizer = new DeviceAuthorizer(topics, this::deniedPublish, this::deniedSubscribe);
        ConnectPolicy policy = new ConnectPolicy(settings, topics, devices, refusals);
        DeviceAuthenticator authenticator = new DeviceAuthenticator(login, policy);
        MemoryConfig config = new MemoryConfig(moquetteProperties(settings));
        Server started;
        try {
            BrokerStoreRepair.repair(settings.storeDir(), clock);
            started = startMoquette(config, handlers, authenticator, authorizer);
        } catch (BrokerStoreRefused e) {
            if (!storeResets.storeExists()) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            storeResets.setAside(e);
            config = new MemoryConfig(moquetteProperties(settings));
            try {
                started = startMoquette(config, handlers, authenticator, authorizer);
            } catch (BrokerStoreRefused again) {
                throw new IllegalStateException("on an empty store too, " + again.getMessage(), again);
            }
        }
        Server s = started;
        server = s;
        MqttListeners l = new MqttListeners();
        listeners = l;
        try {
            ChannelHandler protocol = MoquetteInternals.protocolHandler(s, config, authenticator);
            Supplier<ChannelHandler> sessionCheck = () -> new SessionSubscriptionCheck(
                    (clientId, topic) -> MoquetteInternals.routesTo(s, clientId, topic), topics);
            InboundBackPressure pressure = new InboundBackPressure(MoquetteInternals.inboundBacklog(s),
                    settings.maxWaitingPublishes());
            backPressure = pressure;
            Supplier<ChannelHandler> gate = () -> new ConnectGate(policy, login, violations, will -> lastWill(s, will),
                    () -> stopping || server != s, pressure);
            if (settings.port() != 0) {
                mqttPort = l.bind(settings.host(), mqttPort != 0 ? mqttPort : settings.port(), null, protocol, gate,
                        settings.maxPacketBytes(), "mqtt.port", sessionCheck);
            }
            settings.tls().ifPresent(t -> tlsPort = l.bind(settings.host(), tlsPort != 0 ? tlsPort : t.port(), ssl.orElseThrow(),
                    protocol, gate, settings.maxPacketBytes(), "tls.port", sessionCheck));
            List<String> dead = new ArrayList<>();
            if (mqttPort != 0 && !listening(mqttPort)) {
                dead.add("mqtt.port=" + mqttPort);
            }
            if (tlsPort != 0 && !listening(tlsPort)) {
                dead.add("tls.port=" + tlsPort);
            }
            if (!dead.isEmpty()) {
                throw new IllegalStateException("the MQTT broker started but is not listening on " + String.join(", ", dead)
                        + " (host " + settings.host() + ")");
            }
        } catch (RuntimeException e) {
            stopServer();
            throw e;
        }
        LOG.info("MQTT broker listening on {}", listeners());
    }

    /**
     * One {@code startServer}. If it throws, what it left running is stopped and its store closed, so that the
     * store can be moved and a second start in this process can open the file.
     *
     * @throws BrokerStoreRefused (Moquette refused to start; the cause says why)
     */
    private static Server startMoquette(MemoryConfig config, List<InterceptHandler> handlers, DeviceAuthenticator authenticator,
            DeviceAuthorizer authorizer) {
        Server s = new Server();
        FailedStart cleanup = FailedStart.before();
        try {
            s.startServer(config, handlers, null, authenticator, authorizer);
            return s;
        } catch (IOException | RuntimeException e) {
            try {
                Set<Thread> left = cleanup.cleanUp(s);
                if (!left.isEmpty()) {
                    LOG.warn("after the failed broker start, {} session-loop threads did not end: {}", left.size(), left);
                }
            } catch (InterruptedException | RuntimeException cleanupError) {
                if (cleanupError instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                e.addSuppressed(cleanupError);
            }
            throw new BrokerStoreRefused("the MQTT broker did not start: " + e, e);
        }
    }

    /** Moquette's configuration for these settings: every default that matters, set explicitly. */
    static Properties moquetteProperties(BrokerSettings settings) {
        Properties p = new Properties();
        // Moquette binds nothing itself: the bridge's MqttListeners accept connections (see MoquetteInternals).
        p.setProperty("host", settings.host());
        p.setProperty("port", "disabled");
        p.setProperty("websocket_port", "disabled");
        p.setProperty("telemetry_enabled", "false");
        p.setProperty("allow_anonymous", String.valueOf(settings.anonymous()));
        p.setProperty("allow_zero_byte_client_id", "false");
        p.setProperty("persistence_enabled", "true");
        p.setProperty("data_path", settings.storeDir().toAbsolutePath().toString());
        p.setProperty("persistent_queue_type", "h2");
        p.setProperty("autosave_interval", "1");
        p.setProperty("persistent_client_expiration", settings.sessionExpiry().toSeconds() + "s");
        p.setProperty("netty.mqtt.message_size", String.valueOf(settings.maxPacketBytes()));
        p.setProperty("session_queue_size", String.valueOf(settings.sessionQueueSize()));
        p.setProperty("intercept.thread_pool.size", "1");
        p.setProperty("netty.epoll", "false");
        p.setProperty("buffer_flush_millis", "immediate");
        p.setProperty("netty.channel_timeout.seconds", "10");
        p.setProperty("use_metrics", "false");
        p.setProperty("use_bugsnag", "false");
        return p;
    }

    private boolean listening(int port) {
        String host = settings.host().equals("0.0.0.0") || settings.host().equals("::") ? "127.0.0.1" : settings.host();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The port the plain MQTT listener bound (also with {@code mqtt.port=any}); 0 when it is off or before the first start. */
    public int mqttPort() {
        return mqttPort;
    }

    /** The port the TLS listener bound (also with {@code tls.port=any}); 0 when it is off or before the first start. */
    public int tlsPort() {
        return tlsPort;
    }

    /** The listeners with the ports they bound, e.g. {@code mqtt://0.0.0.0:1883, mqtts://0.0.0.0:8883}. */
    public String listeners() {
        List<String> out = new ArrayList<>();
        if (settings.port() != 0) {
            out.add("mqtt://" + settings.host() + ":" + (mqttPort != 0 ? mqttPort : settings.port()));
        }
        settings.tls().ifPresent(t -> out.add("mqtts://" + settings.host() + ":" + (tlsPort != 0 ? tlsPort : t.port())
                + (t.clientAuth() == TlsSettings.ClientAuth.NONE ? "" : " (client certificates " + t.clientAuth().name().toLowerCase() + ")")));
        return String.join(", ", out);
    }

    public boolean isRunning() {
        return server != null && !stopping;
    }

    @Override
    public boolean publishReceipt(String clientId, byte[] json) {
        Server s = server;
        if (s == null) {
            return false;
        }
        // Built by hand: MqttMessageBuilders copies the payload into a new, releasable buffer. Unreleasable because
        // Moquette 0.17's H2 queue serializes a queued message lazily, at its next commit, and by then the session
        // may have released the buffer ("refCnt: 0" closes the store and kills the session loops). A heap buffer
        // needs no release: the garbage collector frees it.
        MqttPublishMessage msg = new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE, false, 0),
                new MqttPublishVariableHeader(topics.receiptTopic(clientId), 1),
                Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(json)));
        try {
            return s.internalPublish(msg, PUBLISHER_ID).isAllSuccess();
        } catch (RuntimeException e) {
            LOG.debug("receipt to {} not routed: {}", clientId, e.toString());
            return false;
        }
    }

    /** Client ids whose takeovers in the last minute reached {@code mqtt.takeoverAlarmPerMinute}. */
    public List<DeviceView> takeoverStorms() {
        return devices.list().stream().filter(d -> d.takeoversLastMinute() >= settings.takeoverAlarmPerMinute()).toList();
    }

    public DeviceRegistry devices() {
        return devices;
    }

    public Collection<String> connectedClientIds() {
        Server s = server;
        if (s == null) {
            return List.of();
        }
        try {
            return s.listConnectedClients().stream().map(ClientDescriptor::getClientID).toList();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    public BrokerStatus status() {
        return new BrokerStatus(isRunning(), listeners(), connectedClientIds().size(), deniedPublishes.get(),
                deniedSubscribes.get(), violations.total(), restarts.get(), storeResets.count(), login.refusedCredentials(),
                login.refusedThrottled(), login.refusedBusy(), wills.get(), backPressure.waiting(), backPressure.mostWaiting(),
                backPressure.pauses());
    }

    /** Stores set aside because the broker could not start on them (the {@code broker_store_reset} alarm). */
    public BrokerStoreResets storeResets() {
        return storeResets;
    }

    /**
     * A device's connection broke and it had left a Last Will on one of its own command topics: the will is a
     * command of that device, stored like any other (after the PUBLISHes the device sent before it broke).
     */
    private void lastWill(Server s, ConnectPolicy.LastWill will) {
        wills.incrementAndGet();
        if (!MoquetteInternals.notifyPublishedInOrder(s, will.clientId(), null, will.topic(), will.payload())) {
            LOG.warn("the Last Will of {} was not taken (broker queues full); it is lost", RefusalLog.quote(will.clientId()));
        }
    }

    /** On a session-loop thread: must not block. The offender is disconnected from another thread. */
    private void deniedPublish(String clientId, String topic) {
        deniedPublishes.incrementAndGet();
        devices.deniedPublish(clientId);
        refusals.warn("publish", clientId, "refused PUBLISH of " + RefusalLog.quote(clientId) + " on " + RefusalLog.quote(topic)
                + ": not its own command topic; closing the connection");
        enforcer.execute(() -> {
            Server s = server;
            if (s != null) {
                s.disconnectClient(clientId);
            }
        });
    }

    private void deniedSubscribe(String clientId, String filter) {
        deniedSubscribes.incrementAndGet();
        devices.deniedSubscribe(clientId);
        refusals.warn("subscribe", clientId, "refused SUBSCRIBE of " + RefusalLog.quote(clientId) + " to " + RefusalLog.quote(filter)
                + ": only " + RefusalLog.quote(topics.receiptTopic(clientId)) + " is allowed");
    }

    private void onLoopDeath(Throwable error) {
        LOG.error("a broker session loop died (Moquette 0.17 never recovers one); restarting the broker", error);
        if (stopping) {
            return;
        }
        enforcer.execute(this::restart);
    }

    private synchronized void restart() {
        if (stopping) {
            return;
        }
        restarts.incrementAndGet();
        try {
            stopServer();
        } catch (RuntimeException e) {
            LOG.error("stopping the broker after a session-loop death failed; starting it again anyway", e);
        }
        try {
            start();
        } catch (RuntimeException e) {
            LOG.error("the broker could not be started again: devices cannot connect until the bridge is restarted", e);
            return;
        }
        LOG.warn("broker restarted after a session-loop death; devices reconnect");
    }

    @Override
    public synchronized void close() {
        stopping = true;
        enforcer.shutdownNow();
        try {
            enforcer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopServer();
        login.close();
    }

    /** Closes the listeners (and every device connection), then Moquette. */
    private void stopServer() {
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
                s.stopServer();
            } catch (RuntimeException e) {
                LOG.error("Moquette did not stop cleanly; its session store is repaired at the next start", e);
            }
        }
    }
}
