package org.edgebridge.central;

/**
 * A fault the reference central plays for the next {@code count} requests (-1: until changed).
 *
 * @param mode {@code none}; {@code status} (answer {@code httpStatus}, with {@code Retry-After:
 *     retryAfterSeconds} if set, without applying anything); {@code lose_reply} (apply, then answer 500 as if
 *     the reply was lost); {@code hold_reply} (apply, then hold the reply for {@code holdMs}); {@code retry_later}
 *     (answer 200 with a retry_later receipt, {@code retryAfterMs}, for every event)
 */
public record Faults(String mode, int httpStatus, Integer retryAfterSeconds, long retryAfterMs, long holdMs, int count) {
    public static final Faults NONE = new Faults("none", 0, null, 0, 0, -1);

    public Faults {
        if (mode == null || !java.util.List.of("none", "status", "lose_reply", "hold_reply", "retry_later").contains(mode)) {
            throw new IllegalArgumentException("mode must be none, status, lose_reply, hold_reply or retry_later");
        }
    }

    public static Faults status(int httpStatus, Integer retryAfterSeconds, int count) {
        return new Faults("status", httpStatus, retryAfterSeconds, 0, 0, count);
    }

    public static Faults of(String mode, int count) {
        return new Faults(mode, 0, null, 0, 0, count);
    }
}
