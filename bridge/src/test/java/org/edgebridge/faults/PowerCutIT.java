package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.awaitility.core.ConditionTimeoutException;
import org.edgebridge.LoadsTheMachine;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceOutbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.it.BridgeProcess;
import org.edgebridge.it.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power cuts (issue 41): careful devices publish under load while, at random moments, the box loses power: the
 * bridge is killed with {@code kill -9} and its disk ({@code data.dir} on a {@link PowerCutFs}) drops, at the same
 * moment, everything that was not fsync'd; the bridge then starts again on what is left, with the shipped defaults.
 * After every cut, before any device may reconnect (the device link refuses connections meanwhile):
 * <ul>
 *   <li>the bridge became ready (a start that fails, or a crash loop, is a failed start);</li>
 *   <li>every command whose device had a {@code stored} or final receipt before the cut is in the new life's outbox,
 *       under the sequence the receipt gave, and final there if it was final at the device (asked through
 *       {@code GET /api/outbox/{device}/{command}}, so that no resend can hide a loss);</li>
 * </ul>
 * and once the devices are back: every device whose session was acknowledged (CONNACK with the session, or SUBACK)
 * more than {@link #SESSION_BOUND} before the cut found it ({@code sessionPresent=1} on its first CONNACK of the
 * new life), a cut whose store was set aside ({@code broker_store_reset}) included. At the end, when every command
 * is final: the fault suite's {@link Verdict} (each command applied once
 * at central, order per device, no receipt contradicting an earlier final, nothing open).
 *
 * <p>Sizes ({@code -Dpowercut.size}): {@code ci} (default: 20 cuts, 20 devices x 60 commands, about 4 minutes) and
 * {@code soak} (200 cuts, 20 devices x 500 commands, about 40 minutes); {@code -Dpowercut.seed} replays a run's cut moments;
 * {@code -Dpowercut.maxMinutes} stops making cuts after that time (then drains and judges as usual).
 * The report: {@code target/power-cut/verdict-*.txt}.
 */
@LoadsTheMachine
class PowerCutIT {
    /**
     * A session acknowledged this long before a cut must survive it: the broker store commits and syncs every 1 s
     * (docs/moquette.md, "Power cuts"), plus up to 1 s for the commit and its fsync.
     */
    static final Duration SESSION_BOUND = Duration.ofSeconds(2);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ADMIN_TOKEN = "power-cut-admin-token";
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(180);
    private static final Duration BACK_LIMIT = Duration.ofSeconds(60);

    /** How big a run is. */
    record Size(String name, int cuts, int devices, int commandsEach) {
        static Size of(String name) {
            return switch (name) {
                case "ci" -> new Size("ci", 20, 20, 60);
                case "soak" -> new Size("soak", 200, 20, 500);
                default -> throw new IllegalArgumentException("powercut.size must be ci or soak, was " + name);
            };
        }
    }

    /** What one cut found. */
    record CutResult(
            int cut,
            long storedBefore,
            List<String> storedLost,
            long sessionsExpected,
            List<String> sessionsLost,
            long sessionsKeptUnexpectedly,
            long readyMillis,
            long resetsSoFar,
            boolean storeReset) {}

    @TempDir
    Path dir;

    @Test
    void after_every_power_cut_the_bridge_is_ready_and_keeps_every_stored_command_and_every_settled_session()
            throws Exception {
        Size size = Size.of(System.getProperty("powercut.size", "ci"));
        long seed = Long.getLong("powercut.seed", System.nanoTime());
        // a soak on a shared machine may be given a time box: no new cut after it, then the drain and the verdict
        Duration timeBox = Duration.ofMinutes(Long.getLong("powercut.maxMinutes", Long.MAX_VALUE / 60_000_000_000L));
        Random random = new Random(seed);
        Instant started = Instant.now();
        int mqttPort = Ports.freeOutsideEphemeralRange();
        int adminPort = Ports.freeOutsideEphemeralRange();
        Path log = BridgeProcess.logFile("power-cut-" + size.name());
        List<CutResult> results = new ArrayList<>();
        List<String> startFailures = new ArrayList<>();
        try (PowerCutFs disk = PowerCutFs.mount(dir.resolve("backing"), dir.resolve("box"));
                CentralSim central =
                        new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", 0);
                TcpProxy deviceLink = new TcpProxy("devices", mqttPort)) {
            // the shipped defaults but for what a test site must set: where things are, and who may connect
            String[] sets = {
                "data.dir=" + disk.root(),
                "mqtt.host=127.0.0.1",
                "mqtt.port=" + mqttPort,
                "admin.host=127.0.0.1",
                "admin.port=" + adminPort,
                "admin.token=" + ADMIN_TOKEN,
                "auth.anonymous=true",
                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest"
            };
            try (BridgeLives bridge = new BridgeLives(() -> new BridgeProcess(log, sets))) {
                bridge.start();
                // commands are made over the whole run: a cut takes about 5 s (the moment, the start, the checks)
                Duration createOver = Duration.ofMillis(size.cuts() * 5_000L);
                try (DeviceFleet fleet = new DeviceFleet(
                                size.devices(), size.commandsEach(), createOver, deviceLink.port(), bridge::life)
                        .start()) {
                    for (int cut = 1;
                            cut <= size.cuts()
                                    && Duration.between(started, Instant.now()).compareTo(timeBox) < 0;
                            cut++) {
                        FaultTiming.hold(Duration.ofMillis(500 + random.nextInt(2_500))); // a random moment under load
                        results.add(powerCut(cut, bridge, disk, deviceLink, fleet, adminPort, startFailures, log));
                        System.out.println(FaultSuiteIT.at(started) + " " + results.get(results.size() - 1));
                    }
                    boolean drained = drain(bridge, fleet);
                    JsonNode status = bridge.status();
                    long openInBridge = status == null
                            ? -1
                            : status.path("outbox").path("open").asLong(-1);
                    List<String> problems = new ArrayList<>();
                    if (!drained) {
                        problems.add(
                                "not every command was final within " + DRAIN_LIMIT + ": " + fleet.open() + " open");
                    }
                    results.stream()
                            .filter(r -> !r.storedLost().isEmpty())
                            .forEach(r -> problems.add("cut " + r.cut()
                                    + ": stored commands missing from the outbox after the cut: " + r.storedLost()));
                    results.stream()
                            .filter(r -> !r.sessionsLost().isEmpty())
                            .forEach(r -> problems.add("cut " + r.cut()
                                    + ": settled sessions lost"
                                    + (r.storeReset() ? " (the broker store was set aside)" : "") + ": "
                                    + r.sessionsLost()));
                    startFailures.forEach(f -> problems.add("failed start: " + f));
                    Verdict verdict = new Verdict(
                            size.devices() * size.commandsEach(),
                            fleet.devices(),
                            central.inbox(),
                            Set.of(),
                            bridge.deaths(),
                            List.of(),
                            problems,
                            openInBridge);
                    String report = report(
                            size,
                            seed,
                            started,
                            verdict,
                            results,
                            startFailures,
                            bridge.restartMillis(),
                            count(log, "broker store refused"),
                            fleet);
                    System.out.println(report);
                    Path out = Files.createDirectories(Path.of("target", "power-cut"))
                            .resolve("verdict-" + size.name() + "-" + started.toEpochMilli() + ".txt");
                    Files.writeString(out, report);
                    assertThat(verdict.passed())
                            .as("power-cut verdict (bridge log: %s)%n%s", log, report)
                            .isTrue();
                    // storage honesty: the fsync latency measured at this life's start is exported
                    assertThat(status).as("/api/status of the last life").isNotNull();
                    assertThat(status.path("storage").path("fsyncSamples").asInt())
                            .as("/api/status storage: %s", status)
                            .isEqualTo(8);
                    assertThat(get(adminPort, "/metrics").body()).contains("edgebridge_storage_fsync_median_seconds");
                    assertThat(bridge.stop())
                            .as("exit code of the last life after SIGTERM")
                            .isIn(0, 143);
                }
            }
        }
    }

    /**
     * One cut: what the devices hold at that moment, kill -9 and the disk's cut together, a new life, its outbox
     * checked before any device is let in, then the sessions of the devices once they are back.
     */
    private static CutResult powerCut(
            int cut,
            BridgeLives bridge,
            PowerCutFs disk,
            TcpProxy deviceLink,
            DeviceFleet fleet,
            int adminPort,
            List<String> startFailures,
            Path log)
            throws InterruptedException {
        long at = System.nanoTime();
        Map<String, List<DeviceOutbox.Command>> held = new HashMap<>();
        List<String> settled = new ArrayList<>();
        for (DeviceSimulator d : fleet.devices()) {
            held.put(
                    d.clientId(),
                    d.outbox().commands().stream()
                            .filter(c -> c.stored() || !c.open())
                            .toList());
            if (d.readyFor(at).filter(t -> t.compareTo(SESSION_BOUND) > 0).isPresent()) {
                settled.add(d.clientId());
            }
        }
        long t0 = System.nanoTime();
        long resetsBefore = count(log, "broker store refused");
        try {
            bridge.kill9AndRestart(() -> {
                deviceLink.refuse(true); // no device reaches the next life before its outbox is checked
                try {
                    disk.cut();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (RuntimeException e) {
            startFailures.add("after cut " + cut + ": " + firstLine(e));
            startAgain(bridge, startFailures);
        }
        long readyMillis = (System.nanoTime() - t0) / 1_000_000;
        List<String> lost = new ArrayList<>();
        long storedBefore = 0;
        for (Map.Entry<String, List<DeviceOutbox.Command>> e : held.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            Map<String, JsonNode> rows;
            try {
                rows = rowsOf(adminPort, e.getKey());
            } catch (IOException | RuntimeException failed) {
                lost.add(e.getKey() + ": the outbox could not be listed: " + failed);
                continue;
            }
            for (DeviceOutbox.Command c : e.getValue()) {
                storedBefore++;
                String wrong = check(e.getKey(), c, rows.get(c.commandId()));
                if (wrong != null) {
                    lost.add(wrong);
                }
            }
        }
        deviceLink.refuse(false);
        int life = bridge.life();
        try {
            await("devices back after cut " + cut)
                    .atMost(BACK_LIMIT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> fleet.devices().stream().allMatch(d -> firstConnack(d, life) != null));
        } catch (ConditionTimeoutException e) {
            startFailures.add("after cut " + cut + ": not every device got a CONNACK within " + BACK_LIMIT);
        }
        long resetsAfter = count(log, "broker store refused");
        boolean reset = resetsAfter > resetsBefore && storeResetAlarm(adminPort);
        List<String> sessionsLost = new ArrayList<>();
        long keptAnyway = 0;
        for (DeviceSimulator d : fleet.devices()) {
            DeviceSimulator.Connack first = firstConnack(d, life);
            boolean present = first != null && first.sessionPresent();
            if (settled.contains(d.clientId()) && !present) {
                sessionsLost.add(d.clientId());
            } else if (!settled.contains(d.clientId()) && present) {
                keptAnyway++;
            }
        }
        return new CutResult(
                cut, storedBefore, lost, settled.size(), sessionsLost, keptAnyway, readyMillis, resetsAfter, reset);
    }

    /** Whether the new life raises {@code broker_store_reset}: a store set aside must be told, not silent. */
    private static boolean storeResetAlarm(int adminPort) {
        try {
            return JSON.readTree(get(adminPort, "/api/status").body())
                    .path("alarms")
                    .findValuesAsText("code")
                    .contains("broker_store_reset");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static DeviceSimulator.Connack firstConnack(DeviceSimulator d, int life) {
        return d.connacks().stream()
                .filter(c -> c.bridgeLife() == life)
                .findFirst()
                .orElse(null);
    }

    private static HttpResponse<String> get(int adminPort, String path) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                        .header("Authorization", "Bearer " + ADMIN_TOKEN)
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A device's rows as the outbox holds them, by commandId: {@code GET /api/outbox?device=…}, page by page (one
     * request per device, not one per command: the checks after a cut stay as short as the first cut's).
     */
    private static Map<String, JsonNode> rowsOf(int adminPort, String device) throws IOException, InterruptedException {
        Map<String, JsonNode> rows = new HashMap<>();
        String cursor = null;
        do {
            HttpResponse<String> r = get(
                    adminPort,
                    "/api/outbox?limit=1000&device=" + URLEncoder.encode(device, StandardCharsets.UTF_8)
                            + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
            if (r.statusCode() != 200) {
                throw new IOException("outbox answered " + r.statusCode() + " " + r.body());
            }
            JsonNode page = JSON.readTree(r.body());
            page.path("items").forEach(row -> rows.put(row.path("commandId").asText(), row));
            cursor = page.path("nextCursor").isTextual()
                    ? page.path("nextCursor").asText()
                    : null;
        } while (cursor != null);
        return rows;
    }

    /** Null when the outbox holds the command as the device knew it; else what is wrong. */
    private static String check(String device, DeviceOutbox.Command c, JsonNode row) {
        if (row == null) {
            return device + "/" + c.commandId() + " (" + (c.open() ? "stored" : c.finalStatus()) + ") is gone";
        }
        if (c.sequence() >= 0 && row.path("sequence").asLong() != c.sequence()) {
            return device + "/" + c.commandId() + " has sequence "
                    + row.path("sequence").asLong() + ", its receipt said " + c.sequence();
        }
        if (!c.open() && row.path("finalAt").isNull()) {
            return device + "/" + c.commandId() + " was final (" + c.finalStatus() + ") and is "
                    + row.path("state").asText() + " again";
        }
        return null;
    }

    private static void startAgain(BridgeLives bridge, List<String> startFailures) {
        for (int attempt = 1; ; attempt++) {
            try {
                bridge.start();
                return;
            } catch (RuntimeException e) {
                startFailures.add("start again: " + firstLine(e));
                if (attempt == 3) {
                    throw new IllegalStateException("the bridge did not start 3 times in a row after a power cut", e);
                }
            }
        }
    }

    private static String firstLine(RuntimeException e) {
        String text = String.valueOf(e.getMessage());
        String error = text.lines()
                .filter(l -> l.startsWith("error:"))
                .reduce((a, b) -> b)
                .orElse("");
        return text.lines().findFirst().orElse(text) + (error.isEmpty() ? "" : " / " + error);
    }

    private static boolean drain(BridgeLives bridge, DeviceFleet fleet) {
        fleet.createTheRestNow();
        return bridge.awaitAllFinal(fleet, DRAIN_LIMIT);
    }

    private static long count(Path log, String what) {
        try {
            return Files.readString(log).lines().filter(l -> l.contains(what)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String report(
            Size size,
            long seed,
            Instant started,
            Verdict verdict,
            List<CutResult> results,
            List<String> startFailures,
            List<Long> restartMillis,
            long resets,
            DeviceFleet fleet) {
        long storedChecked = results.stream().mapToLong(CutResult::storedBefore).sum();
        long storedLost = results.stream().mapToLong(r -> r.storedLost().size()).sum();
        long expected = results.stream().mapToLong(CutResult::sessionsExpected).sum();
        long sessionsLost =
                results.stream().mapToLong(r -> r.sessionsLost().size()).sum();
        long keptAnyway =
                results.stream().mapToLong(CutResult::sessionsKeptUnexpectedly).sum();
        List<Long> sorted = restartMillis.stream().skip(1).sorted().toList();
        boolean pass = verdict.passed();
        StringBuilder b = new StringBuilder();
        b.append("=== POWER CUTS (")
                .append(size.name())
                .append(") ")
                .append(pass ? "PASS" : "FAIL")
                .append(" — seed ")
                .append(seed)
                .append(", ")
                .append(size.devices())
                .append(" devices x ")
                .append(size.commandsEach())
                .append(" commands, ")
                .append(Duration.between(started, Instant.now()).toSeconds())
                .append(" s\n");
        row(
                b,
                "power cuts",
                results.size() + " of " + size.cuts() + " planned (kill -9 and the disk's unsynced writes "
                        + "dropped together)"
                        + (results.size() < size.cuts() ? "; stopped by -Dpowercut.maxMinutes" : ""));
        row(b, "failed starts", startFailures.size());
        row(
                b,
                "cut->ready ms",
                sorted.isEmpty()
                        ? "-"
                        : "p50 " + CrashLoopIT.percentile(sorted, 50) + ", max " + sorted.get(sorted.size() - 1));
        row(b, "broker store resets (log)", resets);
        row(
                b,
                "stored commands checked",
                storedChecked + " (stored or final at a device at a cut, looked up after it)");
        row(b, "stored commands lost", storedLost);
        row(
                b,
                "settled sessions kept",
                (expected - sessionsLost) + " of " + expected + " (acknowledged > " + SESSION_BOUND.toSeconds()
                        + " s before the cut)");
        row(b, "settled sessions lost", sessionsLost + " (must be 0, a broker store reset included)");
        row(
                b,
                "other sessions kept",
                keptAnyway + " (acknowledged within " + SESSION_BOUND.toSeconds() + " s of the cut, or not yet)");
        b.append(verdict.render());
        var c = fleet.counters();
        b.append("--- devices: ")
                .append(c.created.sum())
                .append(" commands, ")
                .append(c.resends.sum())
                .append(" resends, ")
                .append(c.connects.sum())
                .append(" connects (")
                .append(c.sessionsNotPresent.sum())
                .append(" with sessionPresent=0)\n");
        startFailures.stream()
                .limit(10)
                .forEach(f -> b.append("  failed start: ").append(f).append('\n'));
        return b.toString();
    }

    private static void row(StringBuilder b, String name, Object value) {
        b.append(String.format("%-34s %s%n", name, value));
    }
}
