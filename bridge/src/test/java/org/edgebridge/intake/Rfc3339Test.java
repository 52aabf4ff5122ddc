package org.edgebridge.intake;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class Rfc3339Test {

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
        "2026-12-02T06:00:00Z, 2026-12-02T06:00:00Z",
        "2026-12-02t06:00:00z, 2026-12-02T06:00:00Z",
        "2026-12-02T07:00:00+01:00, 2026-12-02T06:00:00Z",
        "2026-12-02T06:00:00-00:00, 2026-12-02T06:00:00Z",
        "2026-12-02T01:30:00-04:30, 2026-12-02T06:00:00Z",
        "2026-12-02T06:00:00.5Z, 2026-12-02T06:00:00.500Z",
        "2026-12-02T06:00:00.123456789Z, 2026-12-02T06:00:00.123456789Z",
        // twelve fraction digits: those past nanoseconds are dropped
        "2026-12-02T06:00:00.123456789999Z, 2026-12-02T06:00:00.123456789Z",
        // a leap second is the first instant of the next second
        "2016-12-31T23:59:60Z, 2017-01-01T00:00:00Z",
        "2016-12-31T23:59:60.5Z, 2017-01-01T00:00:00Z",
        "2017-01-01T00:59:60+01:00, 2017-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z, 0001-01-01T00:00:00Z",
        // RFC 3339 allows offsets to ±23:59; Java's ZoneOffset stops at ±18:00
        "2026-12-02T23:59:00+23:59, 2026-12-02T00:00:00Z",
        // what Java's ISO_OFFSET_DATE_TIME took before: no seconds, an offset with seconds
        "2026-12-02T06:00Z, 2026-12-02T06:00:00Z",
        "2026-12-02T07:00:00+01:00:00, 2026-12-02T06:00:00Z",
    })
    void reads_what_rfc_3339_allows(String text, String instant) {
        assertThat(Rfc3339.parse(text)).contains(Instant.parse(instant));
    }

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(
            strings = {
                "",
                "tomorrow",
                "2026-12-02",
                "2026-12-02T06:00:00",
                "2026-12-02T06Z",
                "2026-12-02 06:00:00Z",
                "+999999999-12-31T23:59:59Z",
                "-2026-12-02T06:00:00Z",
                "+10000-01-01T00:00:00Z",
                "26-12-02T06:00:00Z",
                "2026-13-02T06:00:00Z",
                "2026-02-30T06:00:00Z",
                "2026-12-02T24:00:00Z",
                "2026-12-02T06:60:00Z",
                "2026-12-02T06:00:61Z",
                "2026-12-02T06:00:00.Z",
                "2026-12-02T06:00:00+0100",
                "2026-12-02T06:00:00+01:60",
                "2026-12-02T06:00:00+24:00",
                "2026-12-02T06:00:00+01:00:60",
                "2026-12-02T06:00.5Z",
                "2026-12-02T06:00:00Z ",
                " 2026-12-02T06:00:00Z",
                "2026-12-02T06:00:00UTC",
                "２０２６-12-02T06:00:00Z"
            })
    void refuses_anything_else(String text) {
        assertThat(Rfc3339.parse(text)).isEmpty();
    }

    @Test
    void a_fraction_past_the_length_bound_is_refused_rather_than_read() {
        String text = "2026-12-02T06:00:00." + "1".repeat(Rfc3339.MAX_LENGTH) + "Z";
        assertThat(Rfc3339.parse(text)).isEmpty();
    }

    /** Generated: every instant Java writes with an offset reads back as itself, whatever the case of T and Z. */
    @Test
    void every_generated_date_time_reads_back_as_the_instant_it_was_written_from() {
        long seed = Long.getLong("rfc3339.seed", System.nanoTime());
        System.out.println("Rfc3339Test: seed " + seed + " (again: -Drfc3339.seed=" + seed + ")");
        Random random = new Random(seed);
        long first = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
        long last = Instant.parse("9998-12-31T00:00:00Z").getEpochSecond();
        for (int i = 0; i < 10_000; i++) {
            Instant instant = Instant.ofEpochSecond(
                    first + (long) (random.nextDouble() * (last - first)),
                    random.nextBoolean() ? 0 : random.nextInt(1_000_000_000));
            ZoneOffset offset = ZoneOffset.ofTotalSeconds((random.nextInt(18 * 4 * 2 + 1) - 18 * 4) * 15 * 60);
            String text = DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(OffsetDateTime.ofInstant(instant, offset));
            if (random.nextBoolean()) {
                text = text.replace('T', 't').replace('Z', 'z');
            }
            assertThat(Rfc3339.parse(text)).as("seed %d: %s", seed, text).contains(instant);
        }
    }
}
