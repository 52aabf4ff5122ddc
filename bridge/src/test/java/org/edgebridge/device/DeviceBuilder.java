package org.edgebridge.device;

import com.hivemq.client.mqtt.MqttClientSslConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/** How a {@link DeviceSimulator} is made; {@link #build} makes one (not connected yet). Read by the device it built. */
public final class DeviceBuilder {
    final String clientId;
    final int port;
    String host = "127.0.0.1";
    MqttClientSslConfig tls;
    String username;
    byte[] password;
    boolean cleanSession;
    String willTopic;
    byte[] willPayload;
    int keepAliveSeconds = 30;
    Duration connectTimeout = Duration.ofSeconds(10);
    IntSupplier bridgeLife = () -> 0;
    FleetCounters counters = new FleetCounters();
    Consumer<byte[]> onMessage = bytes -> {};
    boolean keepReceipts = true;
    boolean behindBalancer;
    CarefulPlan careful;

    DeviceBuilder(String clientId, int port) {
        this.clientId = clientId;
        this.port = port;
    }

    public DeviceBuilder host(String host) {
        this.host = host;
        return this;
    }

    /** Connects over TLS with this configuration (trust, and a client certificate if any). */
    public DeviceBuilder tls(MqttClientSslConfig tls) {
        this.tls = tls;
        return this;
    }

    public DeviceBuilder credentials(String username, String password) {
        this.username = username;
        this.password = password.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /** The session {@link DeviceSimulator#connect()} asks for: false (the default) is a persistent session. */
    public DeviceBuilder cleanSession(boolean cleanSession) {
        this.cleanSession = cleanSession;
        return this;
    }

    /** A will (QoS 1) in every CONNECT of {@link DeviceSimulator#connect()}. */
    public DeviceBuilder will(String topic, byte[] payload) {
        this.willTopic = topic;
        this.willPayload = payload;
        return this;
    }

    public DeviceBuilder keepAlive(Duration keepAlive) {
        this.keepAliveSeconds = (int) keepAlive.toSeconds();
        return this;
    }

    /** How long the TCP connect, and then the CONNACK, may take each. */
    public DeviceBuilder connectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
        return this;
    }

    /** Tags each CONNACK with the bridge's life it came in (see {@link DeviceSimulator#connacks}). */
    public DeviceBuilder bridgeLife(IntSupplier bridgeLife) {
        this.bridgeLife = bridgeLife;
        return this;
    }

    /** Where the device counts what it did and saw; shared by a fleet. */
    public DeviceBuilder counters(FleetCounters counters) {
        this.counters = counters;
        return this;
    }

    /** Sees every message's bytes first, on the client's thread (e.g. a benchmark's cheap field read). */
    public DeviceBuilder onMessage(Consumer<byte[]> onMessage) {
        this.onMessage = onMessage;
        return this;
    }

    /** Whether to parse and keep every receipt (default true; a load generator may not want to). */
    public DeviceBuilder keepReceipts(boolean keepReceipts) {
        this.keepReceipts = keepReceipts;
        return this;
    }

    /**
     * Careful mode: the device makes {@code toCreate} commands, the first at {@code firstCreateNanos} and then
     * one every {@code createEveryNanos} (on the {@link System#nanoTime} scale), keeps each until its final
     * receipt and resends it as {@link DeviceOutbox} says; {@link DeviceSimulator#tick} drives it.
     */
    public DeviceBuilder careful(int toCreate, long firstCreateNanos, long createEveryNanos) {
        this.careful = new CarefulPlan(toCreate, firstCreateNanos, createEveryNanos);
        return this;
    }

    /**
     * The device reaches several bridges through a load balancer (docs/scale-out.md): a command it resends to
     * another box is stored there under that box's own sequence, which its outbox then does not count as an anomaly.
     */
    public DeviceBuilder behindBalancer(boolean behindBalancer) {
        this.behindBalancer = behindBalancer;
        return this;
    }

    public DeviceSimulator build() {
        return new DeviceSimulator(this);
    }

    int keepAliveSeconds() {
        return keepAliveSeconds;
    }

    IntSupplier bridgeLife() {
        return bridgeLife;
    }

    record CarefulPlan(int toCreate, long firstCreateNanos, long createEveryNanos) {}
}
