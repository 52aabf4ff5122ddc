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
            assertThat(resets.get(0).directory().resolve(BrokerStoreRepair.STORE_FILE)).isRegularFile();
            // the failed start's session loops ended: only the running broker's are alive
            Set<Thread> loops = FailedStart.sessionLoops();
            loops.removeAll(loopsBefore);
            assertThat(loops).hasSize(Runtime.getRuntime().availableProcessors());

            assertThat(broker.storeResets().acknowledgeAll("test")).isEqualTo(1);
            assertThat(broker.storeResets().unacknowledged()).isEmpty();
            assertThat(broker.status().storeResets()).as("the count of this process stays").isEqualTo(1);
        }
    }

    @Test
    void an_unreadable_store_is_set_aside_too() throws Exception {
        Path store = dir.resolve("broker");
        RefusedStores.garbage(store);
        try (Broker broker = new Broker(settings(store), Clock.systemUTC(), p -> {}, MoquetteBroker::new)) {
            broker.start();

            assertThat(broker.isRunning()).isTrue();
            assertThat(broker.storeResets().unacknowledged()).singleElement()
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
        assertThatThrownBy(() -> new MVStore.Builder().fileName(file).open()).as("the store file is still open")
                .hasMessageContaining("locked");

        assertThat(cleanup.cleanUp(server)).as("session loops still alive after the clean-up").isEmpty();

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
        return new BrokerSettings("127.0.0.1", port, "devices", 65_536, 1024, Duration.ofDays(7), store, Optional.empty(),
                true, Optional.empty(), 10, false, new BrokerSettings.LoginSettings(1, 16, 8, 10, 100,
                        store.resolveSibling("certificate-devices"), store.resolveSibling("recent-logins"), 1000, Optional.empty()), 64,
                new BrokerSettings.Limits(4096, 1024, 16_384, Duration.ofSeconds(10), 10_000,
                        512, 256, 262_144, 200_000, 256L << 20, 1024, 768, 100, 100), true);
    }
}
