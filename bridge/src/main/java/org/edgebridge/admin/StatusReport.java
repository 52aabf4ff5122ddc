package org.edgebridge.admin;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.edgebridge.broker.BrokerStatus;
import org.edgebridge.broker.BrokerStoreResets;
import org.edgebridge.broker.BrokerView;
import org.edgebridge.broker.CertificateDevices;
import org.edgebridge.broker.DeviceView;
import org.edgebridge.code.AlarmCode;
import org.edgebridge.forward.ForwarderControl;
import org.edgebridge.forward.ForwarderStatus;
import org.edgebridge.intake.IntakeView;
import org.edgebridge.lifecycle.ExitCodes;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.OutboxCounts;
import org.edgebridge.outbox.RetentionPurger;
import org.edgebridge.storage.FsyncProbe;
import org.edgebridge.storage.StorageHonesty;
import org.edgebridge.worker.Workers;
import org.jspecify.annotations.Nullable;

/** Gathers the status records of every part into the shape of {@code GET /api/status}. Thread-safe. */
public final class StatusReport {
    /**
     * Which box this is: its {@code edge.id}, and whether devices reach it through a load balancer
     * ({@code edge.behindBalancer}, docs/scale-out.md); where the tokens come from ({@code file <path>}, {@code inline}
     * or {@code none}; never the token): {@code ingest.token(File)} and {@code admin.token(File)}.
     */
    /**
     * Where central is ({@code ingest.url}), how request bodies go to it ({@code ingest.compression}: none or gzip),
     * through which proxy ({@code ingest.proxy}, or {@code direct}), and which client certificate it is shown
     * ({@code file <ingest.certFile>} or {@code none}; what it is now: {@code forwarder.clientCertificate}), and where
     * its bearer token comes from: {@code oauth2 <ingest.oauth2.tokenUrl> as <clientId>} ({@code forwarder.oauth2}),
     * or {@code none} (then {@code site.ingestToken} says whether a fixed one is set). Never a secret.
     */
    public record Central(String url, String compression, String proxy, String clientCertificate, String oauth2) {}

    public record Site(String edgeId, boolean behindBalancer, String ingestToken, String adminToken) {}

    private final Site site;
    private final AdminOutbox outbox;
    private final BrokerView broker;
    private final IntakeView intake;
    private final ForwarderControl forwarder;
    private final RetentionPurger retention;
    private final Clock clock;
    private final Central central;

    private final Workers workers;
    private final StorageHonesty storage;

    StatusReport(
            Site site,
            AdminOutbox outbox,
            BrokerView broker,
            IntakeView intake,
            ForwarderControl forwarder,
            RetentionPurger retention,
            Workers workers,
            Clock clock,
            Central central,
            StorageHonesty storage) {
        this.workers = workers;
        this.storage = storage;
        this.central = central;
        this.site = site;
        this.outbox = outbox;
        this.broker = broker;
        this.intake = intake;
        this.forwarder = forwarder;
        this.retention = retention;
        this.clock = clock;
    }

    /** The first worker thread that died, if one did: the bridge is then not ready. */
    Optional<String> workerDeath() {
        return workers.death();
    }

    boolean brokerRunning() {
        return broker.isRunning();
    }

    /**
     * The outbox takes writes: no intake write failed lately, no answer of central is waiting to be committed,
     * and a write transaction commits now.
     */
    boolean outboxWritable() {
        return intake.writeFailure().isEmpty() && forwarder.status().unsettledEvents() == 0 && outbox.isWritable();
    }

    /** What a load balancer's health check needs: ready only when the broker, the outbox and the forwarder are. */
    Readiness readiness() {
        return Readiness.of(
                brokerRunning(),
                outboxWritable(),
                !forwarder.status().state().equals("stopped"),
                intake.isAccepting(),
                workerDeath().isEmpty());
    }

    /** One alarm on the status page: a stable code and a sentence for the admin. */
    public record Alarm(String code, String message) {
        public Alarm(AlarmCode code, String message) {
            this(code.wire(), message);
        }
    }

    public Map<String, Object> snapshot() {
        BrokerStatus b = broker.status();
        OutboxCounts counts = outbox.reads().counts();
        ForwarderStatus f = forwarder.status();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("edgeId", site.edgeId());
        out.put("site", site);
        out.put("ready", readiness());
        out.put("time", clock.instant());
        out.put("broker", b);
        CertificateDevices certificates = broker.certificateDevices();
        out.put(
                "certificateDevices",
                Map.of(
                        "remembered",
                        certificates.remembered(),
                        "max",
                        certificates.max(),
                        "notRemembered",
                        certificates.notRemembered(),
                        "refusedWithoutCertificate",
                        certificates.refusedWithoutCertificate()));
        Map<String, Object> o = new LinkedHashMap<>();
        Map<String, Long> perState = new LinkedHashMap<>();
        for (CommandState s : CommandState.values()) {
            perState.put(s.dbName(), counts.count(s));
        }
        o.put("counts", perState);
        o.put("open", outbox.openCount());
        o.put("full", intake.isFull());
        o.put("lowDisk", intake.isLowOnDisk());
        o.put("freePageBytes", freePageBytes());
        o.put("maxPendingPerDevice", intake.deviceShare().maxCommands());
        o.put("maxPendingBytesPerDevice", intake.deviceShare().maxBytes());
        o.put("devicesAtShare", intake.devicesAtShare());
        o.put("deviceShareRefusals", intake.deviceShareRefusals());
        o.put("retention", retention.status());
        o.put(
                "oldestPendingAgeMs",
                counts.oldestPendingReceivedAt()
                        .map(t -> Duration.between(t, clock.instant()).toMillis())
                        .orElse(null));
        out.put("outbox", o);
        Map<String, Object> i = new LinkedHashMap<>();
        i.put("received", intake.stats().received());
        i.put("stored", intake.stats().stored());
        i.put("replayed", intake.stats().replayed());
        i.put("retryLater", intake.stats().retryLater());
        i.put("storeFailures", intake.stats().storeFailures());
        i.put("writeFailure", intake.writeFailure().orElse(null));
        i.put("rejectedByCode", intake.stats().rejectedByCode());
        out.put("intake", i);
        out.put("forwarder", f);
        out.put("central", central);
        out.put("storage", storageStatus());
        List<DeviceView> storms = broker.takeoverStorms();
        out.put(
                "devices",
                Map.of(
                        "connected",
                        b.connectedClients(),
                        "takeoverStorms",
                        storms.stream().map(DeviceView::clientId).toList()));
        out.put("alarms", alarms(b, counts, f, storms));
        return out;
    }

    /** The alarms raised now, read fresh (the metrics' {@code edgebridge_alarm_active} shows the same codes). */
    public List<Alarm> alarms() {
        return alarms(broker.status(), outbox.reads().counts(), forwarder.status(), broker.takeoverStorms());
    }

    /** The outbox file's free pages (counted as free disk), or null when the file cannot be read now. */
    private @Nullable Long freePageBytes() {
        try {
            return outbox.freeBytes();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private List<Alarm> alarms(BrokerStatus b, OutboxCounts counts, ForwarderStatus f, List<DeviceView> storms) {
        List<Alarm> alarms = alarms(b, counts, f, intake);
        alarms.addAll(CredentialAlarms.of(f, clock.instant()));
        storeResetAlarm(broker.storeResets().unacknowledged()).ifPresent(alarms::add);
        // storage_fsync_implausible is a notice (storage.notice), not an alarm: a virtual machine or a disk with
        // power-loss protection syncs that fast rightly, and a page that is never healthy hides the alarms that matter
        storage.finding()
                .filter(s -> !s.code().equals(AlarmCode.STORAGE_FSYNC_IMPLAUSIBLE.wire()))
                .ifPresent(s -> alarms.add(new Alarm(s.code(), s.message())));
        workers.death()
                .ifPresent(d -> alarms.add(
                        0,
                        new Alarm(
                                AlarmCode.WORKER_DIED,
                                "worker " + d + " died: the bridge is not "
                                        + "ready; run by the run command it exits with code " + ExitCodes.WORKER_DIED
                                        + " for its supervisor to "
                                        + "start it again")));
        for (DeviceView d : storms) {
            alarms.add(new Alarm(
                    AlarmCode.TAKEOVER_STORM,
                    "client id " + d.clientId() + " took over its own session "
                            + d.takeoversLastMinute()
                            + " times in the last minute: a device opening a new connection again and again"));
        }
        return alarms;
    }

    /** The data dir's fsync latency measured at start, and the outbox's capacity at it (null: not measured). */
    private Map<String, Object> storageStatus() {
        Map<String, Object> s = new LinkedHashMap<>();
        FsyncProbe.@Nullable FsyncLatency l = storage.latency();
        s.put("fsyncMedianMicros", l == null ? null : l.medianMicros());
        s.put("fsyncMaxMicros", l == null ? null : l.maxMicros());
        s.put("fsyncSamples", l == null ? 0 : l.samples());
        s.put("probeError", storage.probeError());
        s.put("capacityPerSecond", storage.capacityPerSecond().orElse(null));
        s.put("expectedIntakeRate", storage.expectedIntakeRate());
        s.put(
                "notice",
                storage.finding()
                        .filter(f -> f.code().equals(AlarmCode.STORAGE_FSYNC_IMPLAUSIBLE.wire()))
                        .map(f -> Map.of("code", f.code(), "message", f.message()))
                        .orElse(null));
        return s;
    }

    private static Optional<Alarm> storeResetAlarm(List<BrokerStoreResets.Reset> resets) {
        if (resets.isEmpty()) {
            return Optional.empty();
        }
        BrokerStoreResets.Reset last = resets.get(resets.size() - 1);
        return Optional.of(new Alarm(
                AlarmCode.BROKER_STORE_RESET,
                (resets.size() == 1
                                ? "the broker's session store was"
                                : resets.size() + " times the broker's session store was")
                        + " set aside (last at " + last.at() + ": "
                        + last.reason()
                        + ") and the broker started with an empty store: devices got sessionPresent=0 and "
                        + "subscribed again, commands are in the outbox. The old store is kept in " + last.directory()
                        + ". Acknowledge with POST /api/alarms/" + AlarmCode.BROKER_STORE_RESET.wire() + "/ack"));
    }

    private List<Alarm> alarms(BrokerStatus b, OutboxCounts counts, ForwarderStatus f, IntakeView intake) {
        List<Alarm> alarms = new ArrayList<>();
        if (intake.writeFailure().isPresent() || f.unsettledEvents() > 0) {
            alarms.add(new Alarm(
                    AlarmCode.OUTBOX_UNWRITABLE,
                    "the outbox could not be written"
                            + intake.writeFailure()
                                    .map(failure -> " (" + failure + "): new commands get retry_later / "
                                            + "outbox_unavailable until a write succeeds")
                                    .orElse("")
                            + (f.unsettledEvents() > 0
                                    ? "; central's answers for " + f.unsettledEvents()
                                            + " events wait to be "
                                            + "committed, and nothing new is sent to central until they are"
                                    : "")));
        }
        if (intake.isLowOnDisk()) {
            alarms.add(new Alarm(
                    AlarmCode.LOW_DISK,
                    "free disk is below outbox.minFreeDisk: new commands get retry_later / outbox_full"));
        } else if (intake.isFull()) {
            alarms.add(new Alarm(
                    AlarmCode.OUTBOX_FULL,
                    "the outbox holds outbox.maxPending open commands: new commands get "
                            + "retry_later / outbox_full until central takes some"));
        }
        List<IntakeView.DeviceAtShare> atShare = intake.devicesAtShare();
        if (!atShare.isEmpty()) {
            alarms.add(new Alarm(
                    AlarmCode.DEVICE_OUTBOX_FULL,
                    "devices at their share of the outbox (outbox.maxPendingPerDevice "
                            + intake.deviceShare().maxCommands() + " commands / outbox.maxPendingBytesPerDevice "
                            + intake.deviceShare().maxBytes()
                            + " bytes): their new commands get retry_later / device_outbox_full "
                            + "until central takes their earlier ones; others are not touched: "
                            + atShare.stream()
                                    .map(d -> d.clientId() + " (" + d.openCommands() + " commands, " + d.openBytes()
                                            + " bytes)")
                                    .collect(Collectors.joining(", "))));
        }
        if (!b.running()) {
            alarms.add(new Alarm(
                    AlarmCode.BROKER_DOWN,
                    "the MQTT broker is not running"
                            + b.downBecause().map(why -> ": " + why).orElse("")));
        }
        if (f.state().equals("redirected_by_central")) {
            alarms.add(new Alarm(
                    AlarmCode.CENTRAL_REDIRECT,
                    "central answered with a redirect: "
                            + f.pauseReason().orElse("?")
                            + "; forwarding is paused and tried again every forwarder.authRetryInterval: fix "
                            + "ingest.url"));
        }
        if (f.state().equals("paused_by_central")) {
            alarms.add(new Alarm(
                    AlarmCode.CENTRAL_REFUSED,
                    "central refused the bridge: " + f.pauseReason().orElse("?")
                            + "; check ingest.url and ingest.token"));
        }
        if (f.circuitBreaker().equals("open") || f.consecutiveFailures() >= AlarmThresholds.CENTRAL_FAILURES_IN_A_ROW) {
            alarms.add(new Alarm(
                    AlarmCode.CENTRAL_UNREACHABLE,
                    "central is not answering ("
                            + (f.circuitBreaker().equals("open")
                                    ? "circuit breaker open"
                                    : f.consecutiveFailures() + " failed requests in a row")
                            + "): " + f.lastError().orElse("?") + nextRequest(f)
                            + "; commands are kept and sent when it answers again"));
        }
        if (f.receiptViolations().recent()) {
            alarms.add(new Alarm(
                    AlarmCode.CENTRAL_RECEIPT_VIOLATIONS,
                    f.receiptViolations().last().orElse("?") + " (counts since start: "
                            + f.receiptViolations().counts() + ")"));
        }
        f.lastMissingReceiptAt()
                .filter(at ->
                        at.plus(AlarmThresholds.MISSING_RECEIPTS_SHOWN_FOR).isAfter(clock.instant()))
                .ifPresent(at -> alarms.add(new Alarm(
                        AlarmCode.CENTRAL_MISSING_RECEIPTS,
                        "central answered requests without a receipt for "
                                + f.missingReceipts() + " events since start (last at " + at
                                + "): it breaks the protocol. Each is sent again; a missing receipt counts toward "
                                + "parking its event (code central_no_receipt) only when central answered other "
                                + "events at the same time (docs/forwarding.md, \"Blame\")")));
        if (f.serverErrors().raised()) {
            alarms.add(new Alarm(
                    AlarmCode.CENTRAL_FAILING_AT_RANDOM,
                    String.format(
                            Locale.ROOT,
                            "central failed %.0f %% "
                                    + "of the last requests, whatever their events: an event that fails alone is "
                                    + "parked only after %d failures in a row (forwarder.maxServerErrors=%d is proof "
                                    + "only while central fails at most one request in twenty)",
                            f.serverErrors().failedShare() * 100,
                            f.serverErrors().failuresToPark(),
                            f.serverErrors().maxServerErrors())));
        }
        if (f.pausedByAdmin()) {
            alarms.add(new Alarm(AlarmCode.FORWARDER_PAUSED, "forwarding is paused by an admin"));
        }
        if (counts.count(CommandState.PARKED) > 0) {
            alarms.add(new Alarm(
                    AlarmCode.PARKED_COMMANDS,
                    counts.count(CommandState.PARKED)
                            + " commands are parked and wait for an admin to requeue or reject them"));
        }
        if (b.restartsAfterLoopDeath() > 0) {
            alarms.add(new Alarm(
                    AlarmCode.BROKER_RESTARTED,
                    "the broker was restarted " + b.restartsAfterLoopDeath() + " times after an internal thread died"));
        }
        return alarms;
    }

    /** When the next request goes out, as of now (the status is read fresh each time, so this is never stale). */
    private String nextRequest(ForwarderStatus f) {
        return f.nextAttemptAt()
                .filter(t -> t.isAfter(clock.instant()))
                .map(t -> "; next request at " + t + " (in "
                        + Duration.between(clock.instant(), t).toMillis() + " ms)")
                .orElse("");
    }
}
