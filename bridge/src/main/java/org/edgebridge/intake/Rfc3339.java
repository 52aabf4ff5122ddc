package org.edgebridge.intake;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an RFC 3339 {@code date-time} (§5.6) as a device may write it, which Java's ISO formatters do not all take: a
 * four-digit year, {@code T} or {@code t}, any number of fraction digits (those past nanoseconds are dropped), a leap
 * second {@code :60} (read as the first instant of the next second, as Java's clock has no leap seconds), and {@code
 * Z}, {@code z} or {@code ±hh:mm} up to ±23:59 (with {@code -00:00}); also, as Java's ISO formatter read them before, a
 * time without seconds and an offset with seconds. Anything else, or a field out of range, is empty. Pure.
 */
final class Rfc3339 {
    private Rfc3339() {}

    /** Long enough for any date-time a device means; the fraction's digits past nanoseconds carry nothing. */
    static final int MAX_LENGTH = 64;

    /**
     * RFC 3339's {@code date-time}, and what Java's {@code ISO_OFFSET_DATE_TIME} took before this parser: a time
     * without seconds ({@code 18:30Z}) and an offset with seconds ({@code +01:00:00}).
     */
    private static final Pattern DATE_TIME = Pattern.compile("([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2})"
            + "(?::([0-9]{2})(?:\\.([0-9]+))?)?"
            + "(?:([Zz])|([+-])([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)");

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
            int second = m.group(6) == null ? 0 : number(m, 6);
            boolean leap = second == 60;
            String fraction = m.group(7) == null ? "" : m.group(7);
            int nanos = fraction.isEmpty() ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
            LocalTime time = LocalTime.of(number(m, 4), number(m, 5), leap ? 59 : second, nanos);
            long offsetSeconds = 0;
            if (m.group(8) == null) {
                // by hand: RFC 3339 allows offsets to ±23:59, Java's ZoneOffset only to ±18:00
                int hours = number(m, 10);
                int minutes = number(m, 11);
                int seconds = m.group(12) == null ? 0 : number(m, 12);
                if (hours > 23 || minutes > 59 || seconds > 59) {
                    return Optional.empty();
                }
                offsetSeconds = ("-".equals(m.group(9)) ? -1 : 1) * (hours * 3600L + minutes * 60L + seconds);
            }
            Instant instant = Instant.ofEpochSecond(
                    LocalDateTime.of(date, time).toEpochSecond(ZoneOffset.UTC) - offsetSeconds, nanos);
            return Optional.of(leap ? instant.plusSeconds(1).minusNanos(nanos) : instant);
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }

    private static int number(Matcher m, int group) {
        return Integer.parseInt(m.group(group));
    }
}
