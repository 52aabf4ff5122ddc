package org.edgebridge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ingest.tokenFile and admin.tokenFile: the tokens come from files read at start, never from the YAML. */
class TokenFilesTest {
    @TempDir
    Path dir;

    private static void assertRefused(String set, String problem) {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of(set)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(problem);
    }

    private Path secret(String name, String content, String mode) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    @Test
    void the_tokens_are_read_from_their_files_without_the_trailing_newline() throws Exception {
        Path ingest = secret("ingest.token", "central-secret\n", "rw-------");
        Path admin = secret("admin.token", "admin-secret\r\n", "rw-------");
        BridgeConfig c = ConfigLoader.load(null, List.of("ingest.tokenFile=" + ingest, "admin.tokenFile=" + admin));
        assertThat(c.forwarder().credentials().token()).contains("central-secret");
        assertThat(c.admin().token()).contains("admin-secret");
        assertThat(TokenFiles.warnings(c.effective())).isEmpty();
        assertThat(c.masked()).containsEntry("ingest.tokenFile", ingest.toString());
        assertThat(c.masked().values()).doesNotContain("central-secret", "admin-secret");
    }

    @Test
    void the_status_page_is_told_where_each_token_comes_from_and_never_the_token() throws Exception {
        Path ingest = secret("ingest.token", "central-secret\n", "rw-------");
        BridgeConfig c = ConfigLoader.load(null, List.of("ingest.tokenFile=" + ingest, "admin.token=inline-secret"));
        assertThat(TokenFiles.source(c.effective(), "ingest.token")).isEqualTo("file " + ingest);
        assertThat(TokenFiles.source(c.effective(), "admin.token")).isEqualTo("inline");
        assertThat(TokenFiles.source(ConfigLoader.load(null, List.of()).effective(), "admin.token"))
                .isEqualTo("none");
    }

    @Test
    void a_token_set_both_inline_and_in_a_file_is_a_config_error_naming_both_keys() throws Exception {
        Path ingest = secret("ingest.token", "central-secret\n", "rw-------");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("ingest.token=x", "ingest.tokenFile=" + ingest)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ingest.token and ingest.tokenFile: both are set");
    }

    @Test
    void a_missing_token_file_is_a_config_error_naming_the_key_and_the_path() {
        Path missing = dir.resolve("nowhere.token");
        assertRefused("admin.tokenFile=" + missing, "admin.tokenFile=" + missing + ": no such file");
    }

    @Test
    void an_empty_token_file_is_a_config_error_naming_the_key_and_the_path() throws Exception {
        Path empty = secret("empty.token", "\n", "rw-------");
        assertRefused("ingest.tokenFile=" + empty, "ingest.tokenFile=" + empty + ": is empty");
    }

    @Test
    void a_directory_or_a_file_of_several_lines_is_not_a_token_file() throws Exception {
        Path lines = secret("lines.token", "one\ntwo\n", "rw-------");
        assertRefused("ingest.tokenFile=" + dir, "ingest.tokenFile=" + dir + ": no such file");
        assertRefused("ingest.tokenFile=" + lines, "ingest.tokenFile=" + lines + ": holds more than one line");
    }

    @Test
    void every_problem_of_both_token_files_is_reported_at_once() {
        assertThatThrownBy(() -> ConfigLoader.load(
                        null, List.of("ingest.tokenFile=" + dir.resolve("a"), "admin.tokenFile=" + dir.resolve("b"))))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.problems()).hasSize(2));
    }

    @Test
    void a_token_file_others_may_read_is_warned_about_not_refused() throws Exception {
        Path loose = secret("loose.token", "central-secret\n", "rw-r--r--");
        Path group = secret("group.token", "admin-secret\n", "rw-r-----");
        BridgeConfig c = ConfigLoader.load(null, List.of("ingest.tokenFile=" + loose, "admin.tokenFile=" + group));
        assertThat(c.forwarder().credentials().token()).contains("central-secret");
        assertThat(ConfigWarnings.of(c))
                .contains(
                        "ingest.tokenFile=" + loose
                                + ": readable by every user; make it owner-only (chmod 600, or systemd LoadCredential=)",
                        "admin.tokenFile=" + group
                                + ": readable by its group; make it owner-only (chmod 600, or systemd "
                                + "LoadCredential=)");
    }
}
