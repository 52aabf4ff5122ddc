package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/protocol.md §2.2, "devices never wait for each other": a device with a backlog does not fill every request
 * while the others' commands wait behind it. Each device with a due command gets a fair share of the request first;
 * what is left goes to those with more; each device's events stay together and in sequence order.
 */
class ClaimFairnessTest {
    @TempDir
    Path dir;

    private final TestClock clock = new TestClock(Instant.parse("2026-12-03T06:00:00Z"));

    @Test
    void a_backlogged_device_leaves_room_for_the_others_and_fills_what_they_leave() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"), clock)) {
            f.pending("dev-big", "BIG-", 1_200);
            f.pending("dev-b", "B-", 1);
            f.pending("dev-c", "C-", 3);
            List<ClaimedEvent> first = claim(f, "r1");
            Map<String, Long> perDevice = count(first);
            assertThat(perDevice)
                    .containsEntry("dev-b", 1L)
                    .containsEntry("dev-c", 3L)
                    .containsEntry("dev-big", 496L);
            assertContiguousInOrder(first);
            f.outbox()
                    .settle(
                            "r1",
                            first.stream()
                                    .<Settlement>map(
                                            e -> new Settlement.Final(e.id(), CommandState.ACCEPTED, null, null, null))
                                    .toList(),
                            50);
            List<ClaimedEvent> second = claim(f, "r2");
            assertThat(count(second))
                    .as("alone now: the whole request")
                    .containsOnlyKeys("dev-big")
                    .containsEntry("dev-big", 500L);
            assertThat(second.get(0).sequence())
                    .isEqualTo(first.stream()
                                    .filter(e -> e.clientId().equals("dev-big"))
                                    .mapToLong(ClaimedEvent::sequence)
                                    .max()
                                    .orElseThrow()
                            + 1);
        }
    }

    @Test
    void two_backlogged_devices_share_a_request() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"), clock)) {
            f.pending("dev-a", "A-", 800);
            f.pending("dev-b", "B-", 800);
            List<ClaimedEvent> claimed = claim(f, "r1");
            assertThat(count(claimed)).containsEntry("dev-a", 250L).containsEntry("dev-b", 250L);
            assertContiguousInOrder(claimed);
        }
    }

    private static List<ClaimedEvent> claim(OutboxFixture f, String batch) {
        return f.outbox().claim(500, Integer.MAX_VALUE, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, batch);
    }

    private static Map<String, Long> count(List<ClaimedEvent> events) {
        return events.stream().collect(Collectors.groupingBy(ClaimedEvent::clientId, Collectors.counting()));
    }

    private static void assertContiguousInOrder(List<ClaimedEvent> events) {
        for (int i = 1; i < events.size(); i++) {
            ClaimedEvent before = events.get(i - 1);
            ClaimedEvent e = events.get(i);
            if (e.clientId().equals(before.clientId())) {
                assertThat(e.sequence()).as("in sequence order, without a gap").isEqualTo(before.sequence() + 1);
            } else {
                assertThat(events.subList(0, i))
                        .as(e.clientId() + "'s events together")
                        .noneMatch(x -> x.clientId().equals(e.clientId()));
            }
        }
    }
}
