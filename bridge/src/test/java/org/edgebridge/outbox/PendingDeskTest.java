package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.edgebridge.code.ReceiptCode;
import org.junit.jupiter.api.Test;

/** An admin's park and reject of a pending command ({@link PendingDesk}) against a real SQLite file. */
class PendingDeskTest extends OutboxOnFile {
    private static final Instant T0 = Instant.parse("2026-12-06T01:00:00Z");

    PendingDeskTest() {
        super(T0);
    }

    private void store(String device, String... ids) {
        for (String id : ids) {
            outbox.store(List.of(OutboxFixture.command(device, id, 0, T0)));
        }
    }

    private List<String> claim(String batch) {
        return outbox.claim(100, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, batch).stream()
                .map(ClaimedEvent::commandId)
                .toList();
    }

    private CommandRecord row(String device, String id) {
        return outbox.find(device, id).orElseThrow();
    }

    private List<String> historyKinds(String device, String id) {
        return outbox.reads().history(row(device, id).id()).stream()
                .map(HistoryEntry::kind)
                .toList();
    }

    @Test
    void a_parked_pending_command_holds_its_device_until_requeued_and_other_devices_go_on() {
        store("a", "a1", "a2");
        store("b", "b1");
        PendingDesk.Action parked = outbox.pendingDesk()
                .park("a", "a1", "by an admin from 127.0.0.1")
                .orElseThrow();
        assertThat(parked.before().state()).isEqualTo(CommandState.PENDING);
        assertThat(parked.maybeSent()).isFalse();
        CommandRecord after = parked.after().orElseThrow();
        assertThat(after.state()).isEqualTo(CommandState.PARKED);
        assertThat(after.code()).isEqualTo(ReceiptCode.PARKED_BY_ADMIN.wire());
        assertThat(after.lastError()).startsWith("parked by an admin");
        assertThat(outbox.openCount()).as("parked is still open").isEqualTo(3);
        assertThat(outbox.parked().list(ReceiptCode.PARKED_BY_ADMIN.wire(), null, 10))
                .extracting(CommandRecord::commandId)
                .containsExactly("a1");
        assertThat(historyKinds("a", "a1")).containsExactly("parked_by_admin");
        assertThat(outbox.reads().history(after.id()).get(0).detail())
                .isEqualTo("by an admin from 127.0.0.1, while pending (never sent to central)");

        assertThat(claim("c1"))
                .as("a2 waits behind its parked predecessor; b goes on")
                .containsExactly("b1");

        outbox.parked().decide(List.of(after.id()), ParkedDesk.Decision.REQUEUE, "by an admin");
        assertThat(row("a", "a1").state()).isEqualTo(CommandState.PENDING);
        assertThat(row("a", "a1").code()).isNull();
        assertThat(claim("c2")).containsExactly("a1", "a2");
    }

    @Test
    void a_later_command_parked_stops_its_device_after_the_commands_before_it() {
        store("a", "a1", "a2", "a3");
        outbox.pendingDesk().park("a", "a2", "by an admin").orElseThrow();
        assertThat(claim("c1")).containsExactly("a1");
    }

    @Test
    void a_parked_pending_command_can_be_rejected_from_the_desk() {
        store("a", "a1", "a2");
        CommandRecord parked = outbox.pendingDesk()
                .park("a", "a1", "by an admin")
                .orElseThrow()
                .after()
                .orElseThrow();
        List<CommandRecord> rejected =
                outbox.parked().decide(List.of(parked.id()), ParkedDesk.Decision.REJECT, "by an admin");
        assertThat(rejected).extracting(CommandRecord::state).containsExactly(CommandState.REJECTED);
        assertThat(rejected.get(0).code()).isEqualTo("rejected_by_admin");
        assertThat(historyKinds("a", "a1")).containsExactly("parked_by_admin", "rejected_by_admin");
        assertThat(claim("c1")).containsExactly("a2");
    }

    @Test
    void a_command_never_sent_is_rejected_while_pending_and_its_receipt_waits_to_be_published() {
        store("a", "a1", "a2");
        claim("c1");
        // both claims provably stayed here (e.g. the circuit breaker was open): central never saw them
        outbox.releaseUnsentClaim("c1", "breaker open");
        PendingDesk.Action done = outbox.pendingDesk()
                .reject("a", "a1", "by an admin from 127.0.0.1")
                .orElseThrow();
        assertThat(done.maybeSent()).isFalse();
        CommandRecord after = done.after().orElseThrow();
        assertThat(after.state()).isEqualTo(CommandState.REJECTED);
        assertThat(after.code()).isEqualTo(ReceiptCode.REJECTED_BY_ADMIN.wire());
        assertThat(after.message()).contains("central never saw it");
        assertThat(after.finalAt()).contains(T0);
        assertThat(outbox.openCount()).isEqualTo(1);
        assertThat(outbox.unpublishedFinals(10))
                .extracting(CommandRecord::commandId)
                .containsExactly("a1");
        assertThat(historyKinds("a", "a1")).startsWith("attempt").endsWith("rejected_by_admin");
        assertThat(claim("c2")).as("the device's next command goes").containsExactly("a2");
    }

    @Test
    void a_command_that_may_have_reached_central_is_rejected_with_that_said() {
        store("a", "a1");
        claim("c1");
        outbox.releaseClaim("c1", "timeout: central may have applied it");
        PendingDesk.Action done =
                outbox.pendingDesk().reject("a", "a1", "by an admin").orElseThrow();
        assertThat(done.maybeSent()).isTrue();
        assertThat(done.after().orElseThrow().message()).contains("sent to central before, which may have applied it");
        assertThat(outbox.reads().history(done.before().id()))
                .last()
                .satisfies(h -> assertThat(h.detail()).contains("it may have reached central: 1 attempts so far"));
    }

    @Test
    void in_flight_parked_and_final_commands_are_left_as_they_are() {
        store("a", "a1", "a2");
        store("b", "b1");
        assertThat(claim("c1")).containsExactly("a1", "a2", "b1");
        PendingDesk.Action inFlight =
                outbox.pendingDesk().park("a", "a1", "by an admin").orElseThrow();
        assertThat(inFlight.after()).isEmpty();
        assertThat(inFlight.before().state()).isEqualTo(CommandState.INFLIGHT);
        assertThat(outbox.pendingDesk()
                        .reject("a", "a1", "by an admin")
                        .orElseThrow()
                        .after())
                .isEmpty();
        assertThat(row("a", "a1").state()).isEqualTo(CommandState.INFLIGHT);

        outbox.settle(
                "c1",
                List.of(
                        new Settlement.Final(row("a", "a1").id(), CommandState.ACCEPTED, null, null, "{}"),
                        new Settlement.Park(row("a", "a2").id(), "ingest_server_error", "central failed on it alone"),
                        new Settlement.Release(row("b", "b1").id(), "dropped")),
                50);
        assertThat(outbox.pendingDesk()
                        .park("a", "a1", "by an admin")
                        .orElseThrow()
                        .after())
                .as("final")
                .isEmpty();
        assertThat(outbox.pendingDesk()
                        .reject("a", "a1", "by an admin")
                        .orElseThrow()
                        .after())
                .as("final")
                .isEmpty();
        assertThat(outbox.pendingDesk()
                        .park("a", "a2", "by an admin")
                        .orElseThrow()
                        .after())
                .as("parked")
                .isEmpty();
        assertThat(row("a", "a1").state()).isEqualTo(CommandState.ACCEPTED);
        assertThat(row("a", "a2").code()).isEqualTo("ingest_server_error");
        assertThat(historyKinds("a", "a2")).doesNotContain("parked_by_admin", "rejected_by_admin");
        assertThat(outbox.pendingDesk().park("a", "nope", "by an admin")).isEmpty();
        assertThat(outbox.pendingDesk().reject("nobody", "a1", "by an admin")).isEmpty();
        assertThat(outbox.openCount()).isEqualTo(2);

        PendingDesk.Action parked =
                outbox.pendingDesk().reject("a", "a2", "by an admin").orElseThrow();
        assertThat(parked.after()).as("a parked one is rejected too").isPresent();
        assertThat(parked.after().get().code()).isEqualTo("rejected_by_admin");
        assertThat(parked.maybeSent()).isTrue();
        assertThat(outbox.reads().history(parked.before().id()))
                .last()
                .satisfies(h ->
                        assertThat(h.detail()).startsWith("by an admin, while parked (it may have reached central"));
        assertThat(outbox.openCount()).isEqualTo(1);
    }
}
