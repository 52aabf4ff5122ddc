package org.edgebridge.device;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A careful device's own outbox, as a careful device is written: each command with a stable commandId made
 * once, kept until a final receipt and sent again with the same bytes after a timeout (5 s before the bridge said
 * {@code stored}, then 15 s doubling to 60 s), after {@code retryAfterMs} on {@code retry_later}, and after every
 * reconnect ({@link #allDueAt}). It sends nothing itself: {@link #due} says what to send now.
 *
 * <p>It also checks every receipt against what was sent, and writes down anything a device could catch the
 * bridge doing wrong ({@link #anomalies()}).
 *
 * <p>Thread-safe (all state guarded by {@code this}; it calls nothing outside while holding it).
 */
public final class DeviceOutbox {
    /** Where the careful device's commands go: {@code devices/<clientId>/commands/workorder/update}. */
    static final String TOPIC_SUFFIX = "workorder/update";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    /** A command as the outbox holds it at one moment: what was sent, and what the receipts said of it. */
    public record Command(
            String commandId,
            byte[] payload,
            String sha256,
            int sends,
            boolean stored,
            long sequence,
            String finalStatus,
            JsonNode finalReceipt) {
        public boolean open() {
            return finalStatus == null;
        }
    }

    /** A command to send now. */
    record Due(String commandId, byte[] payload) {}

    private static final class Entry {
        final String commandId;
        final byte[] payload;
        final String sha256;
        int sends;
        long nextSendNanos;
        boolean stored;
        long sequence = -1;
        String finalStatus;
        JsonNode finalReceipt;

        Entry(String commandId, byte[] payload) {
            this.commandId = commandId;
            this.payload = payload;
            this.sha256 = sha256(payload);
        }

        boolean open() {
            return finalStatus == null;
        }

        Command snapshot() {
            return new Command(commandId, payload, sha256, sends, stored, sequence, finalStatus, finalReceipt);
        }
    }

    private final String clientId;
    private final FleetCounters counters;
    private final int toCreate;
    private final long firstCreateNanos;
    private final long createEveryNanos;
    /** From when every command not made yet is due ({@link #createTheRestNow}); never until then. */
    private long restDueAtNanos = Long.MAX_VALUE;
    /** Several boxes behind a balancer: each numbers the commands it stores, so a resent command may get a new sequence. */
    private final boolean severalBoxes;

    private final Map<String, Entry> commands = new LinkedHashMap<>();
    private final List<String> anomalies = new ArrayList<>();

    /** Makes {@code toCreate} commands, the first at {@code firstCreateNanos}, then one every {@code createEveryNanos}. */
    DeviceOutbox(
            String clientId,
            FleetCounters counters,
            int toCreate,
            long firstCreateNanos,
            long createEveryNanos,
            boolean severalBoxes) {
        this.severalBoxes = severalBoxes;
        this.clientId = clientId;
        this.counters = counters;
        this.toCreate = toCreate;
        this.firstCreateNanos = firstCreateNanos;
        this.createEveryNanos = createEveryNanos;
    }

    /** The commands not made yet are all made at the next {@link #createDue}, instead of one every interval. */
    public synchronized void createTheRestNow() {
        restDueAtNanos = Long.MIN_VALUE;
    }

    /** Puts the commands that are due by {@code now} into the outbox. */
    public synchronized void createDue(long now) {
        while (commands.size() < toCreate
                && (now >= restDueAtNanos || now >= firstCreateNanos + commands.size() * createEveryNanos)) {
            int n = commands.size() + 1;
            String commandId = clientId + "-c" + n;
            String nonce = Long.toHexString(ThreadLocalRandom.current().nextLong());
            String json = "{\"commandId\":\"" + commandId + "\",\"type\":\"workorder/update\",\"n\":" + n
                    + ",\"nonce\":\"" + nonce + "\",\"createdAt\":\"" + java.time.Instant.now() + "\"}";
            Entry c = new Entry(commandId, json.getBytes(StandardCharsets.UTF_8));
            c.nextSendNanos = now;
            commands.put(commandId, c);
            counters.created.increment();
        }
    }

    /** The open commands due by {@code now}, each counted as sent and given its next timeout. */
    synchronized List<Due> due(long now) {
        List<Due> due = new ArrayList<>();
        for (Entry c : commands.values()) {
            if (c.open() && now >= c.nextSendNanos) {
                if (c.sends > 0) {
                    counters.resends.increment();
                }
                c.sends++;
                c.nextSendNanos = now + resendDelay(c);
                due.add(new Due(c.commandId, c.payload));
            }
        }
        return due;
    }

    private static long resendDelay(Entry c) {
        if (!c.stored) {
            return 5 * SECOND;
        }
        return Math.min(60 * SECOND, 15 * SECOND << Math.min(2, Math.max(0, c.sends - 1)));
    }

    /** After a reconnect: every open command goes out again at {@code now}. */
    synchronized void allDueAt(long now) {
        for (Entry c : commands.values()) {
            c.nextSendNanos = now;
        }
    }

    synchronized void anomaly(String what) {
        anomalies.add(what);
    }

    /** A receipt arrived: checked against what was sent, and the command's state follows it. */
    synchronized void receive(byte[] bytes) {
        counters.receipts.increment();
        JsonNode r;
        try {
            r = JSON.readTree(bytes);
        } catch (IOException e) {
            anomalies.add("receipt is not JSON: " + new String(bytes, StandardCharsets.UTF_8));
            return;
        }
        String commandId = r.path("commandId").asText(null);
        Entry c = commandId == null ? null : commands.get(commandId);
        if (c == null) {
            anomalies.add("receipt for a command this device never sent: " + r);
            return;
        }
        if (!c.sha256.equals(r.path("payloadSha256").asText())) {
            anomalies.add("receipt names other payload bytes than the command's: " + r);
        }
        if (r.path("replayed").asBoolean()) {
            counters.replayed.increment();
        }
        String status = r.path("status").asText();
        boolean isFinal = r.path("final").asBoolean();
        boolean shouldBeFinal = !status.equals("stored") && !status.equals("retry_later");
        if (isFinal != shouldBeFinal) {
            anomalies.add("receipt status " + status + " with final=" + isFinal + ": " + r);
        }
        if (r.hasNonNull("sequence")) {
            long sequence = r.get("sequence").asLong();
            if (c.sequence >= 0 && c.sequence != sequence && !severalBoxes) {
                anomalies.add(commandId + " got sequence " + sequence + " after " + c.sequence + ": stored twice?");
            }
            c.sequence = sequence;
        }
        switch (status) {
            case "stored" -> c.stored = true;
            case "retry_later" -> {
                counters.retryLater(r.path("code").asText("(none)"));
                long after = r.path("retryAfterMs").asLong(1000);
                // a patient device would wait all of it; capped so that a test run ends in its time
                c.nextSendNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(after, 10_000));
            }
            case "accepted", "duplicate", "rejected" -> {
                c.stored = true;
                if (c.finalStatus == null) {
                    c.finalStatus = status;
                    c.finalReceipt = r;
                } else if (!c.finalStatus.equals(status)) {
                    anomalies.add(commandId + " got final " + status + " after final " + c.finalStatus);
                }
            }
            default -> anomalies.add("receipt with an unknown status: " + r);
        }
    }

    public synchronized long openCount() {
        return commands.values().stream().filter(Entry::open).count();
    }

    /** Every planned command made, and each has its final receipt. */
    public synchronized boolean allFinal() {
        return commands.size() == toCreate && commands.values().stream().noneMatch(Entry::open);
    }

    /** The commands as they are now, in creation order. */
    public synchronized List<Command> commands() {
        return commands.values().stream().map(Entry::snapshot).toList();
    }

    public synchronized List<String> anomalies() {
        return List.copyOf(anomalies);
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
