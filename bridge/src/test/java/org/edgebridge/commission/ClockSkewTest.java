package org.edgebridge.commission;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The skew from central's whole-second {@code Date} and the request's round trip, and when it is too large. */
class ClockSkewTest {
    private static final Instant SENT = Instant.parse("2026-12-06T01:00:00.000Z");

    @Test
    void the_skew_is_taken_between_the_middles_within_half_of_both_spans() {
        ClockSkew s = ClockSkew.of("Sun, 06 Dec 2026 01:00:00 GMT", SENT, SENT.plusMillis(200))
                .orElseThrow();
        assertThat(s.skew()).isEqualTo(Duration.ofMillis(400)); // central 00.5 (middle of its second), box 00.1
        assertThat(s.uncertainty()).isEqualTo(Duration.ofMillis(600));
        assertThat(s.tooLarge()).isFalse();
        assertThat(s.describe()).isEqualTo("the box's clock is 0.4 s behind central's (± 0.6 s)");
    }

    @Test
    void a_box_ahead_by_more_than_ten_seconds_beyond_the_uncertainty_is_too_large() {
        ClockSkew ahead = ClockSkew.of("Sun, 6 Dec 2026 00:59:48 GMT", SENT, SENT.plusMillis(200))
                .orElseThrow();
        assertThat(ahead.describe()).isEqualTo("the box's clock is 11.6 s ahead of central's (± 0.6 s)");
        assertThat(ahead.tooLarge()).isTrue();
    }

    @Test
    void a_slow_reply_leaves_room_for_central_having_stamped_it_late() {
        String date = "Sun, 6 Dec 2026 01:00:14 GMT";
        assertThat(ClockSkew.of(date, SENT, SENT.plusMillis(200)).orElseThrow().tooLarge())
                .isTrue();
        ClockSkew slow = ClockSkew.of(date, SENT, SENT.plusSeconds(4)).orElseThrow();
        assertThat(slow.skew()).isEqualTo(Duration.ofMillis(12_500));
        assertThat(slow.tooLarge())
                .as("central may have stamped it 4 s after it was sent")
                .isFalse();
    }

    @Test
    void a_date_that_is_not_an_http_date_gives_no_skew() {
        assertThat(ClockSkew.of("yesterday", SENT, SENT)).isEmpty();
        assertThat(ClockSkew.of("2026-12-06T01:00:00Z", SENT, SENT)).isEmpty();
    }
}
