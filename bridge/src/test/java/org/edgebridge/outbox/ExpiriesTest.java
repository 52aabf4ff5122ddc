package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.edgebridge.intake.TestHashes;
import org.junit.jupiter.api.Test;

/** Commands that must not run late (docs/protocol.md §1.4), against a real SQLite file. */
class ExpiriesTest extends OutboxOnFile {
    private static final Instant T0 = Instant.parse("2026-12-02T06:00:00Z");

    ExpiriesTest() {
        super(T0);
    }

    private static NewCommand command(String device, String id, Instant receivedAt, Instant expiresAt) {
        byte[] payload = ("{\"commandId\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
        return new NewCommand(
                device,
                id,
                "devices/" + device + "/commands/t",
                "t",
                payload,
                TestHashes.sha256(payload),
                receivedAt,
                Optional.ofNullable(expiresAt));
    }

    private List<ClaimedEvent> claim(String batchId) {
        return outbox.claim(100, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, batchId);
    }

    @Test
    void a_command_whose_expiry_passed_before_it_arrived_is_not_stored_but_a_resend_of_a_stored_one_gets_its_record() {
        NewCommand fresh = command("a", "A-1", T0, T0.plusSeconds(60));
        assertThat(outbox.store(List.of(fresh)).get(0)).isInstanceOf(StoreResult.Stored.class);
        NewCommand late = command("a", "A-2", T0, T0);
        assertThat(outbox.store(List.of(late)).get(0)).isInstanceOf(StoreResult.Expired.class);
        assertThat(outbox.find("a", "A-2")).isEmpty();
        NewCommand resendAfterExpiry = command("a", "A-1", T0.plusSeconds(120), T0.plusSeconds(60));
        assertThat(outbox.store(List.of(resendAfterExpiry)).get(0)).isInstanceOf(StoreResult.AlreadyStored.class);
    }

    @Test
    void an_unsent_command_becomes_final_at_its_expiry_and_its_device_waits_until_central_was_told() {
        outbox.store(List.of(
                command("a", "A-1", T0, T0.plusSeconds(10)),
                command("a", "A-2", T0, null),
                command("b", "B-1", T0, null)));
        clock.advance(Duration.ofSeconds(5));
        assertThat(outbox.expiries().expireDue()).as("not yet").isEmpty();
        clock.advance(Duration.ofSeconds(5));
        List<CommandRecord> expired = outbox.expiries().expireDue();
        assertThat(expired).singleElement().satisfies(r -> {
            assertThat(r.commandId()).isEqualTo("A-1");
            assertThat(r.state()).isEqualTo(CommandState.REJECTED);
            assertThat(r.code()).isEqualTo("expired");
            assertThat(r.finalAt()).contains(clock.instant());
        });
        assertThat(outbox.reads().history(expired.get(0).id()))
                .extracting(HistoryEntry::kind)
                .contains("expired");
        assertThat(outbox.openCount()).isEqualTo(2);
        assertThat(claim("b-1"))
                .extracting(ClaimedEvent::commandId)
                .as("a waits for the report")
                .containsExactly("B-1");
        List<Expiries.Expired> unreported = outbox.expiries().unreported(100);
        assertThat(unreported)
                .singleElement()
                .isEqualTo(new Expiries.Expired(expired.get(0).id(), "a", "A-1", 1, T0.plusSeconds(10)));
        outbox.expiries().reported(unreported);
        assertThat(outbox.expiries().unreported(100)).isEmpty();
        assertThat(claim("b-2")).extracting(ClaimedEvent::commandId).containsExactly("A-2");
    }

    @Test
    void a_command_sent_before_is_not_expired_here_central_decides_by_the_expiry_it_carries() {
        outbox.store(List.of(command("a", "A-1", T0, T0.plusSeconds(10))));
        List<ClaimedEvent> sent = claim("b-1");
        assertThat(sent.get(0).expiresAt()).contains(T0.plusSeconds(10));
        outbox.releaseClaim("b-1", "central timed out");
        clock.advance(Duration.ofSeconds(30));
        assertThat(outbox.expiries().expireDue())
                .as("central may have applied it")
                .isEmpty();
        assertThat(claim("b-2")).extracting(ClaimedEvent::commandId).containsExactly("A-1");
    }

    @Test
    void a_command_whose_claims_never_reached_central_still_expires_here() {
        outbox.store(List.of(command("a", "A-1", T0, T0.plusSeconds(10))));
        for (int i = 1; i <= 3; i++) {
            assertThat(claim("b-" + i)).hasSize(1);
            outbox.releaseUnsentClaim("b-" + i, "central unreachable: connection refused");
        }
        clock.advance(Duration.ofSeconds(10));
        assertThat(outbox.expiries().expireDue())
                .extracting(CommandRecord::commandId)
                .containsExactly("A-1");
    }

    @Test
    void an_expired_command_not_swept_yet_is_not_claimed_and_holds_its_device_back() {
        outbox.store(List.of(command("a", "A-1", T0, T0.plusSeconds(10)), command("a", "A-2", T0, null)));
        clock.advance(Duration.ofSeconds(11));
        assertThat(claim("b-1")).isEmpty();
        assertThat(outbox.expiries().expireDue()).hasSize(1);
    }

    @Test
    void an_expired_command_central_was_not_told_of_is_not_purged() {
        outbox.store(List.of(command("a", "A-1", T0, T0.plusSeconds(1))));
        clock.advance(Duration.ofSeconds(2));
        outbox.expiries().expireDue();
        clock.advance(Duration.ofDays(30));
        assertThat(outbox.purgeFinalBefore(clock.instant(), 100)).isZero();
        outbox.expiries().reported(outbox.expiries().unreported(100));
        assertThat(outbox.purgeFinalBefore(clock.instant(), 100)).isEqualTo(1);
    }

    @Test
    void expiry_survives_a_reopen() {
        outbox.store(List.of(command("a", "A-1", T0, T0.plusSeconds(10))));
        outbox.close();
        outbox = Outbox.open(dir.resolve("outbox.db"), clock);
        clock.advance(Duration.ofSeconds(10));
        assertThat(outbox.expiries().expireDue())
                .extracting(CommandRecord::commandId)
                .containsExactly("A-1");
        outbox.close();
        outbox = Outbox.open(dir.resolve("outbox.db"), clock);
        assertThat(outbox.expiries().unreported(100))
                .extracting(Expiries.Expired::commandId)
                .containsExactly("A-1");
    }
}
