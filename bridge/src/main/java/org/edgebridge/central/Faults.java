package org.edgebridge.central;

/**
 * A fault the reference central plays for the next {@code count} requests (-1: until changed).
 *
 * @param mode {@code none}, {@code status} (answer {@code httpStatus} without applying anything),
 *     {@code lose_reply} (apply, then answer 500 as if the reply was lost), {@code retry_later}
 *     (answer 200 with a retry_later receipt for every event)
 */
public record Faults(String mode, int httpStatus, Integer retryAfterSeconds, long retryAfterMs, int count) {
    public static final Faults NONE = new Faults("none", 0, null, 0, -1);
}
