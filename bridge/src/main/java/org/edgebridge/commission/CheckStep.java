package org.edgebridge.commission;

import java.util.Optional;

/**
 * One step of the check and how it went.
 *
 * @param step what was checked: {@code dns}, {@code tcp}, {@code proxy}, {@code tls}, {@code client-certificate},
 *     {@code oauth2-token}, {@code request} or {@code clock}
 * @param detail what was found, in plain words: the reason when it failed
 * @param fix what to do about a failure (empty when it passed or was skipped)
 * @param millis how long the step took
 */
public record CheckStep(String step, Status status, String detail, Optional<String> fix, long millis) {
    /** {@code skip}: not needed with these settings, or not tried because an earlier step failed. */
    public enum Status {
        PASS,
        FAIL,
        SKIP
    }

    static CheckStep pass(String step, String detail, long millis) {
        return new CheckStep(step, Status.PASS, detail, Optional.empty(), millis);
    }

    static CheckStep fail(String step, String reason, String fix, long millis) {
        return new CheckStep(step, Status.FAIL, reason, Optional.of(fix), millis);
    }

    static CheckStep skip(String step, String why) {
        return new CheckStep(step, Status.SKIP, why, Optional.empty(), 0);
    }

    public boolean failed() {
        return status == Status.FAIL;
    }
}
