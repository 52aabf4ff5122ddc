package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.edgebridge.TestClock;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.Settlement;
import org.junit.jupiter.api.Test;

/** Every kind of reply central can give (docs/protocol.md §2.3, docs/forwarding.md), classified without a network. */
class ReplyClassifierTest {
    private final TestClock clock = new TestClock();
    private static final ForwarderSettings SETTINGS = ConfigLoader.load(
                    null,
                    List.of(
                            "ingest.url=http://127.0.0.1:1/ingest",
                            "forwarder.backoffInitial=100ms",
                            "forwarder.backoffMax=1s",
                            "forwarder.maxRetryAfter=30s"))
            .forwarder();
    private final ReplyClassifier classifier = new ReplyClassifier(
            SETTINGS,
            clock,
            new AloneFailures(
                    SETTINGS.retries().maxServerErrors(),
                    () -> SETTINGS.retries().maxServerErrors(),
                    n -> ReplyClassifier.backoff(SETTINGS, n)));

    private static ClaimedEvent event(long id, String device, String eventId, int attempt) {
        return new ClaimedEvent(
                id,
                device,
                eventId,
                id,
                "devices/" + device + "/commands/t",
                "t",
                "{}".getBytes(StandardCharsets.UTF_8),
                "sha",
                Instant.EPOCH,
                attempt,
                0,
                Optional.empty());
    }

    private static final List<ClaimedEvent> TWO = List.of(event(1, "a", "A-1", 1), event(2, "b", "B-1", 3));

    private static IngestReply reply(int status, String body) {
        return new IngestReply(status, body.getBytes(StandardCharsets.UTF_8), Optional.empty(), Optional.empty(), null);
    }

    private static IngestReply withRetryAfter(int status, String retryAfter) {
        return new IngestReply(status, new byte[0], Optional.of(retryAfter), Optional.empty(), null);
    }

    private static String receipt(String device, String eventId, String status, String extra) {
        return "{\"deviceId\":\"" + device + "\",\"eventId\":\"" + eventId + "\",\"status\":\"" + status + "\"" + extra
                + "}";
    }

    private RequestOutcome classify(IngestReply reply) {
        return classifier.classify(reply, TWO);
    }

    @Test
    void receipts_of_every_final_state_become_finals_with_centrals_code_message_and_result() {
        for (String status : List.of("accepted", "duplicate", "rejected")) {
            RequestOutcome outcome = classify(reply(
                    200,
                    "{\"receipts\":[" + receipt("b", "B-1", status, "")
                            + ","
                            + receipt("a", "A-1", status, ",\"code\":\"c1\",\"message\":\"m1\",\"result\":{\"n\":1}")
                            + "]}"));
            assertThat(outcome).isInstanceOfSatisfying(RequestOutcome.Answered.class, a -> {
                assertThat(a.problems()).isEmpty();
                assertThat(a.settlements())
                        .containsExactly(
                                new Settlement.Final(1, CommandState.fromDb(status), "c1", "m1", "{\"n\":1}"),
                                new Settlement.Final(2, CommandState.fromDb(status), null, null, null));
            });
        }
    }

    @Test
    void any_2xx_with_receipts_is_an_answer() {
        for (int status : List.of(201, 202, 299)) {
            assertThat(classify(reply(status, "{\"receipts\":[" + receipt("a", "A-1", "accepted", "") + "]}")))
                    .isInstanceOf(RequestOutcome.Answered.class);
        }
    }

    @Test
    void retry_later_waits_retry_after_ms_clamped_or_the_per_event_backoff_and_to_everything_counts_nothing() {
        RequestOutcome outcome = classify(reply(
                200,
                "{\"receipts\":[" + receipt("a", "A-1", "retry_later", ",\"retryAfterMs\":250,\"code\":\"busy\"") + ","
                        + receipt("b", "B-1", "retry_later", ",\"retryAfterMs\":null") + "]}"));
        Instant now = clock.instant();
        assertThat(((RequestOutcome.Answered) outcome).settlements())
                .containsExactly(
                        new Settlement.RetryLater(1, now.plusMillis(250), "central: retry_later / busy", false),
                        new Settlement.RetryLater(
                                2, now.plusMillis(400), "central: retry_later", false)); // attempt 3: 100 ms x 4
        RequestOutcome.Answered mixed =
                answered(receipt("a", "A-1", "retry_later", ""), receipt("b", "B-1", "accepted", ""));
        assertThat(((Settlement.RetryLater) mixed.settlements().get(0)).countsTowardParking())
                .as("central gave another event of the reply a final receipt")
                .isTrue();
        RequestOutcome huge = classify(reply(
                200,
                "{\"receipts\":[" + receipt("a", "A-1", "retry_later", ",\"retryAfterMs\":9223372036854775806") + ","
                        + receipt("b", "B-1", "retry_later", ",\"retryAfterMs\":1e300") + "]}"));
        assertThat(((RequestOutcome.Answered) huge).settlements())
                .extracting(s -> ((Settlement.RetryLater) s).notBefore())
                .as("clamped to forwarder.maxRetryAfter")
                .containsExactly(now.plusSeconds(30), now.plusSeconds(30));
    }

    @Test
    void a_retry_later_in_0_ms_waits_at_least_the_per_event_backoff_so_that_it_cannot_burn_max_attempts_at_once() {
        ClaimedEvent often = event(1, "a", "A-1", 4);
        RequestOutcome outcome = classifier.classify(
                reply(200, "{\"receipts\":[" + receipt("a", "A-1", "retry_later", ",\"retryAfterMs\":0") + "]}"),
                List.of(often));
        assertThat(((RequestOutcome.Answered) outcome).settlements())
                .singleElement()
                .isInstanceOfSatisfying(
                        Settlement.RetryLater.class,
                        r -> assertThat(r.notBefore())
                                .as("attempt 4: 100 ms x 8")
                                .isEqualTo(clock.instant().plusMillis(800)));
    }

    @Test
    void a_reply_of_many_tiny_receipts_for_events_not_sent_is_counted_each_without_a_string_each() {
        String zeros = ",0".repeat(200_000);
        RequestOutcome outcome = classify(reply(
                200,
                "{\"receipts\":[" + receipt("a", "A-1", "accepted", "") + "," + receipt("b", "B-1", "accepted", "")
                        + zeros + "]}"));
        assertThat(outcome).isInstanceOfSatisfying(RequestOutcome.Answered.class, a -> {
            assertThat(a.settlements()).allSatisfy(st -> assertThat(st).isInstanceOf(Settlement.Final.class));
            assertThat(a.count(ReceiptCheck.Violation.NOT_SENT)).isEqualTo(200_000);
            Set<ReceiptCheck.Problem> instances = Collections.newSetFromMap(new IdentityHashMap<>());
            instances.addAll(a.problems());
            assertThat(instances)
                    .as("problem objects, not one per receipt")
                    .hasSizeLessThanOrEqualTo(ReceiptCheck.MAX_NOT_SENT_DETAILS + 1);
        });
    }

    @Test
    void a_redirect_with_a_huge_location_is_told_in_a_short_reason() {
        RequestOutcome outcome = classify(new IngestReply(
                302, new byte[0], Optional.empty(), Optional.of("https://elsewhere/" + "x".repeat(300_000)), null));
        assertThat(outcome)
                .isInstanceOfSatisfying(
                        RequestOutcome.Refused.class,
                        r -> assertThat(r.reason())
                                .contains("https://elsewhere/")
                                .hasSizeLessThan(1_000));
    }

    @Test
    void any_2xx_to_a_request_without_events_a_report_of_expired_commands_is_an_answer() {
        for (IngestReply r : List.of(reply(200, "{\"receipts\":[]}"), reply(204, ""), reply(200, "<html/>"))) {
            assertThat(classifier.classify(r, List.of())).isEqualTo(new RequestOutcome.Answered(List.of(), List.of()));
        }
    }

    @Test
    void a_reply_without_one_believable_receipt_fails_the_request_and_blames_no_event() {
        RequestOutcome outcome = classify(reply(200, "{\"receipts\":[" + receipt("a", "A-1", "lost", "") + "]}"));
        assertThat(outcome)
                .as("A-1's receipt is unreadable, B-1 has none: central answered neither")
                .isInstanceOfSatisfying(
                        RequestOutcome.Failed.class,
                        f -> assertThat(f.cause()).isEqualTo(RequestOutcome.Cause.NO_RECEIPTS));
    }

    @Test
    void a_missing_receipt_counts_toward_parking_only_in_a_reply_that_gives_another_event_a_final_receipt() {
        RequestOutcome.Answered withProof = answered(receipt("a", "A-1", "accepted", ""));
        assertThat(withProof.count(ReceiptCheck.Violation.MISSING)).isEqualTo(1);
        assertThat(withProof.settlements().get(1))
                .as("B-1 left out while A-1 was answered: counted")
                .isInstanceOfSatisfying(
                        Settlement.FailedAlone.class,
                        f -> assertThat(f.notBefore()).isEqualTo(clock.instant().plusMillis(100)));
        RequestOutcome.Answered shedding = answered(receipt("a", "A-1", "retry_later", ""));
        assertThat(shedding.answersEvents()).isFalse();
        assertThat(shedding.settlements())
                .as("central gave no event a final receipt: nothing is counted")
                .allSatisfy(s -> assertThat(s)
                        .isInstanceOfSatisfying(
                                Settlement.RetryLater.class,
                                r -> assertThat(r.countsTowardParking()).isFalse()));
        ClaimedEvent fifthTime = new ClaimedEvent(
                2,
                "b",
                "B-1",
                2,
                "devices/b/commands/t",
                "t",
                "{}".getBytes(StandardCharsets.UTF_8),
                "sha",
                Instant.EPOCH,
                9,
                4,
                Optional.empty());
        assertThat(classifier.noReceipt(fifthTime, "left out", clock.instant()))
                .as("the fifth time in a reply that answers other events")
                .isInstanceOfSatisfying(
                        Settlement.Park.class, p -> assertThat(p.code()).isEqualTo("central_no_receipt"));
    }

    @Test
    void a_2xx_that_answers_no_event_fails_the_request_like_a_5xx_to_be_hunted_not_counted_against_every_event() {
        for (IngestReply r : List.of(
                reply(204, ""),
                reply(200, "not json"),
                reply(200, "{\"receipts\":{}}"),
                reply(200, "<html>maintenance</html>"),
                reply(200, "{\"receipts\":[]}"))) {
            assertThat(classify(r)).as(r.toString()).isInstanceOfSatisfying(RequestOutcome.Failed.class, f -> {
                assertThat(f.cause()).isEqualTo(RequestOutcome.Cause.NO_RECEIPTS);
                assertThat(f.mayBeOneEvent()).isTrue();
                assertThat(f.parkCode()).isEqualTo("central_no_receipt");
                assertThat(f.reason())
                        .containsAnyOf("without a receipts array", "without a believable receipt for any");
            });
        }
    }

    @Test
    void a_refused_connection_is_centrals_doing_and_a_timeout_or_a_dropped_connection_may_be_one_events() {
        assertThat(classify(IngestReply.transportFailure("connection to h:1 refused")))
                .isEqualTo(new RequestOutcome.Failed(
                        "central unreachable: connection to h:1 refused", RequestOutcome.Cause.UNREACHABLE));
        assertThat(classify(IngestReply.timeout(5000)))
                .isInstanceOfSatisfying(
                        RequestOutcome.Failed.class,
                        f -> assertThat(f.cause()).isEqualTo(RequestOutcome.Cause.TIMED_OUT));
        assertThat(classify(IngestReply.transportFailure("connection to h:1 reset")))
                .isInstanceOfSatisfying(
                        RequestOutcome.Failed.class,
                        f -> assertThat(f.cause() == RequestOutcome.Cause.DROPPED && f.mayBeOneEvent())
                                .isTrue());
        assertThat(classify(IngestReply.transportFailure(
                        "connection to h:1 failed: IOException: HTTP/1.1 header parser " + "received no bytes")))
                .isInstanceOfSatisfying(
                        RequestOutcome.Failed.class,
                        f -> assertThat(f.parkCode()).isEqualTo("ingest_connection_dropped"));
        assertThat(classify(IngestReply.transportFailure("host h of ingest.url does not resolve (DNS)")))
                .isInstanceOfSatisfying(
                        RequestOutcome.Failed.class,
                        f -> assertThat(f.mayBeOneEvent()).isFalse());
    }

    @Test
    void a_5xx_other_than_503_is_a_server_error_with_the_body_in_the_reason() {
        assertThat(classify(reply(500, "{\"error\":\"boom\"}\n")))
                .isEqualTo(
                        new RequestOutcome.Failed("HTTP 500: {\"error\":\"boom\"}", RequestOutcome.Cause.SERVER_ERROR));
        assertThat(classify(reply(502, "")))
                .isEqualTo(new RequestOutcome.Failed("HTTP 502", RequestOutcome.Cause.SERVER_ERROR));
    }

    @Test
    void a_429_is_throttled_for_retry_after_as_seconds_or_an_http_date() {
        assertThat(classify(withRetryAfter(429, "3")))
                .isEqualTo(new RequestOutcome.Throttled(Duration.ofSeconds(3), "HTTP 429"));
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                clock.instant().plusSeconds(7).atZone(ZoneOffset.UTC));
        assertThat(classify(withRetryAfter(429, date)))
                .isEqualTo(new RequestOutcome.Throttled(Duration.ofSeconds(7), "HTTP 429"));
        String past = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                clock.instant().minusSeconds(7).atZone(ZoneOffset.UTC));
        assertThat(((RequestOutcome.Throttled) classify(withRetryAfter(429, past))).retryAfter())
                .isZero();
    }

    /** A gateway before a central that dies on one event answers 503 too: hunted like a 5xx, its Retry-After kept. */
    @Test
    void a_503_is_a_failure_one_event_may_cause_that_keeps_its_retry_after() {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                clock.instant().plusSeconds(7).atZone(ZoneOffset.UTC));
        assertThat(classify(withRetryAfter(503, date)))
                .isEqualTo(
                        new RequestOutcome.Failed("HTTP 503", RequestOutcome.Cause.UNAVAILABLE, Duration.ofSeconds(7)));
        assertThat(classify(reply(503, "down")))
                .isEqualTo(
                        new RequestOutcome.Failed("HTTP 503: down", RequestOutcome.Cause.UNAVAILABLE, Duration.ZERO));
        RequestOutcome.Failed failed = (RequestOutcome.Failed) classify(reply(503, ""));
        assertThat(failed.mayBeOneEvent()).isTrue();
        assertThat(failed.answeredWithStatus()).isTrue();
        assertThat(failed.parkCode()).isEqualTo("ingest_unavailable");
    }

    @Test
    void a_retry_after_that_is_missing_garbage_negative_or_too_large_is_zero_or_clamped() {
        assertThat(((RequestOutcome.Throttled) classify(reply(429, ""))).retryAfter())
                .as("none: the backoff decides")
                .isZero();
        assertThat(((RequestOutcome.Throttled) classify(withRetryAfter(429, "soon"))).retryAfter())
                .isZero();
        assertThat(((RequestOutcome.Throttled) classify(withRetryAfter(429, " "))).retryAfter())
                .isZero();
        assertThat(((RequestOutcome.Throttled) classify(withRetryAfter(429, "-5"))).retryAfter())
                .isZero();
        assertThat(((RequestOutcome.Throttled) classify(withRetryAfter(429, "100000000000000000000"))).retryAfter())
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(((RequestOutcome.Failed) classify(withRetryAfter(503, "3600"))).retryAfter())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void a_413_400_or_422_is_a_failure_one_event_may_cause_rejected_at_the_limit_only_with_proof() {
        assertThat(classify(reply(413, "")))
                .isEqualTo(new RequestOutcome.Failed("HTTP 413", RequestOutcome.Cause.TOO_LARGE));
        assertThat(classify(reply(400, "bad")))
                .isEqualTo(new RequestOutcome.Failed("HTTP 400: bad", RequestOutcome.Cause.BAD_REQUEST));
        assertThat(classify(reply(422, "")))
                .isEqualTo(new RequestOutcome.Failed("HTTP 422", RequestOutcome.Cause.BAD_REQUEST));
        assertThat(RequestOutcome.Cause.BAD_REQUEST.rejectsAtLimit()).isTrue();
        assertThat(new RequestOutcome.Failed("HTTP 413", RequestOutcome.Cause.TOO_LARGE).mayBeOneEvent())
                .isTrue();
        assertThat(new RequestOutcome.Failed("HTTP 413", RequestOutcome.Cause.TOO_LARGE).parkCode())
                .isEqualTo("ingest_payload_too_large");
    }

    @Test
    void a_401_404_405_407_or_410_refuses_and_pauses() {
        for (int status : List.of(401, 404, 405, 407, 410)) {
            assertThat(classify(reply(status, ""))).isEqualTo(new RequestOutcome.Refused("HTTP " + status, false));
        }
    }

    @Test
    void a_403_is_hunted_first_a_firewall_answers_it_to_one_event_too() {
        assertThat(classify(reply(403, ""))).isInstanceOfSatisfying(RequestOutcome.Failed.class, f -> {
            assertThat(f.cause()).isEqualTo(RequestOutcome.Cause.FORBIDDEN);
            assertThat(f.mayBeOneEvent()).isTrue();
            assertThat(f.parkCode()).isEqualTo("ingest_forbidden");
        });
    }

    @Test
    void another_4xx_may_follow_one_event_and_is_hunted_like_a_5xx_instead_of_pausing_the_site() {
        for (int status : List.of(409, 415, 418, 451)) {
            assertThat(classify(reply(status, "no"))).isInstanceOfSatisfying(RequestOutcome.Failed.class, f -> {
                assertThat(f.cause()).isEqualTo(RequestOutcome.Cause.REFUSED);
                assertThat(f.mayBeOneEvent()).isTrue();
                assertThat(f.parkCode()).isEqualTo("ingest_refused");
                assertThat(f.reason()).isEqualTo("HTTP " + status + ": no");
            });
        }
    }

    @Test
    void a_3xx_is_a_redirect_alarm_naming_the_location() {
        IngestReply moved =
                new IngestReply(307, new byte[0], Optional.empty(), Optional.of("https://new.example/ingest"), null);
        assertThat(classify(moved)).isInstanceOfSatisfying(RequestOutcome.Refused.class, r -> {
            assertThat(r.redirect()).isTrue();
            assertThat(r.reason()).startsWith("HTTP 307 to https://new.example/ingest: ingest.url is not central's");
        });
        assertThat(((RequestOutcome.Refused) classify(reply(301, ""))).reason()).startsWith("HTTP 301 (no Location)");
    }

    @Test
    void the_per_event_backoff_doubles_per_attempt_up_to_backoff_max() {
        assertThat(List.of(0, 1, 2, 3, 4, 5, 100))
                .extracting(classifier::backoff)
                .containsExactly(
                        Duration.ofMillis(100),
                        Duration.ofMillis(100),
                        Duration.ofMillis(200),
                        Duration.ofMillis(400),
                        Duration.ofMillis(800),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(1));
    }

    @Test
    void a_receipt_over_a_size_cap_is_not_believed_and_its_event_is_settled_as_if_it_had_no_receipt() {
        String big = "x".repeat(4097);
        for (String fields : List.of(
                ",\"result\":{\"blob\":\"" + big + "\"}",
                ",\"message\":\"" + "m".repeat(1025) + "\"",
                ",\"code\":\"" + "c".repeat(129) + "\"",
                ",\"message\":{\"not\":\"" + "m".repeat(1025) + "\"}")) {
            RequestOutcome outcome = classify(reply(
                    200,
                    "{\"receipts\":[" + receipt("a", "A-1", "accepted", fields) + ","
                            + receipt("b", "B-1", "accepted", ",\"result\":{\"ok\":1}") + "]}"));
            assertThat(outcome).isInstanceOfSatisfying(RequestOutcome.Answered.class, a -> {
                assertThat(a.count(ReceiptCheck.Violation.OVERSIZED)).isEqualTo(1);
                assertThat(a.settlements().get(0))
                        .as("counts toward parking, as a missing receipt does")
                        .isInstanceOfSatisfying(Settlement.FailedAlone.class, r -> {
                            assertThat(r.notBefore()).isEqualTo(clock.instant().plusMillis(100));
                            assertThat(r.reason())
                                    .contains("over ingest.maxReceipt")
                                    .contains("of forwarder.maxServerErrors")
                                    .hasSizeLessThan(200);
                        });
                assertThat(a.settlements().get(1))
                        .isEqualTo(new Settlement.Final(2, CommandState.ACCEPTED, null, null, "{\"ok\":1}"));
            });
        }
    }

    /** The answer to a 200 with these receipts. */
    private RequestOutcome.Answered answered(String... receipts) {
        return (RequestOutcome.Answered) classify(reply(200, "{\"receipts\":[" + String.join(",", receipts) + "]}"));
    }

    @Test
    void two_receipts_that_differ_for_one_event_are_a_conflict_and_neither_is_believed() {
        RequestOutcome.Answered a = answered(
                receipt("a", "A-1", "accepted", ""),
                receipt("a", "A-1", "rejected", ",\"code\":\"no\""),
                receipt("b", "B-1", "accepted", ""),
                receipt("b", "B-1", "accepted", ""));
        assertThat(a.problems())
                .extracting(ReceiptCheck.Problem::kind)
                .containsExactly(ReceiptCheck.Violation.CONFLICTING);
        assertThat(a.settlements().get(0))
                .as("counts toward parking, as a missing receipt does (B-1 was answered)")
                .isInstanceOf(Settlement.FailedAlone.class);
        assertThat(a.settlements().get(1))
                .as("the same receipt twice is one receipt")
                .isEqualTo(new Settlement.Final(2, CommandState.ACCEPTED, null, null, null));
    }

    @Test
    void receipts_for_events_that_were_not_sent_are_counted_and_otherwise_ignored() {
        RequestOutcome.Answered a = answered(
                receipt("a", "A-1", "accepted", ""),
                receipt("b", "B-1", "accepted", ""),
                receipt("a", "A-2", "rejected", ""),
                receipt("zz", "B-1", "accepted", ""));
        assertThat(a.count(ReceiptCheck.Violation.NOT_SENT)).isEqualTo(2);
        assertThat(a.problems()).allSatisfy(p -> assertThat(p.eventRowId()).isNull());
        assertThat(a.settlements())
                .containsExactly(
                        new Settlement.Final(1, CommandState.ACCEPTED, null, null, null),
                        new Settlement.Final(2, CommandState.ACCEPTED, null, null, null));
    }
}
