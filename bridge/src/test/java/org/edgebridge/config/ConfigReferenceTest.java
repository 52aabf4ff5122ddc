package org.edgebridge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigReferenceTest {
    @Test
    void docs_configuration_md_is_what_the_code_generates() throws Exception {
        Path doc = Path.of("../docs/configuration.md");
        assertThat(Files.readString(doc))
                .as("docs/configuration.md is stale: regenerate it with "
                        + "'java -jar bridge/target/edge-bridge.jar config-reference > docs/configuration.md'")
                .isEqualTo(ConfigReference.markdownReference());
    }

    @Test
    void every_documented_key_is_accepted_with_its_default_written_out() {
        List<String> sets = ConfigKeys.ALL.stream()
                .filter(k -> k.defaultValue() != null)
                .map(k -> k.name() + "=" + k.defaultValue())
                .toList();
        BridgeConfig config = ConfigLoader.load(null, sets);
        assertThat(config.effective()).hasSize(sets.size());
    }

    @Test
    void secrets_are_masked_in_what_is_shown() {
        BridgeConfig config =
                ConfigLoader.load(null, List.of("admin.token=admin-secret", "ingest.token=central-secret"));
        Map<String, String> masked = config.masked();
        assertThat(masked).containsEntry("admin.token", "****").containsEntry("ingest.token", "****");
        assertThat(masked.values()).doesNotContain("admin-secret", "central-secret");
    }
}
