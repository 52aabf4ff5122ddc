package org.edgebridge.broker;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.Once;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MQTT side of the bridge: devices connect here, their commands come out through {@link InboundCommands}, and
 * receipts go back to them through {@link DevicePublisher}. This class holds the bridge's own device policy (the
 * device registry, logins, the store-reset alarm) and hands the broker itself, Moquette 0.17 and every workaround
 * it needs, to a {@link BrokerEngine} built by the factory it is given ({@code MoquetteBroker::new}, passed in by the
 * composition root): nothing outside {@code org.edgebridge.broker.moquette} touches Moquette, Netty or H2, and this
 * package does not depend on that one (docs/moquette.md says why each workaround is there).
 */
public final class Broker implements Component, BrokerView, DevicePublisher, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    /** At most one log line per kind of refusal and client id in this time. */
    private static final Duration REFUSAL_LOG_INTERVAL = Duration.ofSeconds(60);

    private final BrokerSettings settings;
    private final DeviceRegistry devices;
    private final DeviceLogin login;
    private final BrokerStoreResets storeResets;
    private final CertificateDevices certificates;
    private final BrokerEngine moquette;

    /**
     * @param commands receives each PUBLISH on a device's own command topic, on the broker's one intake thread
     * @param engine builds the MQTT server itself ({@code MoquetteBroker::new})
     */
    /**
     * A broker whose loss (see {@link #Broker(BrokerSettings, Clock, InboundCommands, BrokerEngine.Factory, Consumer)})
     * is only logged: for tests.
     */
    public Broker(BrokerSettings settings, Clock clock, InboundCommands commands, BrokerEngine.Factory engine) {
        this(settings, clock, commands, engine, cause -> {});
    }

    /**
     * @param lost told when the broker cannot serve any more (it could not be started again): the process should end
     */
    public Broker(
            BrokerSettings settings,
            Clock clock,
            InboundCommands commands,
            BrokerEngine.Factory engine,
            Consumer<Throwable> lost) {
        this(settings, clock, commands, engine, lost, ReceiptAcks.NONE);
    }

    /**
     * @param acks told of each device's PUBACK of its final receipt, on the connection's event loop (must not block)
     */
    public Broker(
            BrokerSettings settings,
            Clock clock,
            InboundCommands commands,
            BrokerEngine.Factory engine,
            Consumer<Throwable> lost,
            ReceiptAcks acks) {
        this.settings = settings;
        this.devices = new DeviceRegistry(
                clock,
                settings.sessions().takeoverAlarmPerMinute(),
                settings.limits().maxKnownDevices());
        Optional<PasswordFile> passwords = settings.login().passwordFile().map(Broker::loadPasswords);
        RefusalLog refusals = new RefusalLog(LOG, clock, REFUSAL_LOG_INTERVAL);
        BrokerSettings.LoginSettings ls = settings.login();
        this.login = new DeviceLogin(
                passwords,
                ls.anonymous(),
                new FailedLogins(
                        clock,
                        ls.throttle().failuresPerClientId(),
                        ls.throttle().failuresPerAddress()),
                refusals,
                ls.threads(),
                ls.queue().total(),
                ls.queue().perAddress(),
                RecentLogins.load(
                        ls.queue().recentLoginsFile(), settings.limits().maxKnownDevices()));
        this.storeResets = new BrokerStoreResets(settings.sessions().storeDir(), clock);
        this.certificates = CertificateDevices.load(
                ls.certificates().devicesFile(),
                ls.certificates().maxDevices(),
                ls.certificates().clientIds());
        this.moquette = engine.create(new BrokerEngine.Parts(
                settings, clock, commands, devices, login, refusals, storeResets, certificates, lost, acks));
        if (!settings.login().anonymous() && passwords.map(PasswordFile::size).orElse(0) == 0) {
            LOG.warn("auth.anonymous=false and no registered devices (auth.passwordFile): no device can connect");
        }
    }

    private static PasswordFile loadPasswords(Path file) {
        try {
            return PasswordFile.load(file);
        } catch (IOException e) {
            throw new IllegalStateException("auth.passwordFile=" + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Starts the broker and checks that every configured listener accepts connections. If the broker cannot
     * start on its store, the store is set aside and the broker started on an empty one, in this process
     * ({@link BrokerStoreResets}).
     */
    private final Once once = new Once();

    @Override
    public void start() {
        if (once.start()) {
            moquette.start();
        }
    }

    /** The listeners with the ports they bound, e.g. {@code mqtt://0.0.0.0:1883, mqtts://0.0.0.0:8883}. */
    public String listeners() {
        return moquette.listeners();
    }

    /**
     * The port the plain MQTT listener bound (also with {@code mqtt.port=any}); 0 when it is off or before the first
     * start.
     */
    public int mqttPort() {
        return moquette.mqttPort();
    }

    /** The port the TLS listener bound (also with {@code tls.port=any}); 0 when it is off or before the first start. */
    public int tlsPort() {
        return moquette.tlsPort();
    }

    public boolean isRunning() {
        return moquette.isRunning();
    }

    @Override
    public boolean publishReceipt(String clientId, byte[] json) {
        return moquette.publishReceipt(clientId, json);
    }

    /** Client ids whose takeovers in the last minute reached {@code mqtt.takeoverAlarmPerMinute}. */
    public List<DeviceView> takeoverStorms() {
        int storm = settings.sessions().takeoverAlarmPerMinute();
        return devices.list().stream()
                .filter(d -> d.takeoversLastMinute() >= storm)
                .toList();
    }

    public DeviceRegistry devices() {
        return devices;
    }

    public Collection<String> connectedClientIds() {
        return moquette.connectedClientIds();
    }

    public BrokerStatus status() {
        return moquette.status();
    }

    /** Stores set aside because the broker could not start on them (the {@code broker_store_reset} alarm). */
    public BrokerStoreResets storeResets() {
        return storeResets;
    }

    @Override
    public CertificateDevices certificateDevices() {
        return certificates;
    }

    /** {@link #close(Duration)}, for try-with-resources. */
    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /**
     * Closes the listeners (and every device connection), then the broker, then the login checks. Moquette 0.17's
     * stop takes no time limit: {@code timeout} is not enforced on it.
     */
    @Override
    public void close(Duration timeout) {
        if (!once.close()) {
            return;
        }
        if (once.started()) {
            moquette.close();
        }
        login.close();
    }
}
