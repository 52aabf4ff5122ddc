package org.edgebridge;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.edgebridge.broker.PasswordFile;
import org.edgebridge.lifecycle.ExitCodes;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code device} subcommands: the registered devices of a password file ({@code auth.passwordFile}). */
@Command(
        name = "device",
        mixinStandardHelpOptions = true,
        description = "Manage registered devices (auth.passwordFile).",
        subcommands = {
            CommandLine.HelpCommand.class,
            DeviceCommand.Add.class,
            DeviceCommand.ListDevices.class,
            DeviceCommand.Remove.class
        })
final class DeviceCommand {
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List the registered devices of a password file: client id and username.")
    @SuppressWarnings("NullAway.Init") // picocli sets every field (a required option) before call()
    static final class ListDevices implements Callable<Integer> {
        @Option(
                names = "--file",
                required = true,
                paramLabel = "FILE",
                description = "the password file (auth.passwordFile)")
        Path file;

        @Override
        public Integer call() throws Exception {
            List<PasswordFile.Entry> entries = PasswordFile.list(file);
            for (PasswordFile.Entry e : entries) {
                System.out.println(e.clientId() + "\t" + e.username());
            }
            System.err.println(entries.size() + " registered device(s) in " + file);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "remove",
            mixinStandardHelpOptions = true,
            description = "Remove a device from a password file. A running bridge reads the file "
                    + "at start: restart it for the change to take effect.")
    @SuppressWarnings("NullAway.Init") // picocli sets every field (required options) before call()
    static final class Remove implements Callable<Integer> {
        @Option(
                names = "--file",
                required = true,
                paramLabel = "FILE",
                description = "the password file (auth.passwordFile)")
        Path file;

        @Option(names = "--client-id", required = true, paramLabel = "ID", description = "the device's MQTT client id")
        String clientId;

        @Override
        public Integer call() throws Exception {
            if (!PasswordFile.removeDevice(file, clientId)) {
                System.err.println("error: device " + clientId + " is not registered in " + file);
                return ExitCodes.FAILED;
            }
            System.out.println("device " + clientId + " removed from " + file);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description = "Add or replace a device in the password file (PBKDF2-SHA256).")
    @SuppressWarnings("NullAway.Init") // picocli sets every field (required options, @Spec) before call()
    static final class Add implements Callable<Integer> {
        @Option(
                names = "--file",
                required = true,
                paramLabel = "FILE",
                description = "the password file (auth.passwordFile)")
        Path file;

        @Option(
                names = "--client-id",
                required = true,
                paramLabel = "ID",
                description = "the device's MQTT client id (1-128 characters without / + # or control characters)")
        String clientId;

        @Option(
                names = "--username",
                required = true,
                paramLabel = "NAME",
                description = "the username the device connects with; bound to this client id (no ':')")
        String username;

        /** What picocli gives {@code --password} without a value: ask for it. */
        static final String PROMPT = "\u0000prompt";

        @Option(
                names = "--password",
                required = true,
                arity = "0..1",
                fallbackValue = PROMPT,
                paramLabel = "PASSWORD",
                description = "the password; without a value it is prompted for, twice (not echoed on a terminal; "
                        + "two lines on standard input otherwise)")
        String password;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (PROMPT.equals(password)) {
                String typed = promptTwice();
                if (typed == null) {
                    return ExitCodes.FAILED;
                }
                password = typed;
            }
            PasswordFile.addDevice(file, clientId, username, password);
            System.out.println("device " + clientId + " (user " + username + ") written to " + file);
            return ExitCodes.OK;
        }

        /** The password typed twice, or null (and a message) when the two differ or it is empty. */
        private @Nullable String promptTwice() throws IOException {
            PrintWriter err = spec.commandLine().getErr();
            String first;
            String second;
            Console console = System.console();
            if (console != null) {
                char[] a = console.readPassword("Password for %s: ", clientId);
                char[] b = console.readPassword("Password for %s (again): ", clientId);
                first = a == null ? null : new String(a);
                second = b == null ? null : new String(b);
            } else {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                err.print("Password for " + clientId + ": ");
                err.flush();
                first = in.readLine();
                err.print("Password for " + clientId + " (again): ");
                err.flush();
                second = in.readLine();
                err.println();
            }
            if (first == null || first.isEmpty()) {
                err.println("error: no password given for " + clientId + "; nothing written");
                return null;
            }
            if (!first.equals(second)) {
                err.println("error: the two passwords for " + clientId + " differ; nothing written");
                return null;
            }
            return first;
        }
    }
}

/** The version from the jar's manifest. */
