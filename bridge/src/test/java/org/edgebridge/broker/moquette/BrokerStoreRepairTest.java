package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.moquette.broker.ISessionsRepository.SessionData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pre-start repair against stores made by Moquette 0.17's own H2 classes and left as {@code kill -9}
 * leaves them. The second test is the sequence that made the bridge unstartable (issue #13): a repaired life,
 * new persistent sessions, a crash, and a repair whose write the next open did not read.
 */
class BrokerStoreRepairTest {
    @TempDir
    Path dir;

    @Test
    void sessions_left_by_a_crash_get_an_expiry_instant_that_moquette_reads() {
        Path crashed = dir.resolve("crashed");
        MoquetteStoreLives.liveAndDie(null, crashed, MoquetteStoreLives.clients("field-node", 1, 10));

        assertThat(BrokerStoreRepair.repair(crashed, Clock.systemUTC())).isEqualTo(10);

        assertThat(MoquetteStoreLives.sessionsAsMoquetteReadsThem(crashed))
                .hasSize(10)
                .allSatisfy(s -> assertThat(s.expireAt()).as(s.clientId()).isPresent());
    }

    @Test
    void a_repair_after_the_second_crash_is_still_read_by_the_next_open() {
        // life 1: ten devices connect with cleanSession=false, then kill -9
        Path first = dir.resolve("first-crash");
        MoquetteStoreLives.liveAndDie(null, first, MoquetteStoreLives.clients("field-node", 1, 10));
        // life 2: repaired, three new devices, kill -9 again
        assertThat(BrokerStoreRepair.repair(first, Clock.systemUTC())).isEqualTo(10);
        Path second = dir.resolve("second-crash");
        MoquetteStoreLives.liveAndDie(first, second, MoquetteStoreLives.clients("new-node", 1, 3));
        // life 3: the repair stamps the three new sessions...
        assertThat(BrokerStoreRepair.repair(second, Clock.systemUTC())).isEqualTo(3);

        // ...and Moquette must read all 13, each with its instant (before the fix: 10 sessions of life 1, none with
        // one)
        List<SessionData> read = MoquetteStoreLives.sessionsAsMoquetteReadsThem(second);
        assertThat(read).extracting(SessionData::clientId).hasSize(13).contains("field-node-001", "new-node-003");
        assertThat(read)
                .allSatisfy(s -> assertThat(s.expireAt()).as(s.clientId()).isPresent());
    }

    @Test
    void the_repair_keeps_what_moquette_stored_for_each_session_its_subscription_and_its_queued_receipt() {
        Path crashed = dir.resolve("crashed-with-queues");
        List<String> clients = MoquetteStoreLives.clients("field-node", 1, 5);
        MoquetteStoreLives.liveAndDie(null, crashed, clients);

        assertThat(BrokerStoreRepair.repair(crashed, Clock.systemUTC())).isEqualTo(5);

        java.util.Map<String, String> read = MoquetteStoreLives.queuedAsMoquetteReadsThem(crashed, clients);
        for (String id : clients) {
            assertThat(read)
                    .containsEntry("subscription " + id, MoquetteStoreLives.receiptTopic(id))
                    .containsEntry(
                            "queued " + id,
                            MoquetteStoreLives.receiptTopic(id) + " " + MoquetteStoreLives.receiptOf(id));
        }
        assertThat(crashed.resolve(BrokerStoreRepair.COPY_FILE)).doesNotExist();
    }

    @Test
    void a_copy_left_by_a_repair_that_was_cut_short_is_replaced_and_the_store_is_read_as_it_was() throws Exception {
        Path crashed = dir.resolve("cut-short");
        MoquetteStoreLives.liveAndDie(null, crashed, MoquetteStoreLives.clients("field-node", 1, 4));
        Files.write(crashed.resolve(BrokerStoreRepair.COPY_FILE), "half a copy".getBytes());

        assertThat(BrokerStoreRepair.repair(crashed, Clock.systemUTC())).isEqualTo(4);

        assertThat(MoquetteStoreLives.sessionsAsMoquetteReadsThem(crashed)).hasSize(4);
        assertThat(crashed.resolve(BrokerStoreRepair.COPY_FILE)).doesNotExist();
    }

    @Test
    void a_store_that_is_not_an_mvstore_is_refused() throws Exception {
        Files.createDirectories(dir.resolve("garbage"));
        Files.write(
                dir.resolve("garbage").resolve(BrokerStoreRepair.STORE_FILE),
                "not a store at all\n".repeat(500).getBytes());

        assertThatThrownBy(() -> BrokerStoreRepair.repair(dir.resolve("garbage"), Clock.systemUTC()))
                .isInstanceOf(BrokerStoreRefused.class);
    }

    @Test
    void no_store_file_is_nothing_to_repair() {
        assertThat(BrokerStoreRepair.repair(dir.resolve("none"), Clock.systemUTC()))
                .isZero();
    }
}
