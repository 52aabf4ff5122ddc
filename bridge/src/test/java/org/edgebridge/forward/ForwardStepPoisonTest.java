package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.ParkedDesk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One forwarder step at a time against the reference central: an event that makes central fail is isolated and
 * parked, and its neighbours go on (docs/forwarding.md, "Blame").
 */
class ForwardStepPoisonTest {
    @TempDir
    Path dir;

    @Test
    void an_event_that_alone_makes_central_fail_is_isolated_and_parked_while_the_others_go_on() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.poison("P-2", 500));
            for (int i = 1; i <= 3; i++) {
                rig.store("p", "P-" + i, "");
                rig.store("q", "Q-" + i, "");
                rig.store("r", "R-" + i, "");
            }
            rig.runWithNeighbour(() -> rig.record("p", "P-2").state() == CommandState.PARKED, 60);
            assertThat(rig.record("p", "P-2").code()).isEqualTo("ingest_server_error");
            assertThat(rig.finalsOf("P-1")).containsExactly("accepted");
            for (int i = 1; i <= 3; i++) {
                assertThat(rig.finalsOf("Q-" + i)).containsExactly("accepted");
                assertThat(rig.finalsOf("R-" + i)).containsExactly("accepted");
            }
            assertThat(rig.record("p", "P-3").state())
                    .as("waits behind the parked one")
                    .isEqualTo(CommandState.PENDING);
            assertThat(rig.status().parked()).isEqualTo(1);
        }
    }

    @Test
    void an_event_that_fails_alone_while_central_fails_other_requests_too_takes_more_failures_to_be_parked() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            // central fails whole requests first (both halves of each bisection): no event to blame, central is flaky
            rig.central.faults(Faults.status(500, null, 12));
            for (int d = 1; d <= 4; d++) {
                rig.store("w" + d, "W-" + d, "");
            }
            rig.runUntil(() -> rig.central.inbox().entries().size() == 4, 2_000);
            ForwarderStatus.ServerErrors evidence = rig.status().serverErrors();
            assertThat(evidence.raised()).as("%s", evidence).isTrue();
            int limit = evidence.failuresToPark();
            rig.central.faults(Faults.poison("P-1", 500));
            rig.store("p", "P-1", "");
            rig.store("q", "Q-1", "");
            rig.runWithNeighbour(() -> rig.record("p", "P-1").state() == CommandState.PARKED, 400);
            // the failures before the one that parks it: more than the rig's maxServerErrors=2 asks for
            assertThat(rig.failedAlone("p", "P-1")).isGreaterThan(1).isLessThan(limit);
            assertThat(rig.record("p", "P-1").lastError()).contains("more while central fails other requests too");
            assertThat(rig.finalsOf("Q-1")).containsExactly("accepted");
        }
    }

    @Test
    void suspects_are_not_sent_one_after_another_while_central_answers_nothing_and_none_of_them_is_counted()
            throws Exception {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            for (int d = 1; d <= 6; d++) {
                rig.store("s" + d, "S-" + d, "");
            }
            makeSuspects(rig, "S-%");
            rig.central.faults(Faults.status(500, null, -1)); // central fails everything: not one event's doing
            for (int i = 0; i < 10; i++) {
                int before = rig.central.requestLog().size();
                rig.step();
                assertThat(rig.central.requestLog().size() - before)
                        .as("at most one request: no other traffic")
                        .isLessThanOrEqualTo(1);
                rig.clock.advance(Duration.ofSeconds(1));
            }
            for (int d = 1; d <= 6; d++) {
                assertThat(rig.record("s" + d, "S-" + d).state()).isEqualTo(CommandState.PENDING);
                assertThat(rig.failedAlone("s" + d, "S-" + d))
                        .as("not counted toward parking")
                        .isZero();
            }
            rig.central.faults(Faults.NONE);
            rig.runUntil(() -> rig.central.inbox().entries().size() == 6, 60);
            for (int d = 1; d <= 6; d++) {
                assertThat(rig.finalsOf("S-" + d)).containsExactly("accepted");
            }
        }
    }

    @Test
    void a_later_suspect_of_a_device_waits_until_its_earlier_one_is_final() throws Exception {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.store("a", "A-1", "");
            rig.store("a", "A-2", "");
            rig.store("b", "B-1", "");
            makeSuspects(rig, "A-%");
            rig.central.faults(Faults.poison("A-1", 500));
            rig.step();
            assertThat(rig.finalsOf("B-1")).containsExactly("accepted");
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .as("A-2 is not sent while A-1, ahead of it, failed")
                    .containsExactly("B-1");
            assertThat(rig.record("a", "A-2").state()).isEqualTo(CommandState.PENDING);
            assertThat(rig.record("a", "A-1").state())
                    .as("its second failure alone (the rig's maxServerErrors)")
                    .isEqualTo(CommandState.PARKED);
            rig.central.faults(Faults.NONE);
            assertThat(rig.outbox
                            .parked()
                            .decide(List.of(rig.record("a", "A-1").id()), ParkedDesk.Decision.REQUEUE, "by a test"))
                    .hasSize(1);
            rig.runUntil(() -> rig.central.inbox().entries().size() == 3, 60);
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("B-1", "A-1", "A-2");
        }
    }

    /** Marks the commands as having made central fail alone once before (e.g. before a restart): suspects. */
    private static void makeSuspects(ForwarderRig rig, String commandIdPattern) {
        rig.sqlOnTheFile("UPDATE commands SET central_failures = 1 WHERE command_id LIKE '" + commandIdPattern + "'");
    }
}
