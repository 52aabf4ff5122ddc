package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.moquette.broker.FailedStart;
import io.moquette.broker.Server;
import io.moquette.broker.config.MemoryConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.edgebridge.broker.Broker;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.BrokerStoreResets;
import org.edgebridge.unit.DataSize;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker store that Moquette refuses does not stop the broker from starting, in the same process: the
 * failed start is cleaned up (no thread left, the file no longer locked), the store is set aside with its
 * reason, and the broker runs on an empty store.
 */
class BrokerStoreResetTest {
    @TempDir
    Path dir;

    @Test
    void a_store_moquette_refuses_is_set_aside_and_the_broker_starts_in_the_same_process() throws Exception {
        Path store = dir.resolve("broker");
        RefusedStores.unknownMqttLevel(store);
        Set<Thread> loopsBefore = FailedStart.sessionLoops();
        try (Broker broker = new Broker(settings(store), Clock.systemUTC(), p -> {}, MoquetteBroker::new)) {
            broker.start();

            assertThat(broker.isRunning()).isTrue();
            assertThat(broker.status().storeResets()).isEqualTo(1);
            List<BrokerStoreResets.Reset> resets = broker.storeResets().unacknowledged();
            assertThat(resets).hasSize(1);
            assertThat(resets.get(0).reason()).contains("Unrecognized MQTT version value 9");
            assertThat(resets.get(0).directory().resolve(BrokerStoreRepair.STORE_FILE))
                    .isRegularFile();
            // the failed start's session loops ended: only the running broker's are alive
            Set<Thread> loops = FailedStart.sessionLoops();
            loops.removeAll(loopsBefore);
            assertThat(loops).hasSize(Runtime.getRuntime().availableProcessors());

            assertThat(broker.storeResets().acknowledgeAll("test")).isEqualTo(1);
            assertThat(broker.storeResets().unacknowledged()).isEmpty();
            assertThat(broker.status().storeResets())
                    .as("the count of this process stays")
                    .isEqualTo(1);
        }
    }

    @Test
    void an_unreadable_store_is_set_aside_too() throws Exception {
        Path store = dir.resolve("broker");
        RefusedStores.garbage(store);
        try (Broker broker = new Broker(settings(store), Clock.systemUTC(), p -> {}, MoquetteBroker::new)) {
            broker.start();

            assertThat(broker.isRunning()).isTrue();
            assertThat(broker.storeResets().unacknowledged())
                    .singleElement()
                    .satisfies(r -> assertThat(r.reason()).contains("could not be read"));
        }
    }

    @Test
    void after_a_failed_start_the_store_file_is_closed_and_no_thread_of_it_is_left() throws Exception {
        Path store = dir.resolve("broker");
        RefusedStores.withoutExpiryInstant(store, "field-node-001");
        String file = store.resolve(BrokerStoreRepair.STORE_FILE).toString();
        Set<Thread> before = FailedStart.sessionLoops();
        Server server = new Server();
        FailedStart cleanup = FailedStart.before();
        assertThatThrownBy(() -> server.startServer(new MemoryConfig(MoquetteProperties.of(settings(store)))))
                .hasMessageContaining("Can't track for expiration a session without expiry instant");
        Set<Thread> leaked = FailedStart.sessionLoops();
        leaked.removeAll(before);
        assertThat(leaked).as("session loops a failed start leaves running").isNotEmpty();
        assertThatThrownBy(() -> new MVStore.Builder().fileName(file).open())
                .as("the store file is still open")
                .hasMessageContaining("locked");

        assertThat(cleanup.cleanUp(server))
                .as("session loops still alive after the clean-up")
                .isEmpty();

        Set<Thread> after = FailedStart.sessionLoops();
        after.removeAll(before);
        assertThat(after).isEmpty();
        new MVStore.Builder().fileName(file).open().close();
    }

    static BrokerSettings settings(Path store) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        return new BrokerSettings(
                new BrokerSettings.Listener("127.0.0.1", port, Optional.empty(), 2),
                new BrokerSettings.Publishes(
                        "devices", DataSize.ofBytes(65_536), 64, true, 100, DataSize.ofBytes(1 << 20)),
                new BrokerSettings.Sessions(store, 1024, Duration.ofDays(7), 10, false),
                new BrokerSettings.LoginSettings(
                        true,
                        Optional.empty(),
                        1,
                        new BrokerSettings.PasswordQueue(16, store.resolveSibling("recent-logins"), 8),
                        new BrokerSettings.LoginThrottle(10, 100),
                        new BrokerSettings.CertificateLogins(
                                store.resolveSibling("certificate-devices"), 1000, Optional.empty())),
                new BrokerSettings.Limits(
                        new BrokerSettings.Connections(
                                4096, Duration.ofSeconds(10), 1024, DataSize.ofBytes(16_384), 100),
                        new BrokerSettings.BeforeLogin(1024, 768),
                        new BrokerSettings.QueuedReceipts(
                                256, DataSize.ofBytes(262_144), 200_000, DataSize.ofBytes(256L << 20)),
                        10_000,
                        DataSize.ofBytes(512)));
    }
}
