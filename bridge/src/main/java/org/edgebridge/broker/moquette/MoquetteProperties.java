package org.edgebridge.broker.moquette;

import java.util.Properties;
import org.edgebridge.broker.BrokerSettings;

/**
 * Moquette 0.17 defaults answered: telemetry to the internet on, anonymous CONNECTs past the authenticator,
 * segmented queues that lose everything since the last clean stop, an 8,092-byte packet limit, and an interceptor
 * pool whose size changes the order commands arrive in. Proven by {@code DeviceLoginIT} (anonymous),
 * {@code EndToEndIT} (sequences in publish order per device) and {@code RestartIT} (sessions across a restart).
 *
 * <p>Moquette 0.17's configuration for the bridge's broker settings: every default that matters, set explicitly
 * (docs/moquette.md, "What we set and why", says why each value is what it is).
 */
final class MoquetteProperties {
    /**
     * How often the H2 store commits, and (MoquetteInternals.syncStoreCommits) syncs what it committed: a session
     * acknowledged this long plus a commit and an fsync before a power cut survives it (docs/moquette.md).
     */
    static final int AUTOSAVE_SECONDS = 1;

    private MoquetteProperties() {}

    static Properties of(BrokerSettings settings) {
        Properties p = new Properties();
        // Moquette binds nothing itself: the bridge's MqttListeners accept connections (see MoquetteInternals).
        p.setProperty("host", settings.listener().host());
        p.setProperty("port", "disabled");
        p.setProperty("websocket_port", "disabled");
        p.setProperty("telemetry_enabled", "false");
        p.setProperty("allow_anonymous", String.valueOf(settings.login().anonymous()));
        p.setProperty("allow_zero_byte_client_id", "false");
        p.setProperty("persistence_enabled", "true");
        p.setProperty(
                "data_path", settings.sessions().storeDir().toAbsolutePath().toString());
        p.setProperty("persistent_queue_type", "h2");
        p.setProperty("autosave_interval", String.valueOf(AUTOSAVE_SECONDS));
        p.setProperty(
                "persistent_client_expiration", settings.sessions().expiry().toSeconds() + "s");
        p.setProperty(
                "netty.mqtt.message_size",
                String.valueOf(settings.publishes().maxPacket().intBytes()));
        p.setProperty("session_queue_size", String.valueOf(settings.sessions().queueSize()));
        p.setProperty("intercept.thread_pool.size", "1");
        p.setProperty("netty.epoll", "false");
        p.setProperty("buffer_flush_millis", "immediate");
        p.setProperty("netty.channel_timeout.seconds", "10");
        p.setProperty("use_metrics", "false");
        p.setProperty("use_bugsnag", "false");
        return p;
    }
}
