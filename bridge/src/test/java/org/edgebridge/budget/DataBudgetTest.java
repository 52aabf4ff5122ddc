package org.edgebridge.budget;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.TestClock;
import org.edgebridge.forward.WireBytes;
import org.edgebridge.outbox.ClaimedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The day and the month of bytes to central: rollovers, the file that keeps them, the alarms, the bound on devices. */
class DataBudgetTest {
    @TempDir
    Path dir;

    private final TestClock clock = new TestClock(Instant.parse("2026-12-30T23:59:00Z"));
    private final WireBytes wire = new WireBytes(false);

    private DataBudget budget(Optional<Long> monthly) {
        return new DataBudget(new BudgetSettings(dir, monthly), wire, clock);
    }

    private static ClaimedEvent event(String device, int payloadBytes) {
        return new ClaimedEvent(
                1, device, "C", 1, "t", "x", new byte[payloadBytes], "sha", Instant.EPOCH, 1, 0, Optional.empty());
    }

    @Test
    void bytes_count_into_the_day_and_the_month_and_each_starts_again_at_its_end_in_utc() {
        DataBudget b = budget(Optional.empty());
        wire.sent(100, 4000, 1000);
        wire.events(List.of(event("dev-a", 3000), event("dev-b", 500)));
        b.sample();
        DataBudget.Snapshot s = b.snapshot();
        assertThat(s.today().period()).isEqualTo("2026-12-30");
        assertThat(s.month().period()).isEqualTo("2026-12");
        assertThat(s.month().sentBytes()).isEqualTo(100 + 90 + 1000); // head, the client's headers, the body as sent
        assertThat(s.compressionRatio()).isEqualTo(4.0);
        assertThat(s.topDevices()).extracting(DataBudget.Device::deviceId).containsExactly("dev-a", "dev-b");
        assertThat(s.usedRatio()).as("no budget").isNull();

        clock.advance(Duration.ofMinutes(2)); // 2026-12-31: a new day, the same month
        wire.sent(10, 100, 100);
        b.sample();
        assertThat(b.snapshot().today().sentBytes()).isEqualTo(200);
        assertThat(b.snapshot().month().sentBytes()).isEqualTo(1190 + 200);

        clock.advance(Duration.ofDays(1)); // 2027-01-01
        b.sample();
        assertThat(b.snapshot().month().period()).isEqualTo("2027-01");
        assertThat(b.snapshot().month().totalBytes()).isZero();
        assertThat(b.snapshot().topDevices()).isEmpty();
    }

    @Test
    void the_month_survives_a_restart_and_a_file_that_cannot_be_read_starts_it_again() throws Exception {
        DataBudget first = budget(Optional.empty());
        wire.sent(0, 5000, 5000);
        first.close(); // takes a last reading and writes it
        assertThat(dir.resolve("data-budget.json")).exists();
        DataBudget second = new DataBudget(new BudgetSettings(dir, Optional.empty()), new WireBytes(false), clock);
        assertThat(second.snapshot().month().sentBytes()).isEqualTo(5090);
        assertThat(second.snapshot().today().sentBytes()).isEqualTo(5090);
        Files.writeString(dir.resolve("data-budget.json"), "{not json");
        assertThat(budget(Optional.empty()).snapshot().month().totalBytes()).isZero();
    }

    @Test
    void the_alarms_come_at_80_and_100_percent_of_the_budget_and_name_the_device_that_uses_most() {
        DataBudget b = budget(Optional.of(10_000L));
        wire.sent(0, 7000, 7000);
        wire.events(List.of(event("dev-big", 7000)));
        b.sample();
        assertThat(b.alarms()).as("71 %").isEmpty();
        wire.sent(0, 1000, 1000);
        b.sample();
        assertThat(b.alarms()).singleElement().satisfies(a -> {
            assertThat(a.code()).isEqualTo("data_budget_warning");
            assertThat(a.message()).contains("82 % of ingest.dataBudget", "most by dev-big");
        });
        wire.sent(0, 2000, 2000);
        b.sample();
        assertThat(b.alarms()).singleElement().satisfies(a -> {
            assertThat(a.code()).isEqualTo("data_budget_exceeded");
            assertThat(a.message()).contains("nothing is dropped or held back");
        });
        assertThat(budget(Optional.empty()).alarms()).as("no budget, no alarm").isEmpty();
    }

    @Test
    void devices_beyond_the_bound_count_together_so_that_devices_cannot_grow_the_month() {
        DataBudget b = budget(Optional.empty());
        List<ClaimedEvent> events = new ArrayList<>();
        for (int i = 0; i < WireBytes.MAX_DEVICES + 500; i++) {
            events.add(event("dev-" + i, 10));
        }
        wire.events(events);
        b.sample();
        assertThat(wire.perDevice()).hasSize(WireBytes.MAX_DEVICES + 1);
        assertThat(wire.perDevice().get(WireBytes.OTHER_DEVICES)).isEqualTo(5000);
        DataBudget.Snapshot s = b.snapshot();
        assertThat(s.month().devices()).hasSize(WireBytes.MAX_DEVICES + 1);
        assertThat(s.topDevices())
                .hasSize(10)
                .first()
                .satisfies(d -> assertThat(d.deviceId()).isEqualTo(WireBytes.OTHER_DEVICES));
    }
}
