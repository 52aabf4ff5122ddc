package org.edgebridge.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordFileTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void every_client_id_the_broker_accepts_round_trips_through_the_file_colons_included() throws Exception {
        Path file = dir.resolve("devices.passwd");
        List<String> ids = List.of(
                "site:node-1",
                "a:b:c",
                ":leading",
                "trailing:",
                "with space",
                "ünïcödé-☃",
                "x".repeat(128),
                "semi;colon=equals$dollar");
        for (String id : ids) {
            assertThat(Topics.isUsableClientId(id)).as(id).isTrue();
            PasswordFile.addDevice(file, id, "user-" + ids.indexOf(id), "pw-" + id);
        }
        PasswordFile loaded = PasswordFile.load(file);
        assertThat(loaded.size()).isEqualTo(ids.size());
        for (String id : ids) {
            assertThat(loaded.verify(id, "user-" + ids.indexOf(id), bytes("pw-" + id)))
                    .as(id)
                    .isTrue();
        }
        assertThat(PasswordFile.list(file))
                .extracting(PasswordFile.Entry::clientId)
                .containsExactlyElementsOf(ids);
    }

    @Test
    void removing_or_replacing_a_device_touches_only_that_device_even_when_another_id_starts_with_it()
            throws Exception {
        Path file = dir.resolve("devices.passwd");
        Files.writeString(file, "# site devices\n");
        PasswordFile.addDevice(file, "a", "user-a", "pw-a");
        PasswordFile.addDevice(file, "a:b", "user-ab", "pw-ab");
        PasswordFile.addDevice(file, "a", "user-a2", "pw-a2");
        assertThat(PasswordFile.list(file))
                .extracting(PasswordFile.Entry::clientId)
                .containsExactly("a:b", "a");
        assertThat(PasswordFile.load(file).verify("a", "user-a2", bytes("pw-a2")))
                .isTrue();

        assertThat(PasswordFile.removeDevice(file, "a")).isTrue();
        assertThat(PasswordFile.removeDevice(file, "a")).isFalse();
        assertThat(PasswordFile.list(file))
                .extracting(PasswordFile.Entry::clientId)
                .containsExactly("a:b");
        assertThat(Files.readString(file)).startsWith("# site devices\n");
        assertThat(PasswordFile.load(file).verify("a:b", "user-ab", bytes("pw-ab")))
                .isTrue();
    }

    @Test
    void a_file_written_before_colons_were_allowed_still_loads() throws Exception {
        Path file = dir.resolve("old.passwd");
        Files.writeString(
                file,
                PasswordFile.line("dev-1", "user-1", "pw-1") + "\n\n# comment\n"
                        + PasswordFile.line("dev-2", "user-2", "pw-2") + "\r\n");
        PasswordFile loaded = PasswordFile.load(file);
        assertThat(loaded.verify("dev-1", "user-1", bytes("pw-1"))).isTrue();
        assertThat(loaded.verify("dev-2", "user-2", bytes("pw-2"))).isTrue();
    }

    @Test
    void a_broken_or_ambiguous_file_fails_to_load_naming_the_line() throws Exception {
        Path file = dir.resolve("bad.passwd");
        Files.writeString(file, PasswordFile.line("dev-1", "user-1", "pw") + "\nnot a device line\n");
        assertThatThrownBy(() -> PasswordFile.load(file))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("line 2");
        Files.writeString(
                file,
                PasswordFile.line("dev-1", "user-1", "pw") + "\n" + PasswordFile.line("dev-1", "user-x", "pw") + "\n");
        assertThatThrownBy(() -> PasswordFile.load(file))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("line 2")
                .hasMessageContaining("registered twice");
    }

    @Test
    void usernames_with_a_colon_and_unusable_client_ids_are_refused_at_registration() {
        Path file = dir.resolve("devices.passwd");
        assertThatThrownBy(() -> PasswordFile.addDevice(file, "dev", "us:er", "pw"))
                .hasMessageContaining("username");
        assertThatThrownBy(() -> PasswordFile.addDevice(file, "dev/1", "user", "pw"))
                .hasMessageContaining("client id");
        assertThatThrownBy(() -> PasswordFile.addDevice(file, "dev\n1", "user", "pw"))
                .hasMessageContaining("client id");
        assertThat(file).doesNotExist();
    }

    @Test
    void a_wrong_username_or_password_fails_and_only_verified_credentials_are_remembered() throws Exception {
        Path file = dir.resolve("devices.passwd");
        PasswordFile.addDevice(file, "dev", "user", "right");
        PasswordFile loaded = PasswordFile.load(file);
        assertThat(loaded.verify("dev", "user", bytes("wrong"))).isFalse();
        assertThat(loaded.verify("dev", "other", bytes("right"))).isFalse();
        assertThat(loaded.verify("nobody", "user", bytes("right"))).isFalse();
        assertThat(loaded.isVerified("dev", "user", bytes("right"))).isFalse();
        assertThat(loaded.verify("dev", "user", bytes("right"))).isTrue();
        assertThat(loaded.isVerified("dev", "user", bytes("right"))).isTrue();
        assertThat(loaded.isVerified("dev", "user", bytes("wrong"))).isFalse();
    }
}
