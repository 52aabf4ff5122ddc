package org.edgebridge.central;

import java.time.Clock;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

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
 *     {@code holdMs}, or a normal answer (one in five each);
 *     {@code answer_status}: apply and answer the receipts as usual, but with {@code httpStatus} (e.g. 201, 202);
 *     {@code poison_500}: answer {@code httpStatus} (500 if unset) to any request holding the event
 *     {@code poisonEventId}, without applying anything; other requests are answered normally
 * @param retryAfterRaw with {@code status}: the {@code Retry-After} header sent verbatim (wins over
 *     {@code retryAfterSeconds}), e.g. a number too large for any clock
 */
public record Faults(
        String mode,
        int httpStatus,
        @Nullable Integer retryAfterSeconds,
        boolean retryAfterAsDate,
        long retryAfterMs,
        long holdMs,
        int count,
        @Nullable String retryAfterRaw,
        @Nullable String poisonEventId) {
    static final List<String> MODES = List.of(
            "none",
            "status",
            "lose_reply",
            "hold_reply",
            "retry_later",
            "reject",
            "omit_receipts",
            "poison_400",
            "chaos",
            "answer_status",
            "poison_500");
    public static final Faults NONE = new Faults("none", 0, null, false, 0, 0, -1);

    public Faults {
        if (mode == null || !MODES.contains(mode)) {
            throw new IllegalArgumentException("mode must be one of " + MODES);
        }
    }

    public Faults(
            String mode,
            int httpStatus,
            @Nullable Integer retryAfterSeconds,
            boolean retryAfterAsDate,
            long retryAfterMs,
            long holdMs,
            int count) {
        this(mode, httpStatus, retryAfterSeconds, retryAfterAsDate, retryAfterMs, holdMs, count, null, null);
    }

    /** {@code status} with a raw {@code Retry-After} header. */
    public static Faults statusWithRetryAfter(int httpStatus, String retryAfterRaw, int count) {
        return new Faults("status", httpStatus, null, false, 0, 0, count, retryAfterRaw, null);
    }

    /** Every request holding {@code eventId} gets {@code httpStatus}, until changed. */
    public static Faults poison(String eventId, int httpStatus) {
        return new Faults("poison_500", httpStatus, null, false, 0, 0, -1, null, eventId);
    }

    public static Faults status(int httpStatus, @Nullable Integer retryAfterSeconds, int count) {
        return new Faults("status", httpStatus, retryAfterSeconds, false, 0, 0, count);
    }

    public static Faults of(String mode, int count) {
        return new Faults(mode, 0, null, false, 0, 0, count);
    }

    /** The same fault with one request fewer to go. */
    Faults next() {
        return count == 1
                ? NONE
                : count < 0
                        ? this
                        : new Faults(
                                mode,
                                httpStatus,
                                retryAfterSeconds,
                                retryAfterAsDate,
                                retryAfterMs,
                                holdMs,
                                count - 1,
                                retryAfterRaw,
                                poisonEventId);
    }

    /** The {@code Retry-After} header a {@code status} fault sends, if any: verbatim, in seconds or as an HTTP date. */
    Optional<String> retryAfterHeader(Clock clock) {
        if (retryAfterRaw != null) {
            return Optional.of(retryAfterRaw);
        }
        if (retryAfterSeconds == null) {
            return Optional.empty();
        }
        return Optional.of(
                retryAfterAsDate
                        ? DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(clock.withZone(ZoneOffset.UTC))
                                .plusSeconds(retryAfterSeconds))
                        : String.valueOf(retryAfterSeconds));
    }
}
