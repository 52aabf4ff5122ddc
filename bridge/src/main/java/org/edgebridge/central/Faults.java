package org.edgebridge.central;

import java.util.List;

/**
 * A fault the reference central plays for the next {@code count} requests (-1: until changed).
 *
 * @param mode one of:
 *     {@code none};
 *     {@code status}: answer {@code httpStatus} without applying anything, with {@code Retry-After} if
 *     {@code retryAfterSeconds} is set (as an HTTP date when {@code retryAfterAsDate});
 *     {@code lose_reply}: apply, then answer 500 as if the reply was lost;
 *     {@code hold_reply}: apply, then hold the reply for {@code holdMs};
 *     {@code retry_later}: answer 200 with a retry_later receipt ({@code retryAfterMs}) for every event;
 *     {@code reject}: answer 200 with a rejected receipt ({@code sim_rejected}) for every event;
 *     {@code omit_receipts}: apply, and answer 200 without receipts for the events;
 *     {@code poison_400}: answer 400 to any request holding an event whose payload has {@code "poison":true};
 *     {@code chaos}: each request, at random: 503 or 429 with Retry-After 1 s, a lost reply, a reply held
 *     {@code holdMs}, or a normal answer (one in five each)
 */
public record Faults(String mode, int httpStatus, Integer retryAfterSeconds, boolean retryAfterAsDate, long retryAfterMs,
        long holdMs, int count) {
    static final List<String> MODES = List.of("none", "status", "lose_reply", "hold_reply", "retry_later", "reject",
            "omit_receipts", "poison_400", "chaos");
    public static final Faults NONE = new Faults("none", 0, null, false, 0, 0, -1);

    public Faults {
        if (mode == null || !MODES.contains(mode)) {
            throw new IllegalArgumentException("mode must be one of " + MODES);
        }
    }

    public static Faults status(int httpStatus, Integer retryAfterSeconds, int count) {
        return new Faults("status", httpStatus, retryAfterSeconds, false, 0, 0, count);
    }

    public static Faults of(String mode, int count) {
        return new Faults(mode, 0, null, false, 0, 0, count);
    }

    /** The same fault with one request fewer to go. */
    Faults next() {
        return count == 1 ? NONE : count < 0 ? this
                : new Faults(mode, httpStatus, retryAfterSeconds, retryAfterAsDate, retryAfterMs, holdMs, count - 1);
    }
}
