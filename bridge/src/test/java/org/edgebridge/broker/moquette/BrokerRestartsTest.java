package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's restarts as a state machine, with a server that only records what it is told: the real broker's
 * restart after a failed store, kept down by a full disk, is {@code FullDiskIT}.
 */
class BrokerRestartsTest {
    @TempDir
    Path storeDir;

    /** Records starts and stops; each start throws the next of {@code failures} (null: starts). */
    static final class RecordingServer implements BrokerRestarts.Server {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<RuntimeException> failures = new ArrayList<>();
        volatile boolean up;

        @Override
        public synchronized void start(int life) {
            calls.add("start " + life);
            if (!failures.isEmpty()) {
                RuntimeException failure = failures.remove(0);
                if (failure != null) {
                    throw failure;
                }
            }
            up = true;
        }

        @Override
        public void stop() {
            calls.add("stop");
            up = false;
        }

        @Override
        public boolean isUp() {
            return up;
        }
    }

    private final RecordingServer server = new RecordingServer();
    private final List<Throwable> lost = new CopyOnWriteArrayList<>();

    private BrokerRestarts restarts() {
        return new BrokerRestarts(server, storeDir, lost::add);
    }

    private BrokerStoreDiskFull diskFull() {
        return BrokerStoreDiskFull.noRoomNow(storeDir, new IOException("No space left on device"));
    }

    @Test
    void a_failure_of_the_running_start_stops_and_starts_the_broker_once_and_an_old_one_is_ignored() {
        try (BrokerRestarts restarts = restarts()) {
            restarts.start();
            restarts.failed(1, Optional.empty());
            await().atMost(Duration.ofSeconds(10)).until(() -> server.calls.size() == 3);
            assertThat(server.calls).containsExactly("start 1", "stop", "start 2");
            assertThat(restarts.count()).isEqualTo(1);

            restarts.failed(1, Optional.empty()); // start 1's news, come late: start 2 runs now
            restarts.failed(2, Optional.empty());
            await().atMost(Duration.ofSeconds(10)).until(() -> server.calls.size() == 5);
            assertThat(server.calls).endsWith("stop", "start 3");
            assertThat(restarts.count()).isEqualTo(2);
            assertThat(lost).isEmpty();
        }
    }

    @Test
    void a_full_disk_at_start_keeps_the_broker_down_and_it_starts_once_the_disk_has_room() {
        server.failures.add(diskFull());
        try (BrokerRestarts restarts = restarts()) {
            restarts.start();
            assertThat(server.isUp()).isFalse();
            assertThat(restarts.waitingFor())
                    .hasValueSatisfying(why -> assertThat(why).contains("is full"));

            // the temporary directory's disk has room: the next try, DISK_FULL_RETRY later, starts it
            await().atMost(BrokerRestarts.DISK_FULL_RETRY.multipliedBy(3)).until(server::isUp);
            assertThat(server.calls).containsExactly("start 1", "start 2");
            assertThat(restarts.waitingFor()).isEmpty();
            assertThat(lost).isEmpty();
        }
    }

    @Test
    void a_store_failure_for_want_of_room_stops_the_broker_and_waits_instead_of_starting_it_into_the_full_disk() {
        try (BrokerRestarts restarts = restarts()) {
            restarts.start();
            restarts.failed(1, Optional.of(diskFull()));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> restarts.waitingFor().isPresent());
            assertThat(server.calls).containsExactly("start 1", "stop");
            assertThat(server.isUp()).isFalse();

            await().atMost(BrokerRestarts.DISK_FULL_RETRY.multipliedBy(3)).until(server::isUp);
            assertThat(server.calls).containsExactly("start 1", "stop", "start 2");
            assertThat(restarts.count()).isEqualTo(1);
        }
    }

    @Test
    void a_restart_that_fails_otherwise_stops_the_bridge_for_its_supervisor() {
        IllegalStateException broken = new IllegalStateException("the listener's port is taken");
        server.failures.add(null);
        server.failures.add(broken);
        try (BrokerRestarts restarts = restarts()) {
            restarts.start();
            restarts.failed(1, Optional.empty());
            await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
            assertThat(lost).containsExactly(broken);
            assertThat(restarts.waitingFor()).isEmpty();
        }
    }

    @Test
    void after_close_the_broker_is_stopped_and_no_failure_starts_it_again() {
        BrokerRestarts restarts = restarts();
        restarts.start();
        restarts.close();
        assertThat(restarts.stopping()).isTrue();
        assertThat(server.calls).containsExactly("start 1", "stop");

        restarts.failed(1, Optional.empty());
        restarts.execute(() -> server.calls.add("task"));
        assertThat(server.calls).containsExactly("start 1", "stop");
        assertThat(lost).isEmpty();
    }
}
