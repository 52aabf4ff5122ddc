package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.edgebridge.LoadsTheMachine;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.it.BridgeProcess;
import org.edgebridge.it.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash loop of issue #13: the real bridge process is killed with {@code kill -9} again and again while
 * careful devices with persistent sessions ({@code cleanSession=false}) send commands and central is flaky,
 * and every start must become ready. Kill moments, in equal shares: within the first second after ready;
 * during a burst of new persistent sessions (new client ids connecting); during a clean stop (SIGTERM, then
 * kill -9 before it ends); at a random moment under load. Every few kills the bridge starts on a fresh data
 * directory (a new site: its own devices, drained first). In every life two new devices join (new client ids,
 * persistent sessions), as on a site being rolled out. At the end: nothing lost, nothing applied twice at
 * central, every device told the result ({@link Verdict}), and the restart-to-ready figures.
 *
 * <p>Sizes ({@code -Dcrashloop.size}): {@code ci} (default: 25 kills, a fresh data directory every 9, about
 * 3 minutes) and {@code full} (200 kills, every 10). {@code -Dcrashloop.seed} replays a run's kill plan.
 */
@LoadsTheMachine
class CrashLoopIT {
    /** How big a run is. */
    record Size(String name, int kills, int killsPerDataDir) {
        static Size of(String name) {
            return switch (name) {
                case "ci" -> new Size("ci", 25, 9);
                case "full" -> new Size("full", 200, 10);
                default -> throw new IllegalArgumentException("crashloop.size must be ci or full, was " + name);
            };
        }
    }

    /** Where in a life the kill lands. */
    enum Moment {
        FIRST_SECOND("kill -9 within 1 s after ready", 0, 1_000),
        NEW_SESSIONS("kill -9 0.2-1.5 s into a burst of 5 new persistent sessions", 200, 1_300),
        CLEAN_STOP("SIGTERM 0.3-1.8 s after ready, then kill -9 0-1.5 s later if still running", 300, 1_500),
        UNDER_LOAD("kill -9 1-3.5 s after ready, under load", 1_000, 2_500);

        final String how;
        private final int fromMillis;
        private final int spreadMillis;

        Moment(String how, int fromMillis, int spreadMillis) {
            this.how = how;
            this.fromMillis = fromMillis;
            this.spreadMillis = spreadMillis;
        }

        /** How long after ready (or after the burst began) the kill or SIGTERM lands, drawn from the plan's random. */
        Duration after(Random random) {
            return Duration.ofMillis(fromMillis + random.nextInt(spreadMillis));
        }
    }

    private static final int DEVICES_PER_SITE = 10;
    private static final int COMMANDS_EACH = 6;
    private static final Duration READY_GOAL = Duration.ofSeconds(10);
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void every_start_after_kill_9_becomes_ready_and_no_command_is_lost_or_applied_twice() throws Exception {
        Size size = Size.of(System.getProperty("crashloop.size", "ci"));
        long seed = Long.getLong("crashloop.seed", System.nanoTime());
        Random random = new Random(seed);
        List<Moment> plan = plan(size.kills(), random);
        // every new life of the bridge must bind the port the device proxy points at: known before the first start
        int mqttPort = Ports.freeOutsideEphemeralRange();
        Path log = BridgeProcess.logFile("crash-loop-" + size.name());
        AtomicReference<Path> dataDir = new AtomicReference<>();
        Instant started = Instant.now();
        List<String> startFailures = new ArrayList<>();
        List<String> timeline = new ArrayList<>();
        Map<Moment, Integer> byMoment = new EnumMap<>(Moment.class);
        List<DeviceSimulator> allDevices = new ArrayList<>();
        int planned = 0;
        int endedBeforeTheKill = 0;
        int sites = 0;
        boolean allDrained = true;

        try (CentralSim central = new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", 0)) {
            String[] common = {
                "mqtt.host=127.0.0.1",
                "mqtt.port=" + mqttPort,
                "auth.anonymous=true",
                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest",
                "ingest.timeout=5s",
                "forwarder.backoffInitial=100ms",
                "forwarder.backoffMax=1s",
                "forwarder.breakerOpenFor=1s",
                "outbox.minFreeDisk=0",
                "shutdown.timeout=5s"
            };
            try (BridgeLives bridge =
                    new BridgeLives(() -> new BridgeProcess(log, with(common, "data.dir=" + dataDir.get())))) {
                int kill = 0;
                while (kill < size.kills()) {
                    sites++;
                    dataDir.set(dir.resolve("site-" + sites));
                    int killsHere = Math.min(size.killsPerDataDir(), size.kills() - kill);
                    timeline.add(
                            FaultSuiteIT.at(started) + " site " + sites + ": fresh data dir, " + killsHere + " kills");
                    if (sites == 1) {
                        startRecording(bridge, startFailures);
                    } else {
                        try {
                            bridge.kill9AndRestart(
                                    Duration.ZERO); // the last life of the site before goes; the new one has a fresh
                            // dir
                        } catch (RuntimeException e) {
                            record(bridge, startFailures, e);
                            startRecording(bridge, startFailures);
                        }
                    }
                    central.faults(new Faults("chaos", 0, null, false, 0, 1_000, -1));
                    Duration createOver = Duration.ofMillis(killsHere * 3_000L);
                    try (DeviceFleet fleet = new DeviceFleet(mqttPort, bridge::life)) {
                        fleet.add("s" + sites + "-node", DEVICES_PER_SITE, COMMANDS_EACH, createOver)
                                .start();
                        planned += DEVICES_PER_SITE * COMMANDS_EACH;
                        int bursts = 0;
                        for (int k = 0; k < killsHere; k++, kill++) {
                            Moment m = plan.get(kill);
                            byMoment.merge(m, 1, Integer::sum);
                            // devices keep joining: two new persistent sessions in every life, as on a site being
                            // rolled out
                            fleet.add("s" + sites + "-join" + (kill + 1), 2, 1, Duration.ofMillis(500));
                            planned += 2;
                            if (m == Moment.NEW_SESSIONS) {
                                fleet.add("s" + sites + "-burst" + (++bursts), 5, 1, Duration.ofMillis(500));
                                planned += 5;
                            }
                            boolean ended = kill(bridge, m, random, startFailures);
                            if (ended) {
                                endedBeforeTheKill++;
                            }
                            timeline.add(FaultSuiteIT.at(started) + "   kill " + (kill + 1) + ": " + m
                                    + (ended ? " (ended before the kill)" : "") + ", life " + bridge.life() + " ready");
                        }
                        central.faults(Faults.NONE);
                        boolean drained = drain(bridge, fleet);
                        allDrained &= drained;
                        timeline.add(FaultSuiteIT.at(started) + "   site " + sites
                                + (drained
                                        ? " drained"
                                        : " NOT drained within " + DRAIN_LIMIT + ": " + fleet.open()
                                                + " commands open"));
                        allDevices.addAll(fleet.devices());
                    }
                }
                bridge.checkAlive();
                JsonNode status = bridge.status();
                long openInBridge =
                        status == null ? -1 : status.path("outbox").path("open").asLong(-1);
                String logText = Files.readString(log);
                List<String> problems = new ArrayList<>();
                if (!startFailures.isEmpty()) {
                    problems.add(startFailures.size() + " starts did not become ready (listed below)");
                }
                if (!allDrained) {
                    problems.add("a site did not drain within " + DRAIN_LIMIT);
                }
                Verdict verdict = new Verdict(
                        planned,
                        allDevices,
                        central.inbox(),
                        Set.of(),
                        bridge.deaths(),
                        List.of(),
                        problems,
                        openInBridge);
                List<Long> ready = bridge.restartMillis();
                String report = report(
                        size,
                        seed,
                        started,
                        verdict,
                        ready,
                        startFailures,
                        byMoment,
                        endedBeforeTheKill,
                        sites,
                        count(logText, "gave "),
                        count(logText, "broker store refused"),
                        timeline);
                System.out.println(report);
                Path out = Files.createDirectories(Path.of("target", "crash-loop"))
                        .resolve("verdict-" + size.name() + "-" + started.toEpochMilli() + ".txt");
                Files.writeString(out, report);
                assertThat(startFailures)
                        .as("starts that did not become ready (bridge log: %s)%n%s", log, report)
                        .isEmpty();
                assertThat(verdict.passed())
                        .as("crash loop verdict (bridge log: %s)%n%s", log, report)
                        .isTrue();
                assertThat(bridge.stop())
                        .as("exit code of the last life after SIGTERM")
                        .isIn(0, 143);
            }
        }
    }

    /** The kill moments, in equal shares, shuffled. */
    private static List<Moment> plan(int kills, Random random) {
        List<Moment> plan = new ArrayList<>();
        for (int i = 0; i < kills; i++) {
            plan.add(Moment.values()[i % Moment.values().length]);
        }
        Collections.shuffle(plan, random);
        return plan;
    }

    /**
     * Plays one kill and starts the next life (recording, and retrying, a start that does not become ready).
     * The time let pass before it is the kill moment of the plan ({@link Moment#after}), not a wait for a result.
     *
     * @return whether the process ended on its own before the kill (a clean stop that was quicker)
     */
    private static boolean kill(BridgeLives bridge, Moment m, Random random, List<String> startFailures)
            throws InterruptedException {
        boolean ended = false;
        try {
            FaultTiming.hold(m.after(random));
            if (m == Moment.CLEAN_STOP) {
                ended = bridge.sigtermThenKill9AndRestart(Duration.ofMillis(random.nextInt(1_500)));
            } else {
                bridge.kill9AndRestart(Duration.ZERO);
            }
        } catch (RuntimeException e) {
            record(bridge, startFailures, e);
            startRecording(bridge, startFailures);
        }
        return ended;
    }

    /** Starts a new life; a start that does not become ready is recorded and tried again (3 tries in all). */
    private static void startRecording(BridgeLives bridge, List<String> startFailures) {
        for (int attempt = 1; ; attempt++) {
            try {
                bridge.start();
                return;
            } catch (RuntimeException e) {
                record(bridge, startFailures, e);
                if (attempt == 3) {
                    throw new IllegalStateException("the bridge did not start 3 times in a row", e);
                }
            }
        }
    }

    private static void record(BridgeLives bridge, List<String> startFailures, RuntimeException e) {
        String text = String.valueOf(e.getMessage());
        String exit = text.lines().findFirst().orElse(text);
        exit = exit.contains("; log:") ? exit.substring(0, exit.indexOf("; log:")) : exit;
        String error = text.lines()
                .filter(l -> l.startsWith("error:"))
                .reduce((a, b) -> b)
                .orElse("");
        startFailures.add("life " + bridge.life() + ": " + exit + (error.isEmpty() ? "" : " / " + error));
    }

    private static boolean drain(BridgeLives bridge, DeviceFleet fleet) {
        return bridge.awaitAllFinal(fleet, DRAIN_LIMIT);
    }

    private static String[] with(String[] sets, String more) {
        String[] all = java.util.Arrays.copyOf(sets, sets.length + 1);
        all[sets.length] = more;
        return all;
    }

    private static long count(String text, String what) {
        return text.lines().filter(l -> l.contains(what)).count();
    }

    static long percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return -1;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    private static String report(
            Size size,
            long seed,
            Instant started,
            Verdict verdict,
            List<Long> readyMillis,
            List<String> startFailures,
            Map<Moment, Integer> byMoment,
            int endedBeforeTheKill,
            int sites,
            long repairs,
            long resets,
            List<String> timeline) {
        List<Long> sorted = readyMillis.stream().sorted().toList();
        long overGoal = sorted.stream().filter(ms -> ms > READY_GOAL.toMillis()).count();
        StringBuilder b = new StringBuilder();
        boolean pass = verdict.passed() && startFailures.isEmpty();
        b.append("=== CRASH LOOP (")
                .append(size.name())
                .append(") ")
                .append(pass ? "PASS" : "FAIL")
                .append(" — seed ")
                .append(seed)
                .append(", ")
                .append(Duration.between(started, Instant.now()).toSeconds())
                .append(" s\n");
        row(
                b,
                "kills",
                size.kills() + " " + byMoment + ", and " + (sites - 1) + " kill -9 to switch to a fresh data dir");
        row(
                b,
                "clean stops that ended first",
                endedBeforeTheKill + " (of " + byMoment.getOrDefault(Moment.CLEAN_STOP, 0)
                        + " SIGTERM+kill -9; the others were killed mid-stop)");
        row(b, "data dirs (sites)", sites);
        row(b, "starts", readyMillis.size() + " ready, " + startFailures.size() + " failed");
        row(
                b,
                "restart->ready ms",
                "p50 " + percentile(sorted, 50) + ", p99 " + percentile(sorted, 99) + ", max "
                        + (sorted.isEmpty() ? -1 : sorted.get(sorted.size() - 1)) + " (" + overGoal + " over the "
                        + READY_GOAL.toSeconds() + " s goal)");
        row(b, "store repairs / resets (log)", repairs + " / " + resets);
        row(b, "lost", verdict.lost);
        row(b, "applied twice", verdict.doubleApplications);
        b.append(verdict.render());
        startFailures.stream()
                .limit(10)
                .forEach(f -> b.append("  start failure: ").append(f).append('\n'));
        b.append("--- timeline\n");
        timeline.forEach(t -> b.append(t).append('\n'));
        return b.toString();
    }

    private static void row(StringBuilder b, String name, Object value) {
        b.append(String.format("%-34s %s%n", name, value));
    }
}
