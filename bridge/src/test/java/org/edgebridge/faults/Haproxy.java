package org.edgebridge.faults;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A real HAProxy process (Debian's {@code haproxy}) run in the foreground on a config file as written, with the
 * file's {@code ${NAME-value}} settings given as environment variables. Reads the servers' state and the stick tables from
 * its stats socket ({@code show stat}, {@code show table}). Owns the process; {@link #close()} ends it.
 */
final class Haproxy implements AutoCloseable {
    /** One server of a backend as {@code show stat} gives it. */
    record Server(String backend, String name, String status) {
        boolean up() {
            return status.startsWith("UP");
        }
    }

    private static final java.util.regex.Pattern STICK_ENTRY =
            java.util.regex.Pattern.compile(" key=(\\S+) .*server_key=(\\S+)");

    private final Path socket;
    private final Path log;
    private final Process process;

    private Haproxy(Path config, Map<String, String> env, Path socket, Path log) throws IOException {
        this.socket = socket;
        this.log = log;
        ProcessBuilder pb = new ProcessBuilder(binary().orElseThrow().toString(), "-db", "-f", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        pb.environment().put("HAPROXY_STATS_SOCKET", socket.toString());
        this.process = pb.start();
    }

    /** Starts HAProxy on {@code config} and waits until its stats socket answers. */
    static Haproxy start(Path config, Map<String, String> env, Path socket, Path log) throws IOException {
        Haproxy h = new Haproxy(config, env, socket, log);
        await("haproxy started (log: " + log + ")")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!h.process.isAlive()) {
                        throw new IllegalStateException(
                                "haproxy exited with " + h.process.exitValue() + ": " + Files.readString(log));
                    }
                    return Files.exists(socket) && !h.servers().isEmpty();
                });
        return h;
    }

    /** The haproxy executable, if installed (on PATH, or in /usr/sbin where Debian puts it). */
    static Optional<Path> binary() {
        Stream<String> dirs = Stream.concat(
                Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":")),
                Stream.of("/usr/sbin", "/usr/local/sbin"));
        return dirs.filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, "haproxy"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** Every server of every backend, from {@code show stat}. */
    List<Server> servers() {
        List<String> lines = command("show stat").lines().toList();
        if (lines.isEmpty() || !lines.get(0).startsWith("# ")) {
            return List.of();
        }
        List<String> header = List.of(lines.get(0).substring(2).split(","));
        int px = header.indexOf("pxname");
        int sv = header.indexOf("svname");
        int status = header.indexOf("status");
        List<Server> servers = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f.length > status && !f[sv].equals("FRONTEND") && !f[sv].equals("BACKEND")) {
                servers.add(new Server(f[px], f[sv], f[status]));
            }
        }
        return servers;
    }

    /** The servers of one backend by name. */
    Map<String, Server> backend(String backend) {
        Map<String, Server> byName = new HashMap<>();
        servers().stream().filter(s -> s.backend().equals(backend)).forEach(s -> byName.put(s.name(), s));
        return byName;
    }

    /** The backend's stick table: each key (a device's client id) and the name of the server it sticks to. */
    Map<String, String> stuckTo(String backend) {
        Map<String, String> stuck = new HashMap<>();
        for (String line : command("show table " + backend).lines().toList()) {
            java.util.regex.Matcher m = STICK_ENTRY.matcher(line);
            if (m.find()) {
                stuck.put(m.group(1), m.group(2));
            }
        }
        return stuck;
    }

    private String command(String command) {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ch.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
            StringBuilder out = new StringBuilder();
            while (ch.read(buf) >= 0) {
                buf.flip();
                out.append(StandardCharsets.US_ASCII.decode(buf));
                buf.clear();
            }
            return out.toString();
        } catch (IOException e) {
            return "";
        }
    }

    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
