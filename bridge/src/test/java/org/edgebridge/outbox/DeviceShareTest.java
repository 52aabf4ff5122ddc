package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 point 4: a device's share of the outbox. Invariant (docs/design.md): a device's {@code open_count} and
 * {@code open_bytes} in {@code devices} equal its rows in an open state (pending, inflight, parked) and their payload
 * bytes, after every write of the outbox, whoever wrote it; a device past its share gets its new commands refused and
 * no other device is touched; a final row's payload is dropped once its receipt is published.
 */
class DeviceShareTest {
    @TempDir
    Path dir;

    @Test
    void a_device_past_its_share_is_refused_alone_and_stores_again_once_its_commands_are_final() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"))) {
            Outbox outbox = f.outbox();
            DeviceShare share = new DeviceShare(3, 1 << 20);
            Instant now = Instant.now();
            List<StoreResult> hog = outbox.store(
                    () -> IntStream.rangeClosed(1, 5)
                            .mapToObj(i -> OutboxFixture.command("dev-hog", "H-" + i, 0, now))
                            .toList(),
                    Long.MAX_VALUE,
                    share);
            assertThat(hog)
                    .extracting(r -> r.getClass().getSimpleName())
                    .containsExactly("Stored", "Stored", "Stored", "DeviceFull", "DeviceFull");
            assertThat(((StoreResult.DeviceFull) hog.get(3)).openCommands()).isEqualTo(3);
            assertThat(outbox.store(
                                    () -> List.of(OutboxFixture.command("dev-other", "O-1", 0, now)),
                                    Long.MAX_VALUE,
                                    share)
                            .get(0))
                    .as("another device is not touched")
                    .isInstanceOf(StoreResult.Stored.class);

            List<ClaimedEvent> claimed = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "b-1");
            outbox.settle(
                    "b-1",
                    claimed.stream()
                            .filter(e -> e.commandId().equals("H-1"))
                            .map(e ->
                                    (Settlement) new Settlement.Final(e.id(), CommandState.ACCEPTED, null, null, "{}"))
                            .toList(),
                    50);
            assertThat(outbox.store(
                                    () -> List.of(OutboxFixture.command("dev-hog", "H-4", 0, now)),
                                    Long.MAX_VALUE,
                                    share)
                            .get(0))
                    .as("one of its commands is final: room for one more")
                    .isInstanceOf(StoreResult.Stored.class);

            DeviceShare bytes = new DeviceShare(1000, 3000);
            List<StoreResult> big = outbox.store(
                    () -> IntStream.rangeClosed(1, 3)
                            .mapToObj(i -> OutboxFixture.command("dev-big", "B-" + i, 1200, now))
                            .toList(),
                    Long.MAX_VALUE,
                    bytes);
            assertThat(big)
                    .extracting(r -> r.getClass().getSimpleName())
                    .as("by bytes: 2 x ~1,220 fit in 3,000, a third does not")
                    .containsExactly("Stored", "Stored", "DeviceFull");
            List<StoreResult> alone = outbox.store(
                    () -> List.of(OutboxFixture.command("dev-huge", "X-1", 5000, now)), Long.MAX_VALUE, bytes);
            assertThat(alone.get(0))
                    .as("a device with nothing open may store one command of any size")
                    .isInstanceOf(StoreResult.Stored.class);
        }
    }

    @Test
    void a_final_rows_payload_is_dropped_once_its_receipt_is_published_and_its_pages_go_back_to_the_file_system()
            throws Exception {
        Path file = dir.resolve("outbox.db");
        try (OutboxFixture f = OutboxFixture.at(file)) {
            Outbox outbox = f.outbox();
            List<CommandRecord> finals = new ArrayList<>();
            for (int i = 1; i <= 40; i++) {
                finals.add(f.finalRow("dev", "F-" + i, CommandState.ACCEPTED));
            }
            f.pending("dev", "P-", 1, 100_000);
            outbox.store(List.of(OutboxFixture.command("dev", "BIG", 200_000, Instant.now())));
            List<ClaimedEvent> claimed = outbox.claim(10, 1 << 30, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "b-big");
            outbox.settle(
                    "b-big",
                    claimed.stream()
                            .map(e ->
                                    (Settlement) new Settlement.Final(e.id(), CommandState.ACCEPTED, null, null, "{}"))
                            .toList(),
                    50);
            CommandRecord big = outbox.find("dev", "BIG").orElseThrow();
            assertThat(outbox.parked().payload("dev", "BIG"))
                    .as("not published yet: kept")
                    .isPresent();
            long freeBefore = outbox.freeBytes();
            outbox.markPublished(List.of(big.id()));
            outbox.markPublished(finals.stream().map(CommandRecord::id).toList());
            outbox.unpublishedFinals(10); // commits the marks
            assertThat(outbox.parked().payload("dev", "BIG"))
                    .as("published: dropped")
                    .isEmpty();
            assertThat(outbox.find("dev", "BIG").orElseThrow().payloadSha256())
                    .as("dedup keeps the SHA")
                    .isEqualTo(big.payloadSha256());
            assertThat(outbox.store(List.of(OutboxFixture.command("dev", "BIG", 200_000, Instant.now())))
                            .get(0))
                    .as("a resend is answered from the row")
                    .isInstanceOf(StoreResult.AlreadyStored.class);
            long free = outbox.freeBytes();
            assertThat(free)
                    .as("the payload's pages are free pages of the file")
                    .isGreaterThan(freeBefore + 150_000);
            outbox.close(); // folds the log into the file
            long fileBefore = Files.size(file);
            long given = outbox.giveBackFreePages(1_000_000);
            outbox.close();
            System.out.printf(
                    "FIGURES payload drop: %d free bytes after the marks, %d pages given back, file %d -> %d bytes%n",
                    free, given, fileBefore, Files.size(file));
            assertThat(given).isPositive();
            assertThat(Files.size(file)).as("the file shrank").isLessThan(fileBefore - 150_000);
            assertThat(outbox.freeBytes()).isLessThan(free);
        }
    }

    /**
     * Thousands of generated writes of every kind, from a printed seed: after each, every device's counts in
     * {@code devices} equal a count of its open rows.
     */
    @Test
    void every_devices_open_count_and_bytes_match_its_open_rows_after_every_kind_of_write() throws Exception {
        long seed = Long.getLong("share.seed", System.nanoTime());
        System.out.println("DeviceShareTest seed " + seed + " (-Dshare.seed=" + seed + " repeats it)");
        Random random = new Random(seed);
        Path file = dir.resolve("outbox.db");
        try (OutboxFixture f = OutboxFixture.at(file)) {
            Outbox outbox = f.outbox();
            Map<String, List<ClaimedEvent>> claims = new HashMap<>();
            int ids = 0;
            for (int step = 0; step < 2_000; step++) {
                int kind = random.nextInt(10);
                if (kind < 4) {
                    List<NewCommand> batch = new ArrayList<>();
                    for (int i = random.nextInt(4); i >= 0; i--) {
                        batch.add(OutboxFixture.command(
                                "dev-" + random.nextInt(5), "C-" + ids++, random.nextInt(3000), Instant.now()));
                    }
                    outbox.store(() -> batch, Long.MAX_VALUE, new DeviceShare(1 + random.nextInt(20), 20_000));
                } else if (kind < 6) {
                    String batch = "b-" + step;
                    List<ClaimedEvent> claimed = outbox.claim(
                            1 + random.nextInt(8), 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, batch);
                    if (!claimed.isEmpty()) {
                        claims.put(batch, claimed);
                    }
                } else if (kind < 8 && !claims.isEmpty()) {
                    String batch = claims.keySet().stream().sorted().findFirst().orElseThrow();
                    List<Settlement> settlements = claims.remove(batch).stream()
                            .map(e -> settlement(e, random))
                            .toList();
                    List<CommandRecord> finals =
                            outbox.settle(batch, settlements, 3).finals();
                    if (random.nextBoolean()) {
                        outbox.markPublished(
                                finals.stream().map(CommandRecord::id).toList());
                    }
                } else if (kind == 8) {
                    List<Long> parked = outbox.parked().list(null, null, 5).stream()
                            .map(CommandRecord::id)
                            .toList();
                    outbox.parked()
                            .decide(
                                    parked,
                                    random.nextBoolean() ? ParkedDesk.Decision.REQUEUE : ParkedDesk.Decision.REJECT,
                                    "by the test");
                } else {
                    outbox.makePendingDue();
                    outbox.purgeFinalBefore(Instant.now().plusSeconds(1), 1 + random.nextInt(20));
                }
                assertThat(counted(file)).as("step " + step + ", seed " + seed).isEqualTo(recounted(file));
            }
            System.out.printf("DeviceShareTest: 2000 writes, devices now %s%n", counted(file));
        }
    }

    private static Settlement settlement(ClaimedEvent e, Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> new Settlement.Final(e.id(), CommandState.ACCEPTED, null, null, "{}");
            case 1 -> new Settlement.Final(e.id(), CommandState.REJECTED, "no", "rejected", null);
            case 2 -> new Settlement.RetryLater(e.id(), Instant.now(), "later", true);
            case 3 -> new Settlement.Park(e.id(), "test_park", "parked");
            default -> new Settlement.Release(e.id(), "released");
        };
    }

    private static Map<String, String> counted(Path file) throws Exception {
        return query(file, "SELECT client_id, open_count || '/' || open_bytes FROM devices");
    }

    private static Map<String, String> recounted(Path file) throws Exception {
        return query(
                file,
                "SELECT d.client_id, (SELECT COUNT(*) FROM commands c WHERE c.client_id = d.client_id AND "
                        + "c.state IN ('pending', 'inflight', 'parked')) || '/' || (SELECT COALESCE(SUM(length(c.payload)), 0) "
                        + "FROM commands c WHERE c.client_id = d.client_id AND c.state IN ('pending', 'inflight', 'parked')) "
                        + "FROM devices d");
    }

    private static Map<String, String> query(Path file, String sql) throws Exception {
        Map<String, String> out = new java.util.TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                ResultSet rs = c.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getString(2));
            }
        }
        return out;
    }
}
