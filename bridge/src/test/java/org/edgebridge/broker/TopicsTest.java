package org.edgebridge.broker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicsTest {
    private final Topics topics = new Topics("devices");

    @Test
    void the_type_is_the_rest_of_the_devices_own_command_topic() {
        assertThat(topics.commandType("d1", "devices/d1/commands/workorder/arrive"))
                .isEqualTo("workorder/arrive");
        assertThat(topics.commandType("d1", "devices/d1/commands/t")).isEqualTo("t");
    }

    @Test
    void a_malformed_type_on_the_devices_own_topic_is_still_its_command_for_the_intake_to_refuse() {
        // the intake answers these with invalid_type (unless the payload names a valid type); the broker does not
        // close the connection of a device that published on its own topic
        assertThat(topics.commandType("d1", "devices/d1/commands/t/")).isEqualTo("t/");
        assertThat(topics.commandType("d1", "devices/d1/commands/")).isEmpty();
        assertThat(topics.commandType("d1", "devices/d1/commands//t")).isEqualTo("/t");
        assertThat(topics.commandType("d1", "devices/d1/commands/a//b")).isEqualTo("a//b");
    }

    @Test
    void another_devices_topic_anything_else_and_wildcards_are_not_a_command_topic() {
        assertThat(topics.commandType("d1", "devices/d2/commands/t")).isNull();
        assertThat(topics.commandType("d1", "devices/d1/commands")).isNull();
        assertThat(topics.commandType("d1", "devices/d1/receipts")).isNull();
        assertThat(topics.commandType("d1", "other/d1/commands/t")).isNull();
        assertThat(topics.commandType("d1", "devices/d1/commands/+")).isNull();
        assertThat(topics.commandType("d1", "devices/d1/commands/t/#")).isNull();
        assertThat(topics.commandType("d1", null)).isNull();
        assertThat(topics.commandType("d/1", "devices/d/1/commands/t")).isNull();
    }
}
