package org.edgebridge.commission;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;

/**
 * The box's clock against central's {@code Date} header. The header has whole seconds and came some time between the
 * request leaving and the reply arriving, so central's time then was in {@code [date, date + 1 s)} and the box's in
 * {@code [sent, received]}: the skew is taken between the middles, within half of both spans ({@link #uncertainty}).
 * Pure.
 *
 * @param skew central's clock minus the box's (positive: the box is behind)
 * @param uncertainty how far off {@code skew} may be
 */
record ClockSkew(Duration skew, Duration uncertainty) {
    /** The largest skew that passes: commands' {@code receivedAt} and {@code expiresAt} are read by central's clock. */
    static final Duration MAX = Duration.ofSeconds(10);

    /** @return empty when {@code dateHeader} is not an HTTP date (RFC 9110 §5.6.7) */
    static Optional<ClockSkew> of(String dateHeader, Instant sent, Instant received) {
        Instant central;
        try {
            central = ZonedDateTime.parse(dateHeader.trim(), DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant();
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
        Duration roundTrip = Duration.between(sent, received);
        Instant boxMiddle = sent.plus(roundTrip.dividedBy(2));
        Instant centralMiddle = central.plusMillis(500);
        return Optional.of(new ClockSkew(
                Duration.between(boxMiddle, centralMiddle),
                roundTrip.dividedBy(2).plusMillis(500)));
    }

    /** Whether the skew is over {@link #MAX} for certain, whatever the uncertainty. */
    boolean tooLarge() {
        return skew.abs().minus(uncertainty).compareTo(MAX) > 0;
    }

    /** E.g. "the box's clock is 312.4 s behind central's (± 0.5 s)". */
    String describe() {
        double seconds = skew.abs().toMillis() / 1000.0;
        String direction = skew.isNegative() ? "ahead of" : "behind";
        return String.format(
                Locale.ROOT,
                "the box's clock is %.1f s %s central's (± %.1f s)",
                seconds,
                direction,
                uncertainty.toMillis() / 1000.0);
    }
}
