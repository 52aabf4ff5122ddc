package org.edgebridge.forward;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;

/**
 * The wait after the n-th failed request in a row: w = backoffInitial x 2^(n-1), at most backoffMax, drawn uniformly
 * from [w/2, w] (docs/forwarding.md). Resilience4j's exponential random backoff below backoffMax; at it, its
 * randomized interval (its exponential one would clip the draws at the cap, and the waits of bridges that failed
 * together would line up there). Thread-safe.
 */
final class RequestBackoff {
    private final IntervalFunction growing;
    private final IntervalFunction capped;
    private final int firstCappedFailure;

    RequestBackoff(Duration initial, Duration max) {
        // a wait of w drawn uniformly within [w/2, w]: Resilience4j randomizes 3/4 of w by a third either way
        this.growing = IntervalFunction.ofExponentialRandomBackoff(threeQuarters(initial), 2.0, 1.0 / 3);
        this.capped = IntervalFunction.ofRandomized(threeQuarters(max), 1.0 / 3);
        this.firstCappedFailure = firstFailureReaching(initial, max);
    }

    Duration after(int failures) {
        int n = Math.max(1, failures);
        return Duration.ofMillis(n < firstCappedFailure ? growing.apply(n) : capped.apply(1));
    }

    private static long threeQuarters(Duration d) {
        return Math.max(1, d.toMillis() * 3 / 4);
    }

    /** The first n at which initial x 2^(n-1) reaches max. */
    private static int firstFailureReaching(Duration initial, Duration max) {
        int n = 1;
        for (Duration w = initial; w.compareTo(max) < 0 && n < 62; w = w.multipliedBy(2)) {
            n++;
        }
        return n;
    }
}
