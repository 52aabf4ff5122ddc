package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.edgebridge.LoadsTheMachine;
import org.edgebridge.central.CentralSim;
import org.edgebridge.it.BridgeProcess;
import org.edgebridge.it.Ports;
import org.edgebridge.it.TlsMaterial;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #28: a site of two boxes behind a real HAProxy, set up as docs/scale-out.md says, with
 * broker-config/haproxy.cfg as written (only its ports come from the environment). 20 careful devices on plain MQTT
 * and 4 on MQTTS connect through HAProxy, which keeps each on one box (the plain ones by client id, the TLS ones by
 * their source address, so all 4 on one box: that box is "box A" here, whichever of the two it is). Mid-stream box
 * A goes away (kill -9, a clean stop, or kill -9 and
 * its disk lost for good), its devices reconnect through HAProxy to box B and resend; then A starts again (or a new
 * box with a fresh disk takes its place). Every command is applied once at central, every device has a final
 * receipt for every command, order is kept per (edge, device), and what A forwards after its restart central
 * answers {@code duplicate}. A's forwarder is paused just before the fault, so that A certainly holds commands
 * central never saw from it. The shipped defaults throughout; the figures are printed, for docs/scale-out.md.
 *
 * <p>Needs Debian's {@code haproxy} ({@code .ci/run} installs it): without it the tests are skipped with a line
 * that says so, except under {@code CI=true}, where they fail.
 */
@LoadsTheMachine
class ScaleOutIT {
    private static final Path HAPROXY_CFG = Path.of("../broker-config/haproxy.cfg");
    /** Devices on plain MQTT (HAProxy keeps each on a box by its client id) and over TLS (by its address). */
    private static final int DEVICES = 20;

    private static final int TLS_DEVICES = 4;
    private static final int COMMANDS_EACH = 15;
    private static final Duration CREATE_OVER = Duration.ofSeconds(6);
    private static final Duration WAIT = Duration.ofSeconds(60);

    enum Fault {
        KILL_9,
        CLEAN_STOP,
        DISK_LOST
    }

    @TempDir
    Path dir;

    private CentralSim central;
    private SiteBox boxA;
    private SiteBox boxB;
    private Haproxy haproxy;
    private int frontendPort;
    private int tlsFrontendPort;
    private DevCertificates.Material tls;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void startTheSite() throws Exception {
        requireHaproxy();
        central = new CentralSim(Optional.empty(), 16L * 1024 * 1024, Clock.systemUTC()).start("127.0.0.1", 0);
        tls = DevCertificates.ensure(dir.resolve("tls"));
        boxA = new SiteBox("box-a", dir.resolve("box-a"), SiteBox.Listeners.free(), tls, central.port());
        boxB = new SiteBox("box-b", dir.resolve("box-b"), SiteBox.Listeners.free(), tls, central.port());
        CompletableFuture.allOf(CompletableFuture.runAsync(boxA::start), CompletableFuture.runAsync(boxB::start))
                .join();
        frontendPort = Ports.freeOutsideEphemeralRange();
        tlsFrontendPort = Ports.freeOutsideEphemeralRange();
        haproxy = Haproxy.start(
                HAPROXY_CFG,
                Map.of(
                        "MQTT_BIND",
                        "127.0.0.1:" + frontendPort,
                        "MQTTS_BIND",
                        "127.0.0.1:" + tlsFrontendPort,
                        "BOX_A_MQTT",
                        "127.0.0.1:" + boxA.ports.mqtt(),
                        "BOX_A_MQTTS",
                        "127.0.0.1:" + boxA.ports.tls(),
                        "BOX_A_ADMIN_HOST",
                        "127.0.0.1",
                        "BOX_A_ADMIN_PORT",
                        String.valueOf(boxA.ports.admin()),
                        "BOX_B_MQTT",
                        "127.0.0.1:" + boxB.ports.mqtt(),
                        "BOX_B_MQTTS",
                        "127.0.0.1:" + boxB.ports.tls(),
                        "BOX_B_ADMIN_HOST",
                        "127.0.0.1",
                        "BOX_B_ADMIN_PORT",
                        String.valueOf(boxB.ports.admin())),
                dir.resolve("haproxy.sock"),
                BridgeProcess.logFile("scale-out-haproxy"));
        await("both boxes up at HAProxy")
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> haproxy.backend("bridges_mqtt").values().stream()
                                .filter(Haproxy.Server::up)
                                .count()
                        == 2);
    }

    @AfterEach
    void stopTheSite() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        if (haproxy != null) {
            haproxy.close();
        }
        for (SiteBox box : new SiteBox[] {boxA, boxB}) {
            if (box != null) {
                box.close();
            }
        }
        if (central != null) {
            central.close();
        }
    }

    @Test
    void box_a_killed_mid_stream_its_devices_resend_through_haproxy_to_box_b_and_a_restarted_forwards_only_duplicates()
            throws Exception {
        failOver(Fault.KILL_9);
    }

    @Test
    void box_a_stopped_cleanly_drains_its_devices_to_box_b_and_started_again_forwards_only_duplicates()
            throws Exception {
        failOver(Fault.CLEAN_STOP);
    }

    @Test
    void box_a_lost_with_its_disk_is_replaced_by_a_new_box_with_a_fresh_data_dir_and_nothing_is_lost()
            throws Exception {
        failOver(Fault.DISK_LOST);
    }

    private void failOver(Fault fault) throws Exception {
        DeviceFleet fleet = new DeviceFleet(frontendPort, () -> 0)
                .behindBalancer()
                .add("dev", DEVICES, COMMANDS_EACH, CREATE_OVER)
                .via(tlsFrontendPort, TlsMaterial.client(tls.caFile(), null, null))
                .add("tls", TLS_DEVICES, COMMANDS_EACH, CREATE_OVER);
        toClose.add(fleet);
        fleet.start();
        int all = DEVICES + TLS_DEVICES;
        await("every device connected through HAProxy").atMost(WAIT).until(() -> fleet.connected() == all);
        int planned = all * COMMANDS_EACH;
        // mid-stream by what the devices created, not by what central applied: on a busy machine central can lag so
        // far that the devices have created everything before it reaches a mark, and box A then holds nothing to fail
        // over (a run at load average 13 failed so); 60 % of the commands are still to come when A's forwarder stops
        await("mid-stream").atMost(WAIT).until(() -> fleet.counters().created.sum() >= planned * 2L / 5);
        // "box A", the one that goes, is the one HAProxy put the TLS devices on (they share one source address)
        SiteBox a = boxA.edgeId.equals(haproxy.stuckTo("bridges_mqtts").get("127.0.0.1")) ? boxA : boxB;
        SiteBox b = a == boxA ? boxB : boxA;
        long devicesOnA = a.connectedDevices();
        assertThat(devicesOnA)
                .as("HAProxy gave box A the TLS devices and some plain ones")
                .isBetween(TLS_DEVICES + 1L, all - 1L);

        a.pauseForwarder();
        await("box A holds commands central never saw").atMost(WAIT).until(() -> a.open() >= 10);
        long connectsBefore = fleet.counters().connects.sum();
        long resendsBefore = fleet.counters().resends.sum();
        long t0 = System.nanoTime();
        switch (fault) {
            case KILL_9, DISK_LOST -> a.process.kill9();
            case CLEAN_STOP ->
                assertThat(a.process.stop()).as("exit code of a clean stop").isIn(0, 143);
        }
        long faultMillis = (System.nanoTime() - t0) / 1_000_000;
        await("box A's devices reconnected through HAProxy")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .until(() ->
                        fleet.counters().connects.sum() >= connectsBefore + devicesOnA && fleet.connected() == all);
        long reconnectMillis = (System.nanoTime() - t0) / 1_000_000;
        await("every command final, through box B").atMost(WAIT).until(fleet::allFinal);
        long resent = fleet.counters().resends.sum() - resendsBefore;
        Map<String, Long> aBefore = central.inbox().answersByEdge().getOrDefault(a.edgeId, Map.of());

        SiteBox restarted = a;
        if (fault == Fault.DISK_LOST) {
            deleteTree(a.dataDir);
            // the new box takes A's place (its address in haproxy.cfg) with a fresh disk and its own edge.id
            restarted = new SiteBox(a.edgeId + "-new", dir.resolve(a.edgeId + "-new"), a.ports, tls, central.port());
            toClose.add(restarted);
        }
        SiteBox a2 = restarted.start();
        await("box A forwarded what it still holds").atMost(WAIT).until(() -> a2.open() == 0);
        Map<String, Long> aAfter = central.inbox().answersByEdge().getOrDefault(a.edgeId, Map.of());
        long duplicatesForA = aAfter.getOrDefault("duplicate", 0L) - aBefore.getOrDefault("duplicate", 0L);
        long acceptedForA = aAfter.getOrDefault("accepted", 0L) - aBefore.getOrDefault("accepted", 0L);

        await("box A up again at HAProxy")
                .atMost(WAIT)
                .until(() -> haproxy.backend("bridges_mqtt").get(a.edgeId).up());
        Map<String, String> stuck = haproxy.stuckTo("bridges_mqtt");
        assertThat(stuck)
                .as("HAProxy's stick table has every plain MQTT device")
                .hasSize(DEVICES);
        assertThat(stuck.values())
                .as("every device stays on box B now that A is back")
                .containsOnly(b.edgeId);
        assertThat(haproxy.stuckTo("bridges_mqtts"))
                .as("the TLS devices' address stays on box B too")
                .isEqualTo(Map.of("127.0.0.1", b.edgeId));
        int latePlanned = 0;
        if (fault == Fault.DISK_LOST) {
            // devices that join now go to the new box (HAProxy: least connections); B keeps the ones it has
            fleet.via(frontendPort, null).add("late", 4, 5, Duration.ofSeconds(1));
            latePlanned = 4 * 5;
            await("the late devices' commands final").atMost(WAIT).until(fleet::allFinal);
            assertThat(a2.connectedDevices())
                    .as("the new box serves the devices that joined")
                    .isEqualTo(4);
        }
        List<String> notSeen = new ArrayList<>();
        if (fault != Fault.DISK_LOST && duplicatesForA == 0) {
            notSeen.add("box A forwarded nothing after its restart");
        }
        Verdict verdict = new Verdict(
                planned + latePlanned,
                fleet.devices(),
                central.inbox(),
                Set.of(),
                List.of(),
                notSeen,
                List.of(),
                a2.open() + b.open(),
                true);
        System.out.printf(
                "ScaleOutIT %s: %d of %d devices on the box that goes (%s, with the %d TLS devices); %s took %d ms; devices reconnected"
                        + " %d ms after it began; %d commands resent by the devices; central's answers by edge %s (duplicates in all: %d);"
                        + " box A after its restart: %d duplicate, %d accepted%n%s",
                fault,
                devicesOnA,
                all,
                a.edgeId,
                TLS_DEVICES,
                fault,
                faultMillis,
                reconnectMillis,
                resent,
                central.inbox().answersByEdge(),
                central.inbox().stats().get("duplicates"),
                duplicatesForA,
                acceptedForA,
                verdict.render());
        assertThat(verdict.passed()).as(verdict.render()).isTrue();
        assertThat(acceptedForA)
                .as("central applied nothing new from box A after its restart")
                .isZero();
        if (fault != Fault.DISK_LOST) {
            assertThat(duplicatesForA)
                    .as("box A's post-restart forwards were answered duplicate")
                    .isPositive();
        }
    }

    private static void deleteTree(Path root) throws Exception {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void requireHaproxy() {
        if (Haproxy.binary().isPresent()) {
            return;
        }
        String why =
                "ScaleOutIT skipped: Debian's haproxy is not installed (apt-get install haproxy; .ci/run installs it)";
        if ("true".equals(System.getenv("CI"))) {
            Assertions.fail("CI=true, but haproxy is not installed: the scale-out tests must run in CI");
        }
        System.out.println(why);
        Assumptions.abort(why);
    }
}
