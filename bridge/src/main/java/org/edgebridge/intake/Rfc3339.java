package org.edgebridge.intake;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an RFC 3339 {@code date-time} (§5.6) as a device may write it, which Java's ISO formatters do not all take:
 * a four-digit year, {@code T} or {@code t}, any number of fraction digits (those past nanoseconds are dropped), a
 * leap second {@code :60} (read as the first instant of the next second, as Java's clock has no leap seconds), and
 * {@code Z}, {@code z} or {@code ±hh:mm} (with {@code -00:00}). Anything else, or a field out of range, is empty.
 * Pure.
 */
final class Rfc3339 {
    private Rfc3339() {}

    /** Long enough for any date-time a device means; the fraction's digits past nanoseconds carry nothing. */
    static final int MAX_LENGTH = 64;

    private static final Pattern DATE_TIME =
            Pattern.compile("([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.([0-9]+))?"
                    + "(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))");

    static Optional<Instant> parse(String text) {
        if (text.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        Matcher m = DATE_TIME.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            LocalDate date = LocalDate.of(number(m, 1), number(m, 2), number(m, 3));
            int second = number(m, 6);
            boolean leap = second == 60;
            String fraction = m.group(7) == null ? "" : m.group(7);
            int nanos = fraction.isEmpty() ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
            LocalTime time = LocalTime.of(number(m, 4), number(m, 5), leap ? 59 : second, nanos);
            ZoneOffset offset = m.group(8) != null
                    ? ZoneOffset.UTC
                    : ZoneOffset.ofHoursMinutes(sign(m) * number(m, 10), sign(m) * number(m, 11));
            Instant instant = OffsetDateTime.of(date, time, offset).toInstant();
            return Optional.of(leap ? instant.plusSeconds(1).minusNanos(nanos) : instant);
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }

    private static int number(Matcher m, int group) {
        return Integer.parseInt(m.group(group));
    }

    private static int sign(Matcher m) {
        return "-".equals(m.group(9)) ? -1 : 1;
    }
}
