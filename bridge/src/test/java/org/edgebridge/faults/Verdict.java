package org.edgebridge.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceOutbox;
import org.edgebridge.device.DeviceSimulator;

/**
 * What a fault run did to the promise "every command applied at central exactly once, and its device told the
 * result". Everything is counted from two independent records: what each device sent and received (its own
 * outbox) and what central applied (the reference central's inbox). {@link #passed()} is true only if every
 * count of a wrong is zero, every planned command was created, applied and answered with a final receipt,
 * and every fault of the plan was seen to bite.
 *
 * <p>A site of several boxes behind a balancer ({@code severalBoxes}): each box numbers the commands it stores, so a
 * command resent to another box has another sequence there. Then the device's sequences are not compared with
 * central's, and order is what central counts per (edge, device) (orderingViolations, sequenceGaps).
 */
final class Verdict {
    private static final ObjectMapper JSON = new ObjectMapper();

    final int planned;
    final long created;
    final Map<String, Long> finalsByStatus = new TreeMap<>();
    final long applied;
    final long doubleApplications;
    final long orderingViolations;
    final long withoutFinal;
    final long lost;
    final long appliedNeverCreated;
    final long finalsDisagreeing;
    final long payloadMismatches;
    final long sessionsLostOnCleanRestart;
    final long cleanRestartReconnects;
    final List<String> deviceAnomalies = new ArrayList<>();
    final List<String> bridgeDeaths;
    final List<String> faultsNotSeen;
    final List<String> faultProblems;
    /** Commands the bridge's own outbox holds as not final after the drain (-1: it did not say). */
    final long openInBridgeOutbox;

    final List<String> examples = new ArrayList<>();

    Verdict(
            int planned,
            List<DeviceSimulator> devices,
            Inbox inbox,
            Set<Integer> cleanLives,
            List<String> bridgeDeaths,
            List<String> faultsNotSeen,
            List<String> faultProblems,
            long openInBridgeOutbox) {
        this(
                planned,
                devices,
                inbox,
                cleanLives,
                bridgeDeaths,
                faultsNotSeen,
                faultProblems,
                openInBridgeOutbox,
                false);
    }

    Verdict(
            int planned,
            List<DeviceSimulator> devices,
            Inbox inbox,
            Set<Integer> cleanLives,
            List<String> bridgeDeaths,
            List<String> faultsNotSeen,
            List<String> faultProblems,
            long openInBridgeOutbox,
            boolean severalBoxes) {
        this.planned = planned;
        this.openInBridgeOutbox = openInBridgeOutbox;
        this.faultProblems = List.copyOf(faultProblems);
        this.bridgeDeaths = List.copyOf(bridgeDeaths);
        this.faultsNotSeen = List.copyOf(faultsNotSeen);
        Map<String, Long> stats = inbox.stats();
        List<Inbox.Entry> entries = inbox.entries();

        Map<String, Inbox.Entry> atCentral = new HashMap<>();
        Map<String, Integer> applicationsOfCommand = new HashMap<>();
        Map<String, List<Long>> sequencesByDevice = new HashMap<>();
        for (Inbox.Entry e : entries) {
            atCentral.put(key(e.deviceId(), e.eventId()), e);
            // count by the commandId inside the payload, not by the key central deduplicated on
            applicationsOfCommand.merge(key(e.deviceId(), commandIdIn(e.payloadJson())), 1, Integer::sum);
            sequencesByDevice
                    .computeIfAbsent(e.deviceId(), d -> new ArrayList<>())
                    .add(e.sequence());
        }

        long createdCount = 0;
        long appliedCount = 0;
        long withoutFinalCount = 0;
        long lostCount = 0;
        long disagreeing = 0;
        long orderingOnDevice = 0;
        long sessionsLost = 0;
        long cleanReconnects = 0;
        Set<String> createdKeys = new java.util.HashSet<>();
        for (DeviceSimulator d : devices) {
            for (DeviceOutbox.Command c : d.outbox().commands()) {
                createdCount++;
                String key = key(d.clientId(), c.commandId());
                createdKeys.add(key);
                Inbox.Entry e = atCentral.get(key);
                if (e == null) {
                    lostCount++;
                    example("lost: " + key + " (final receipt " + c.finalStatus() + ")");
                } else {
                    appliedCount++;
                    if (!e.payloadSha256().equals(c.sha256())) {
                        disagreeing++;
                        example("central applied other bytes for " + key);
                    }
                    if (!severalBoxes && c.sequence() >= 0 && c.sequence() != e.sequence()) {
                        orderingOnDevice++;
                        example(key + ": receipts say sequence " + c.sequence() + ", central got " + e.sequence());
                    }
                }
                if (c.finalStatus() == null) {
                    withoutFinalCount++;
                    example("no final receipt: " + key + " (stored=" + c.stored() + ", sends=" + c.sends() + ")");
                    continue;
                }
                finalsByStatus.merge(c.finalStatus(), 1L, Long::sum);
                boolean applies =
                        c.finalStatus().equals("accepted") || c.finalStatus().equals("duplicate");
                long inboxIdInReceipt =
                        c.finalReceipt().path("result").path("inboxId").asLong(-1);
                if (!applies || e == null || inboxIdInReceipt != e.inboxId()) {
                    disagreeing++;
                    example("final receipt of " + key + " disagrees with central: " + c.finalReceipt()
                            + (e == null ? " / not at central" : " / central inboxId " + e.inboxId()));
                }
            }
            deviceAnomalies.addAll(d.outbox().anomalies().stream()
                    .map(a -> d.clientId() + ": " + a)
                    .toList());
            Set<Integer> seenLives = new java.util.HashSet<>();
            for (DeviceSimulator.Connack ack : d.connacks()) {
                if (cleanLives.contains(ack.bridgeLife()) && seenLives.add(ack.bridgeLife())) {
                    cleanReconnects++;
                    if (!ack.sessionPresent()) {
                        sessionsLost++;
                        example(d.clientId() + ": sessionPresent=0 after the clean restart into life "
                                + ack.bridgeLife());
                    }
                }
            }
        }
        long doubles = stats.get("sequenceConflicts");
        for (Map.Entry<String, Integer> a : applicationsOfCommand.entrySet()) {
            if (a.getValue() > 1) {
                doubles += a.getValue() - 1;
                example("applied " + a.getValue() + " times: " + a.getKey());
            }
        }
        long gaps = 0;
        for (Map.Entry<String, List<Long>> s :
                severalBoxes ? Map.<String, List<Long>>of().entrySet() : sequencesByDevice.entrySet()) {
            List<Long> sorted = s.getValue().stream().sorted().toList();
            for (int i = 0; i < sorted.size(); i++) {
                if (sorted.get(i) != i + 1) {
                    gaps++;
                    example(s.getKey() + ": applied sequences are not 1.." + sorted.size() + " without gaps");
                    break;
                }
            }
        }
        this.created = createdCount;
        this.applied = appliedCount;
        this.appliedNeverCreated = entries.stream()
                .filter(e -> !createdKeys.contains(key(e.deviceId(), e.eventId())))
                .count();
        this.doubleApplications = doubles;
        this.orderingViolations = stats.get("orderingViolations") + stats.get("sequenceGaps") + gaps + orderingOnDevice;
        this.withoutFinal = withoutFinalCount;
        this.lost = lostCount;
        this.finalsDisagreeing = disagreeing;
        this.payloadMismatches = stats.get("payloadMismatches");
        this.sessionsLostOnCleanRestart = sessionsLost;
        this.cleanRestartReconnects = cleanReconnects;
    }

    private static String key(String deviceId, String commandId) {
        return deviceId + "/" + commandId;
    }

    private static String commandIdIn(String payloadJson) {
        try {
            return JSON.readTree(payloadJson).path("commandId").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void example(String line) {
        if (examples.size() < 20) {
            examples.add(line);
        }
    }

    long finals() {
        return finalsByStatus.values().stream().mapToLong(Long::longValue).sum();
    }

    boolean passed() {
        return created == planned
                && applied == created
                && finals() == created
                && doubleApplications == 0
                && orderingViolations == 0
                && withoutFinal == 0
                && lost == 0
                && appliedNeverCreated == 0
                && finalsDisagreeing == 0
                && payloadMismatches == 0
                && sessionsLostOnCleanRestart == 0
                && deviceAnomalies.isEmpty()
                && bridgeDeaths.isEmpty()
                && faultsNotSeen.isEmpty()
                && faultProblems.isEmpty()
                && openInBridgeOutbox == 0;
    }

    String render() {
        StringBuilder b = new StringBuilder();
        row(b, "verdict", passed() ? "PASS" : "FAIL");
        row(b, "commands created", created + " (planned " + planned + ")");
        row(b, "final receipts", finals() + " " + finalsByStatus);
        row(b, "applied at central", applied);
        row(b, "double applications", doubleApplications);
        row(b, "ordering violations", orderingViolations);
        row(b, "without a final receipt", withoutFinal);
        row(b, "lost", lost);
        row(b, "open in the bridge's outbox", openInBridgeOutbox < 0 ? "unknown (no /api/status)" : openInBridgeOutbox);
        row(b, "applied, never created", appliedNeverCreated);
        row(b, "finals disagreeing with central", finalsDisagreeing);
        row(b, "payload mismatches at central", payloadMismatches);
        row(
                b,
                "sessions lost on clean restart",
                sessionsLostOnCleanRestart + " (of " + cleanRestartReconnects + " first reconnects after SIGTERM)");
        row(b, "device-side anomalies", deviceAnomalies.size());
        row(b, "bridge deaths not caused", bridgeDeaths.size() + (bridgeDeaths.isEmpty() ? "" : " " + bridgeDeaths));
        row(b, "faults that did not bite", faultsNotSeen.isEmpty() ? "none" : faultsNotSeen.toString());
        row(
                b,
                "wrongs seen during faults",
                faultProblems.size() + (faultProblems.isEmpty() ? "" : " " + faultProblems));
        deviceAnomalies.stream()
                .limit(10)
                .forEach(a -> b.append("  anomaly: ").append(a).append('\n'));
        examples.forEach(e -> b.append("  example: ").append(e).append('\n'));
        return b.toString();
    }

    private static void row(StringBuilder b, String name, Object value) {
        b.append(String.format("%-34s %s%n", name, value));
    }
}
