package org.edgebridge.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;

class FailedLoginsTest {
    @Test
    void failed_logins_throttle_a_client_id_or_an_address_until_their_minute_is_over() {
        TestClock clock = new TestClock();
        FailedLogins failures = new FailedLogins(clock, 3, 5);
        for (int i = 0; i < 3; i++) {
            assertThat(failures.throttled("dev", "10.0.0.1")).isFalse();
            failures.failed("dev", "10.0.0.1");
        }
        assertThat(failures.throttled("dev", "10.0.0.2"))
                .as("client id throttled from any address")
                .isTrue();
        assertThat(failures.throttled("other", "10.0.0.1"))
                .as("address below its limit")
                .isFalse();
        failures.failed("x1", "10.0.0.1");
        failures.failed("x2", "10.0.0.1");
        assertThat(failures.throttled("other", "10.0.0.1"))
                .as("address at its limit")
                .isTrue();
        assertThat(failures.throttled("other", "10.0.0.9")).isFalse();
        clock.advance(Duration.ofSeconds(61));
        assertThat(failures.throttled("dev", "10.0.0.1")).isFalse();
    }
}
