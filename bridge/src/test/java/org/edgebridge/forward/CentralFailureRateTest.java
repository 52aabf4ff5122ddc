package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;

class CentralFailureRateTest {
    private final TestClock clock = new TestClock();
    private final CentralFailureRate rate = new CentralFailureRate(5, clock);

    @Test
    void with_nothing_known_or_a_healthy_central_max_server_errors_failures_park_an_event() {
        assertThat(rate.share()).isEqualTo(CentralFailureRate.HEALTHY_SHARE);
        assertThat(rate.failuresToPark()).isEqualTo(5);
        for (int i = 0; i < 100; i++) {
            rate.answered();
        }
        assertThat(rate.failuresToPark()).isEqualTo(5);
        assertThat(new CentralFailureRate(1, clock).failuresToPark())
                .as("a site's own setting still holds")
                .isEqualTo(1);
    }

    @Test
    void
            a_central_failing_half_of_the_requests_at_random_asks_so_many_failures_that_chance_is_as_unlikely_as_five_at_one_in_twenty() {
        for (int i = 0; i < 50; i++) {
            if (i % 2 == 0) {
                rate.failed();
            } else {
                rate.answered();
            }
        }
        int n = rate.failuresToPark();
        // an innocent event fails alone about as often as the others, half the time: parked by chance less than once
        // in 100,000 suspects (the prior keeps the estimate a little below the half with 50 requests known)
        assertThat(Math.pow(0.5, n)).isLessThan(1e-5);
        assertThat(n).isBetween(16, 25);
        assertThat(Math.pow(rate.share(), n)).isLessThanOrEqualTo(Math.pow(CentralFailureRate.HEALTHY_SHARE, 5));
    }

    @Test
    void it_remembers_only_the_last_fifty_requests_of_the_last_fifteen_minutes() {
        for (int i = 0; i < 1000; i++) {
            rate.failed();
        }
        assertThat(rate.failuresToPark()).as("central failing all: bounded").isLessThan(400);
        for (int i = 0; i < CentralFailureRate.WINDOW; i++) {
            rate.answered();
        }
        assertThat(rate.failuresToPark())
                .as("the old failures are out of the window")
                .isEqualTo(5);
        for (int i = 0; i < 20; i++) {
            rate.failed();
        }
        assertThat(rate.failuresToPark()).isGreaterThan(5);
        clock.advance(Duration.ofMinutes(16));
        assertThat(rate.failuresToPark()).as("an old outage is forgotten").isEqualTo(5);
    }
}
