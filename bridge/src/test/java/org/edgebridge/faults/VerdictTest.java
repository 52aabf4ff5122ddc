package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceOutbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fault suite's verdict must be impossible to pass with any wrong: a clean run passes, and each single wrong
 * (planted into otherwise clean records of a device and central) fails it.
 */
class VerdictTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int COMMANDS = 3;

    /** One wrong, planted into an otherwise clean run. */
    enum Wrong {
        COMMAND_LOST("lost"),
        NO_FINAL_RECEIPT("without a final receipt"),
        STORED_TWICE_UNDER_TWO_SEQUENCES("double applications"),
        SENT_BEFORE_THE_ONE_AHEAD_OF_IT("ordering violations"),
        APPLIED_OUT_OF_ORDER("ordering violations"),
        FINAL_REJECTED("finals disagreeing with central"),
        FINAL_WITH_ANOTHER_RESULT("finals disagreeing with central"),
        RECEIPT_FOR_OTHER_BYTES("device-side anomalies"),
        OPEN_IN_THE_BRIDGE("open in the bridge's outbox"),
        FAULT_DID_NOT_BITE("faults that did not bite"),
        WRONG_DURING_A_FAULT("wrongs seen during faults"),
        BRIDGE_DIED("bridge deaths not caused"),
        SESSION_LOST_ON_CLEAN_RESTART("sessions lost on clean restart"),
        FEWER_COMMANDS_THAN_PLANNED("commands created");

        /** The verdict line that must show it. */
        final String line;

        Wrong(String line) {
            this.line = line;
        }
    }

    @Test
    void a_clean_run_passes() throws Exception {
        Verdict v = run(null);
        assertThat(v.passed()).as(v.render()).isTrue();
        assertThat(v.render()).contains("verdict                            PASS");
    }

    @ParameterizedTest
    @EnumSource(Wrong.class)
    void any_single_wrong_fails_the_verdict(Wrong wrong) throws Exception {
        Verdict v = run(wrong);
        assertThat(v.passed()).as(wrong + "\n" + v.render()).isFalse();
        assertThat(v.render()).contains("verdict                            FAIL");
        String value = v.render()
                .lines()
                .filter(l -> l.startsWith(wrong.line + " "))
                .findFirst()
                .orElseThrow()
                .substring(35);
        assertThat(value)
                .as("the line '" + wrong.line + "' shows it")
                .doesNotStartWith("0")
                .isNotEqualTo("none")
                .doesNotStartWith(String.valueOf(COMMANDS) + " (planned " + COMMANDS + ")");
    }

    /** A device with three commands, central applying them, and the device getting their finals; then one wrong. */
    private static Verdict run(Wrong wrong) throws Exception {
        // careful, never connected: the test plays the receipts
        DeviceSimulator device =
                DeviceSimulator.builder("dev-1", 1).careful(COMMANDS, 0, 1).build();
        device.outbox().createDue(COMMANDS);
        List<DeviceOutbox.Command> commands = device.outbox().commands();
        Inbox inbox = new Inbox(Clock.systemUTC());
        int[] order = wrong == Wrong.APPLIED_OUT_OF_ORDER
                ? new int[] {0, 2, 1}
                : wrong == Wrong.SENT_BEFORE_THE_ONE_AHEAD_OF_IT ? new int[] {1, 0, 2} : new int[] {0, 1, 2};
        long[] inboxIds = new long[COMMANDS];
        for (int i : order) {
            DeviceOutbox.Command c = commands.get(i);
            if (wrong == Wrong.COMMAND_LOST && i == 2) {
                continue;
            }
            Inbox.Answer a = inbox.apply(
                    "edge-01",
                    "dev-1",
                    c.commandId(),
                    i + 1,
                    c.sha256(),
                    new String(c.payload(), StandardCharsets.UTF_8));
            inboxIds[i] = JSON.readTree(a.resultJson()).get("inboxId").asLong();
        }
        if (wrong == Wrong.STORED_TWICE_UNDER_TWO_SEQUENCES) {
            DeviceOutbox.Command c = commands.get(1);
            inbox.apply(
                    "edge-01", "dev-1", c.commandId(), 4, c.sha256(), new String(c.payload(), StandardCharsets.UTF_8));
        }
        for (int i = 0; i < COMMANDS; i++) {
            DeviceOutbox.Command c = commands.get(i);
            if (wrong == Wrong.NO_FINAL_RECEIPT && i == 1) {
                continue;
            }
            ObjectNode r = JSON.createObjectNode();
            r.put("commandId", c.commandId());
            r.put("status", wrong == Wrong.FINAL_REJECTED && i == 0 ? "rejected" : "accepted");
            r.put("final", true);
            r.putObject("result").put("inboxId", wrong == Wrong.FINAL_WITH_ANOTHER_RESULT && i == 0 ? 99 : inboxIds[i]);
            r.put("sequence", i + 1);
            r.put("payloadSha256", wrong == Wrong.RECEIPT_FOR_OTHER_BYTES && i == 0 ? "00" : c.sha256());
            r.put("replayed", false);
            device.receive(JSON.writeValueAsBytes(r));
        }
        Set<Integer> cleanLives = wrong == Wrong.SESSION_LOST_ON_CLEAN_RESTART ? Set.of(2) : Set.of();
        if (wrong == Wrong.SESSION_LOST_ON_CLEAN_RESTART) {
            device.recordConnack(new DeviceSimulator.Connack(2, false));
        }
        int planned = wrong == Wrong.FEWER_COMMANDS_THAN_PLANNED ? COMMANDS + 1 : COMMANDS;
        return new Verdict(
                planned,
                List.of(device),
                inbox,
                cleanLives,
                wrong == Wrong.BRIDGE_DIED ? List.of("life 2 ended on its own with exit code 1") : List.of(),
                wrong == Wrong.FAULT_DID_NOT_BITE ? List.of("CENTRAL_503") : List.of(),
                wrong == Wrong.WRONG_DURING_A_FAULT ? List.of("DISK_FULL: /health/ready answered 200") : List.of(),
                wrong == Wrong.OPEN_IN_THE_BRIDGE ? 1 : 0);
    }
}
