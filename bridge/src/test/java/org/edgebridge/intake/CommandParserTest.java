package org.edgebridge.intake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.config.ConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommandParserTest {
    /** The shipped defaults of intake.maxJsonDepth, intake.maxJsonStringLength and intake.maxJsonNumberLength. */
    private static final JsonLimits SHIPPED = new JsonLimits(
            Integer.parseInt(ConfigKeys.INTAKE_MAX_JSON_DEPTH.defaultValue()),
            Integer.parseInt(ConfigKeys.INTAKE_MAX_JSON_STRING_LENGTH.defaultValue()),
            Integer.parseInt(ConfigKeys.INTAKE_MAX_JSON_NUMBER_LENGTH.defaultValue()));

    private final CommandParser parser = new CommandParser(100, SHIPPED);

    private CommandParser.Parsed parse(String payload) {
        return parse(payload.getBytes(StandardCharsets.UTF_8));
    }

    private CommandParser.Parsed parse(byte[] payload) {
        return parser.parse(new InboundPublish("dev", "devices/dev/commands/a/b", "a/b", payload, Instant.EPOCH));
    }

    private static InboundPublish publish(String payload) {
        return new InboundPublish(
                "dev", "devices/dev/commands/a/b", "a/b", payload.getBytes(StandardCharsets.UTF_8), Instant.EPOCH);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "not json | invalid_json",
                "'' | invalid_json",
                "[1] | invalid_json",
                "\"text\" | invalid_json",
                "{\"commandId\":\"A\"} trailing | invalid_json",
                "{\"commandId\":\"A\",\"commandId\":\"B\"} | invalid_json",
                "{} | missing_command_id",
                "{\"commandId\":null} | missing_command_id",
                "{\"commandId\":7} | invalid_command_id",
                "{\"commandId\":\"\"} | invalid_command_id",
                "{\"commandId\":\"_x\"} | invalid_command_id",
                "{\"commandId\":\"a b\"} | invalid_command_id",
            })
    void bad_payloads_get_their_stable_code(String payload, String code) {
        CommandParser.Parsed parsed = parse(payload);
        assertThat(parsed).isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
            assertThat(i.code().wire()).isEqualTo(code);
            assertThat(i.commandId()).isNull();
        });
    }

    @Test
    void invalid_utf8_is_invalid_json() {
        assertThat(parse(new byte[] {'{', '"', (byte) 0xC3, '"', '}'}))
                .isInstanceOfSatisfying(
                        CommandParser.Invalid.class,
                        i -> assertThat(i.code().wire()).isEqualTo("invalid_json"));
    }

    @Test
    void too_large_payload_keeps_its_command_id_when_one_can_be_read() {
        String big = "{\"commandId\":\"BIG-1\",\"pad\":\"" + "x".repeat(200) + "\"}";
        assertThat(parse(big)).isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
            assertThat(i.code().wire()).isEqualTo("payload_too_large");
            assertThat(i.commandId()).isEqualTo("BIG-1");
        });
        assertThat(parse("x".repeat(101))).isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
            assertThat(i.code().wire()).isEqualTo("payload_too_large");
            assertThat(i.commandId()).isNull();
        });
    }

    @Test
    void a_valid_command_takes_its_type_from_the_payload_or_else_the_topic() {
        assertThat(parse("{\"commandId\":\"A-1.b:c@d_e-\"}"))
                .isInstanceOfSatisfying(
                        CommandParser.Valid.class,
                        v -> assertThat(v.command().type()).isEqualTo("a/b"));
        assertThat(parse("{\"commandId\":\"A\",\"type\":\"custom\"}"))
                .isInstanceOfSatisfying(CommandParser.Valid.class, v -> {
                    assertThat(v.command().type()).isEqualTo("custom");
                    assertThat(v.command().payloadSha256())
                            .isEqualTo(CommandParser.sha256(
                                    "{\"commandId\":\"A\",\"type\":\"custom\"}".getBytes(StandardCharsets.UTF_8)));
                });
        CommandParser roomy = new CommandParser(1000, SHIPPED);
        assertThat(roomy.parse(publish("{\"commandId\":\"" + "a".repeat(128) + "\"}")))
                .isInstanceOf(CommandParser.Valid.class);
        assertThat(roomy.parse(publish("{\"commandId\":\"" + "a".repeat(129) + "\"}")))
                .isInstanceOfSatisfying(
                        CommandParser.Invalid.class,
                        i -> assertThat(i.code().wire()).isEqualTo("invalid_command_id"));
    }

    private static CommandParser.Parsed parseOn(CommandParser parser, String topicType, String payload) {
        return parser.parse(new InboundPublish(
                "dev",
                "devices/dev/commands/" + topicType,
                topicType,
                payload.getBytes(StandardCharsets.UTF_8),
                Instant.EPOCH));
    }

    private static void assertRejected(CommandParser.Parsed parsed, String code) {
        assertThat(parsed)
                .isInstanceOfSatisfying(
                        CommandParser.Invalid.class,
                        i -> assertThat(i.code().wire()).isEqualTo(code));
    }

    @Test
    void json_nested_990_deep_is_rejected_json_limit_exceeded_with_the_shipped_limits() {
        CommandParser roomy = new CommandParser(262_144, SHIPPED);
        String deep = "{\"commandId\":\"DEEP-1\",\"n\":" + "[".repeat(989) + "]".repeat(989) + "}";
        assertRejected(parseOn(roomy, "t", deep), "json_limit_exceeded");
        String fine = "{\"commandId\":\"DEEP-2\",\"n\":" + "[".repeat(SHIPPED.maxDepth() - 1)
                + "]".repeat(SHIPPED.maxDepth() - 1) + "}";
        assertThat(parseOn(roomy, "t", fine)).isInstanceOf(CommandParser.Valid.class);
    }

    @Test
    void a_number_longer_than_the_shipped_limit_is_rejected_json_limit_exceeded() {
        CommandParser roomy = new CommandParser(262_144, SHIPPED);
        assertRejected(parseOn(roomy, "t", command("NUM-1", "\"n\":" + "9".repeat(101) + "}")), JSON_LIMIT);
        assertRejected(parseOn(roomy, "t", command("NUM-2", "\"n\":0." + "9".repeat(200) + "}")), JSON_LIMIT);
        assertThat(parseOn(roomy, "t", command("NUM-3", "\"n\":" + "9".repeat(100) + "}")))
                .isInstanceOf(CommandParser.Valid.class);
    }

    @Test
    void a_string_longer_than_the_limit_is_rejected_json_limit_exceeded() {
        CommandParser strict = new CommandParser(1_000_000, new JsonLimits(32, 1000, 100));
        assertRejected(parseOn(strict, "t", command("STR-1", "\"s\":\"" + "x".repeat(1001) + "\"}")), JSON_LIMIT);
        assertRejected(parseOn(strict, "t", command("STR-2", "\"" + "k".repeat(1001) + "\":1}")), JSON_LIMIT);
        assertThat(parseOn(strict, "t", command("STR-3", "\"s\":\"" + "x".repeat(1000) + "\"}")))
                .isInstanceOf(CommandParser.Valid.class);
    }

    private static final String JSON_LIMIT = "json_limit_exceeded";

    /** The JSON of a command with {@code id} as its commandId, then {@code rest}, which closes the object. */
    private static String command(String id, String rest) {
        return "{\"commandId\":\"" + id + "\"," + rest;
    }

    @ParameterizedTest(name = "topic type {0} is rejected invalid_type")
    @CsvSource(
            delimiter = '|',
            value = {"\ud800", "a/\udc00", "with space", "caf\u00e9", "a\u0000b", "''", "t/", "/t", "a//b"})
    void a_command_type_outside_the_identifier_rule_is_rejected_invalid_type(String type) {
        assertRejected(parseOn(parser, type, "{\"commandId\":\"T-1\"}"), "invalid_type");
    }

    @Test
    void a_payload_type_outside_the_identifier_rule_is_rejected_invalid_type_with_its_command_id() {
        assertThat(parseOn(parser, "t", "{\"commandId\":\"T-2\",\"type\":\"\\ud800\"}"))
                .isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
                    assertThat(i.code().wire()).isEqualTo("invalid_type");
                    assertThat(i.commandId()).isEqualTo("T-2");
                });
        CommandParser roomy = new CommandParser(1000, SHIPPED);
        assertRejected(
                parseOn(roomy, "t", "{\"commandId\":\"T-3\",\"type\":\"" + "a".repeat(129) + "\"}"), "invalid_type");
        assertThat(parseOn(roomy, "t", "{\"commandId\":\"T-4\",\"type\":\"" + "a".repeat(128) + "\"}"))
                .isInstanceOf(CommandParser.Valid.class);
        assertThat(parseOn(roomy, "workorder/arrive-2.b_c:d@e", "{\"commandId\":\"T-5\"}"))
                .isInstanceOf(CommandParser.Valid.class);
    }

    @ParameterizedTest(name = "payload type {0} is rejected invalid_type, not replaced by the topic's")
    @CsvSource(
            delimiter = '|',
            value = {"\"\"", "\"  \"", "7", "{\"a\":1}", "[\"t\"]", "true"})
    void a_payload_type_that_is_there_but_no_type_is_rejected_not_replaced_by_the_topics(String json) {
        assertRejected(parseOn(parser, "t", "{\"commandId\":\"T-6\",\"type\":" + json + "}"), "invalid_type");
    }

    @Test
    void a_payload_type_of_null_is_absent_and_the_topics_type_is_used() {
        assertThat(parseOn(parser, "t", "{\"commandId\":\"T-7\",\"type\":null}"))
                .isInstanceOfSatisfying(
                        CommandParser.Valid.class,
                        v -> assertThat(v.command().type()).isEqualTo("t"));
    }

    @Test
    void an_expires_at_is_read_as_rfc_3339_and_the_earlier_of_it_and_the_types_rule_wins() {
        CommandParser withRule = new CommandParser(
                1000,
                SHIPPED,
                new ExpiryRules(java.util.List.of(new ExpiryRules.Rule("a/+", java.time.Duration.ofMinutes(10)))));
        Instant at = Instant.parse("2026-12-02T06:00:00Z");
        Function<String, CommandParser.Parsed> parseAt = p -> withRule.parse(
                new InboundPublish("dev", "devices/dev/commands/a/b", "a/b", p.getBytes(StandardCharsets.UTF_8), at));
        assertThat(parseAt.apply("{\"commandId\":\"A\"}"))
                .isInstanceOfSatisfying(
                        CommandParser.Valid.class,
                        v -> assertThat(v.command().expiresAt()).as("the rule").contains(at.plusSeconds(600)));
        assertThat(parseAt.apply("{\"commandId\":\"A\",\"expiresAt\":\"2026-12-02T07:00:00+01:00\"}"))
                .isInstanceOfSatisfying(
                        CommandParser.Valid.class,
                        v -> assertThat(v.command().expiresAt())
                                .as("06:00Z, earlier than the rule")
                                .contains(at));
        assertThat(parseAt.apply("{\"commandId\":\"A\",\"expiresAt\":\"2026-12-03T00:00:00Z\"}"))
                .isInstanceOfSatisfying(
                        CommandParser.Valid.class,
                        v -> assertThat(v.command().expiresAt())
                                .as("the rule is earlier")
                                .contains(at.plusSeconds(600)));
        assertThat(parse("{\"commandId\":\"A\"}"))
                .isInstanceOfSatisfying(
                        CommandParser.Valid.class,
                        v -> assertThat(v.command().expiresAt())
                                .as("no rule, no field: never")
                                .isEmpty());
        for (String bad : List.of("\"tomorrow\"", "1733119200", "\"2026-12-02T06:00:00\"", "{}")) {
            assertThat(parse("{\"commandId\":\"A\",\"expiresAt\":" + bad + "}"))
                    .as(bad)
                    .isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
                        assertThat(i.code().wire()).isEqualTo("invalid_expires_at");
                        assertThat(i.commandId()).isEqualTo("A");
                    });
        }
    }

    /**
     * Issue 40 point 1: an expiresAt Java reads but whose milliseconds overflow a long (the writer's batch failed on
     * it), a year not of four digits, or one past intake.maxExpiresIn (shipped: 366 days) is rejected here, with the
     * command's id; the horizon itself is taken.
     */
    @Test
    void an_expires_at_without_a_four_digit_year_or_past_the_horizon_is_rejected_invalid_expires_at() {
        assertThat(ConfigKeys.INTAKE_MAX_EXPIRES_IN.defaultValue()).isEqualTo("366d");
        CommandParser shipped = new CommandParser(1000, SHIPPED, ExpiryRules.NONE, Duration.ofDays(366));
        Instant at = Instant.parse("2026-12-02T06:00:00Z");
        Function<String, CommandParser.Parsed> parseAt = e -> shipped.parse(new InboundPublish(
                "dev",
                "devices/dev/commands/a/b",
                "a/b",
                ("{\"commandId\":\"XA1\",\"expiresAt\":\"" + e + "\"}").getBytes(StandardCharsets.UTF_8),
                at));
        for (String bad : List.of(
                "+999999999-12-31T23:59:59Z",
                "-999999999-01-01T00:00:00Z",
                "+10000-01-01T00:00:00Z",
                "9999-12-31T23:59:59Z",
                "2027-12-04T06:00:00Z")) {
            assertThat(parseAt.apply(bad)).as(bad).isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
                assertThat(i.code().wire()).isEqualTo("invalid_expires_at");
                assertThat(i.commandId()).isEqualTo("XA1");
            });
        }
        assertThat(parseAt.apply("2027-12-03T06:00:00Z"))
                .as("366 days on: the horizon itself")
                .isInstanceOf(CommandParser.Valid.class);
        assertThat(parseAt.apply("0001-01-01T00:00:00Z"))
                .as("long past: stored as expired by the writer")
                .isInstanceOf(CommandParser.Valid.class);
        assertThat(parseAt.apply("2026-12-31T23:59:60.123456789012z"))
                .as("RFC 3339 allows a leap second, any " + "fraction and a lower-case z")
                .isInstanceOfSatisfying(
                        CommandParser.Valid.class,
                        v -> assertThat(v.command().expiresAt()).contains(Instant.parse("2027-01-01T00:00:00Z")));
    }
}
