package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14, "no failure stops forwarding for good": each test plays one failure that used to wedge the
 * forwarder for ever (or until a restart) and checks that the command still reaches central and the device.
 * Real parts: the reference central misbehaving on purpose, and faults planted in the real SQLite file.
 */
class ForwarderUnwedgedIT {
    private static final Duration SOON = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    @Test
    void a_claim_that_fails_while_the_breaker_is_half_open_does_not_keep_the_breaker_half_open() throws Exception {
        try (TestSite site = new TestSite(dir, "forwarder.breakerOpenFor=2s");
                DeviceSimulator device = site.device("dev-ho")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.status(500, null, 5));
            device.publish("t", DeviceSimulator.command("HO-1", ""));
            await().atMost(SOON)
                    .until(() ->
                            site.bridge.forwarder().status().circuitBreaker().equals("open"));
            try (Connection db = DriverManager.getConnection(
                    "jdbc:sqlite:" + site.bridge.outbox().file())) {
                long failedBefore = site.bridge.forwarder().status().failedSteps();
                try (Statement s = db.createStatement()) {
                    // the disk refuses the claim's write: a real SQLite failure inside the claim transaction
                    s.execute(
                            "CREATE TRIGGER test_fail_claim BEFORE UPDATE OF state ON commands WHEN NEW.state = 'inflight' "
                                    + "BEGIN SELECT RAISE(ABORT, 'test: the claim cannot be written'); END");
                }
                await().atMost(SOON)
                        .until(() -> site.bridge
                                        .forwarder()
                                        .status()
                                        .circuitBreaker()
                                        .equals("half_open")
                                && site.bridge.forwarder().status().failedSteps() > failedBefore);
                try (Statement s = db.createStatement()) {
                    s.execute("DROP TRIGGER test_fail_claim");
                }
            }
            assertThat(device.awaitFinal("HO-1").path("status").asText()).isEqualTo("accepted");
            await().atMost(SOON)
                    .until(() ->
                            site.bridge.forwarder().status().circuitBreaker().equals("closed"));
        }
    }

    @Test
    void a_per_event_retry_after_near_long_max_is_clamped_and_the_event_is_sent_again() {
        try (TestSite site = new TestSite(dir, "forwarder.maxRetryAfter=1s");
                DeviceSimulator device = site.device("dev-ra")) {
            device.connectAndSubscribe();
            site.central.faults(new Faults("retry_later", 0, null, false, Long.MAX_VALUE - 1, 0, 1));
            device.publish("t", DeviceSimulator.command("RA-1", ""));
            assertThat(device.awaitFinal("RA-1").path("status").asText()).isEqualTo("accepted");
            assertThat(site.bridge.forwarder().status().unsettledEvents()).isZero();
            assertThat(site.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .containsExactly(200, 200);
        }
    }

    @Test
    void a_retry_after_header_too_large_for_any_clock_is_clamped_and_nothing_stays_in_flight() {
        try (TestSite site = new TestSite(dir, "forwarder.maxRetryAfter=1s");
                DeviceSimulator device = site.device("dev-rh")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.statusWithRetryAfter(429, "100000000000000000", 1));
            device.publish("t", DeviceSimulator.command("RH-1", ""));
            assertThat(device.awaitFinal("RH-1").path("status").asText()).isEqualTo("accepted");
            // the wait itself (the clamped Retry-After) is ForwardStepStatusTest's, on a moved clock
            assertThat(site.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .containsExactly(429, 200);
        }
    }

    @Test
    void a_201_or_202_with_receipts_is_success() {
        try (TestSite site = new TestSite(dir);
                DeviceSimulator device = site.device("dev-2xx")) {
            device.connectAndSubscribe();
            site.central.faults(new Faults("answer_status", 201, null, false, 0, 0, 1));
            device.publish("t", DeviceSimulator.command("C201", ""));
            assertThat(device.awaitFinal("C201").path("status").asText()).isEqualTo("accepted");
            site.central.faults(new Faults("answer_status", 202, null, false, 0, 0, 1));
            device.publish("t", DeviceSimulator.command("C202", ""));
            assertThat(device.awaitFinal("C202").path("status").asText()).isEqualTo("accepted");
            assertThat(site.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .containsExactly(201, 202);
            assertThat(site.bridge.forwarder().status().pauseReason()).isEmpty();
        }
    }

    @Test
    void a_redirect_pauses_forwarding_with_its_own_alarm_and_loses_nothing() throws Exception {
        try (TestSite site = new TestSite(dir, "forwarder.authRetryInterval=2s");
                DeviceSimulator device = site.device("dev-3xx")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.status(307, null, 1));
            device.publish("t", DeviceSimulator.command("R307", ""));
            await().atMost(SOON)
                    .until(() -> site.bridge.forwarder().status().state().equals("redirected_by_central"));
            assertThat(site.getJson("/api/status").path("alarms").findValuesAsText("code"))
                    .contains("central_redirect")
                    .doesNotContain("central_refused");
            assertThat(site.bridge
                            .outbox()
                            .find("dev-3xx", "R307")
                            .orElseThrow()
                            .state())
                    .isEqualTo(CommandState.PENDING);
            assertThat(device.awaitFinal("R307").path("status").asText()).isEqualTo("accepted");
        }
    }

    @Test
    void central_shedding_load_without_retry_after_is_retried_as_failed_requests_until_it_answers() {
        try (TestSite site = new TestSite(dir);
                DeviceSimulator device = site.device("dev-429")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.status(429, null, 6));
            device.publish("t", DeviceSimulator.command("SHED-1", ""));
            assertThat(device.awaitFinal("SHED-1").path("status").asText()).isEqualTo("accepted");
            assertThat(site.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .containsExactly(429, 429, 429, 429, 429, 429, 200);
            // each 429 counts as a failed request: the backoff's growth is ForwarderPolicyTest's, on a moved clock
            assertThat(site.bridge.forwarder().status().lastError())
                    .hasValueSatisfying(e -> assertThat(e).startsWith("HTTP 429"));
        }
    }
}
