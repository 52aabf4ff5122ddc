package org.edgebridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** picocli's conventions on every command: --help and -h, a help subcommand, described options, shown defaults. */
class CommandLineTest {
    @TempDir
    Path dir;

    /** Every command and subcommand, as the words that name it. */
    private static List<List<String>> commands(CommandLine cl, List<String> prefix, List<List<String>> out) {
        out.add(prefix);
        cl.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help")) {
                List<String> next = new ArrayList<>(prefix);
                next.add(name);
                commands(sub, next, out);
            }
        });
        return out;
    }

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void every_command_answers_help_and_h_and_the_help_subcommand() {
        List<List<String>> all = commands(Main.commandLine(), List.of(), new ArrayList<>());
        assertThat(all)
                .extracting(c -> String.join(" ", c))
                .contains(
                        "run",
                        "demo",
                        "central-sim",
                        "check-config",
                        "check-central",
                        "diagnose",
                        "config-reference",
                        "device",
                        "device add",
                        "device list",
                        "device remove");
        for (List<String> command : all) {
            for (String flag : List.of("--help", "-h")) {
                List<String> args = new ArrayList<>(command);
                args.add(flag);
                Result r = run(args.toArray(String[]::new));
                assertThat(r.code()).as(args + ": " + r.err()).isZero();
                assertThat(r.out()).as(String.valueOf(args)).startsWith("Usage: edge-bridge");
                assertThat(r.err()).as(String.valueOf(args)).isEmpty();
            }
        }
        assertThat(run("help", "run").out()).startsWith("Usage: edge-bridge run");
        assertThat(run("device", "help", "add").out()).startsWith("Usage: edge-bridge device add");
    }

    @Test
    void check_central_with_a_bad_configuration_exits_2_naming_the_key_and_checks_nothing() {
        Result r = run("check-central", "--set", "ingest.url=ftp://127.0.0.1/ingest");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("ingest.url");
        assertThat(r.out()).doesNotContain("PASS", "FAIL");
    }

    @Test
    void every_option_is_described_and_every_default_is_shown() {
        for (List<String> command : commands(Main.commandLine(), List.of(), new ArrayList<>())) {
            CommandLine cl = Main.commandLine();
            for (String word : command) {
                cl = cl.getSubcommands().get(word);
            }
            for (OptionSpec o : cl.getCommandSpec().options()) {
                if (o.hidden()) {
                    continue;
                }
                String where = command + " " + o.longestName();
                assertThat(String.join(" ", o.description()))
                        .as(where + " has a description")
                        .isNotBlank();
                if (o.defaultValue() != null) {
                    assertThat(cl.getUsageMessage().replaceAll("\\s+", " "))
                            .as(where + " shows its default")
                            .contains("default: " + o.defaultValue());
                }
            }
        }
    }

    @Test
    void device_add_asks_for_the_password_twice_and_writes_nothing_when_they_differ() throws Exception {
        Path file = dir.resolve("devices.passwd");
        InputStream stdin = System.in;
        try {
            System.setIn(
                    new ByteArrayInputStream("first-password\nsecond-password\n".getBytes(StandardCharsets.UTF_8)));
            Result differ = run(
                    "device",
                    "add",
                    "--file",
                    file.toString(),
                    "--client-id",
                    "dev-1",
                    "--username",
                    "u1",
                    "--password");
            assertThat(differ.code()).isEqualTo(1);
            assertThat(differ.err()).contains("the two passwords for dev-1 differ; nothing written");
            assertThat(file).doesNotExist();

            System.setIn(
                    new ByteArrayInputStream("same-password-1\nsame-password-1\n".getBytes(StandardCharsets.UTF_8)));
            Result same = run(
                    "device",
                    "add",
                    "--file",
                    file.toString(),
                    "--client-id",
                    "dev-1",
                    "--username",
                    "u1",
                    "--password");
            assertThat(same.code()).as(same.err()).isZero();
            assertThat(same.err()).contains("Password for dev-1: ").contains("Password for dev-1 (again): ");
            assertThat(Files.readString(file)).contains("dev-1");
        } finally {
            System.setIn(stdin);
        }
    }

    @Test
    void device_add_help_does_not_complain_about_missing_options() {
        Result r = run("device", "add", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("--client-id=ID").contains("--password[=PASSWORD]");
    }
}
