package org.edgebridge.intake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.edgebridge.broker.InboundPublish;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommandParserTest {
    private final CommandParser parser = new CommandParser(100);

    private CommandParser.Parsed parse(String payload) {
        return parse(payload.getBytes(StandardCharsets.UTF_8));
    }

    private CommandParser.Parsed parse(byte[] payload) {
        return parser.parse(new InboundPublish("dev", "devices/dev/commands/a/b", "a/b", payload, Instant.EPOCH));
    }

    private static InboundPublish publish(String payload) {
        return new InboundPublish("dev", "devices/dev/commands/a/b", "a/b", payload.getBytes(StandardCharsets.UTF_8), Instant.EPOCH);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
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
            assertThat(i.code()).isEqualTo(code);
            assertThat(i.commandId()).isNull();
        });
    }

    @Test
    void invalid_utf8_is_invalid_json() {
        assertThat(parse(new byte[] {'{', '"', (byte) 0xC3, '"', '}'}))
                .isInstanceOfSatisfying(CommandParser.Invalid.class, i -> assertThat(i.code()).isEqualTo("invalid_json"));
    }

    @Test
    void too_large_payload_keeps_its_command_id_when_one_can_be_read() {
        String big = "{\"commandId\":\"BIG-1\",\"pad\":\"" + "x".repeat(200) + "\"}";
        assertThat(parse(big)).isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
            assertThat(i.code()).isEqualTo("payload_too_large");
            assertThat(i.commandId()).isEqualTo("BIG-1");
        });
        assertThat(parse("x".repeat(101))).isInstanceOfSatisfying(CommandParser.Invalid.class, i -> {
            assertThat(i.code()).isEqualTo("payload_too_large");
            assertThat(i.commandId()).isNull();
        });
    }

    @Test
    void a_valid_command_takes_its_type_from_the_payload_or_else_the_topic() {
        assertThat(parse("{\"commandId\":\"A-1.b:c@d_e-\"}")).isInstanceOfSatisfying(CommandParser.Valid.class,
                v -> assertThat(v.command().type()).isEqualTo("a/b"));
        assertThat(parse("{\"commandId\":\"A\",\"type\":\"custom\"}")).isInstanceOfSatisfying(CommandParser.Valid.class,
                v -> {
                    assertThat(v.command().type()).isEqualTo("custom");
                    assertThat(v.command().payloadSha256())
                            .isEqualTo(CommandParser.sha256("{\"commandId\":\"A\",\"type\":\"custom\"}".getBytes(StandardCharsets.UTF_8)));
                });
        CommandParser roomy = new CommandParser(1000);
        assertThat(roomy.parse(publish("{\"commandId\":\"" + "a".repeat(128) + "\"}"))).isInstanceOf(CommandParser.Valid.class);
        assertThat(roomy.parse(publish("{\"commandId\":\"" + "a".repeat(129) + "\"}")))
                .isInstanceOfSatisfying(CommandParser.Invalid.class, i -> assertThat(i.code()).isEqualTo("invalid_command_id"));
    }
}
