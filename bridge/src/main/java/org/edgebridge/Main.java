package org.edgebridge;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.edgebridge.central.CentralSim;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.config.ConfigException;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.config.ConfigWarnings;
import org.edgebridge.lifecycle.ExitCodes;
import org.edgebridge.tls.DevCertificates;
import org.edgebridge.worker.FatalErrors;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line: {@code run}, {@code demo}, {@code central-sim}, {@code check-config}, {@code check-central}, {@code
 * device add}.
 */
@Command(
        name = "edge-bridge",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "MQTT-to-HTTP bridge with an embedded broker, a SQLite outbox and per-event receipts.",
        subcommands = {
            CommandLine.HelpCommand.class,
            Main.Run.class,
            Main.Demo.class,
            Main.CentralSimCommand.class,
            Main.CheckConfig.class,
            Main.Diagnose.class,
            Main.ConfigReference.class,
            DeviceCommand.class,
            CheckCentralCommand.class
        })
public final class Main {
    public static void main(String[] args) {
        int code = commandLine().execute(args);
        if (code != 0 || !isLongRunning(args)) {
            System.exit(code);
        }
    }

    /** The command line with its error handling, as {@link #main} runs it. */
    static CommandLine commandLine() {
        return new CommandLine(new Main())
                .setUsageHelpAutoWidth(true)
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    if (e instanceof ConfigException ce) {
                        ce.problems().forEach(p -> cmd.getErr().println("config error: " + p));
                        return ExitCodes.CONFIG;
                    }
                    cmd.getErr().println("error: " + rootMessage(e));
                    LoggerFactory.getLogger(Main.class).debug("start-up failed", e);
                    return ExitCodes.FAILED;
                });
    }

    private static boolean isLongRunning(String[] args) {
        return args.length > 0 && List.of("run", "demo", "central-sim").contains(args[0]);
    }

    private static String rootMessage(Throwable e) {
        String message = e.getMessage();
        Throwable cause = e.getCause();
        while (cause != null && message == null) {
            message = cause.getMessage();
            cause = cause.getCause();
        }
        return message == null ? e.toString() : message;
    }

    /** {@code --config} and {@code --set}, shared by the subcommands that read a configuration. */
    static final class ConfigOptions {
        @Option(
                names = "--config",
                paramLabel = "FILE",
                description = "YAML config file (see broker-config/bridge.yaml); without it, the documented defaults")
        @Nullable
        Path file;

        @Option(
                names = "--set",
                paramLabel = "KEY=VALUE",
                description = "override one key; repeatable; wins over the file and "
                        + "EDGE_BRIDGE_* environment variables (docs/configuration.md)")
        List<String> sets = new ArrayList<>();
    }

    /**
     * A worker died: exit with {@link ExitCodes#WORKER_DIED} (the shutdown hook stops the bridge as on SIGTERM),
     * and halt if that stop takes longer than its budget plus 10 s.
     */
    static void exitAfterWorkerDeath(Duration shutdownBudget) {
        Thread halt = new Thread(
                () -> {
                    try {
                        Thread.sleep(shutdownBudget.toMillis() + 10_000);
                    } catch (InterruptedException e) {
                        return;
                    }
                    Runtime.getRuntime().halt(ExitCodes.WORKER_DIED);
                },
                "halt-after-worker-death");
        halt.setDaemon(true);
        halt.start();
        System.exit(ExitCodes.WORKER_DIED);
    }

    /** Blocks until SIGTERM/SIGINT, then closes {@code resources} in order. */
    static void runUntilStopped(AutoCloseable... resources) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            for (AutoCloseable r : resources) {
                                try {
                                    r.close();
                                } catch (Exception e) {
                                    LoggerFactory.getLogger(Main.class).error("error while stopping", e);
                                }
                            }
                            stopped.countDown();
                        },
                        "shutdown"));
        stopped.await();
    }

    @Command(name = "run", mixinStandardHelpOptions = true, description = "Run the bridge.")
    static final class Run implements Callable<Integer> {
        @CommandLine.Mixin
        ConfigOptions options = new ConfigOptions();

        @Override
        public Integer call() throws Exception {
            BridgeConfig config = ConfigLoader.load(options.file, options.sets);
            FatalErrors.haltOnAnyError();
            Bridge bridge =
                    Bridge.start(config, Clock.systemUTC(), () -> exitAfterWorkerDeath(config.shutdownTimeout()));
            runUntilStopped(bridge);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "demo",
            mixinStandardHelpOptions = true,
            description = "Run the bridge with an embedded reference central on 127.0.0.1:8090, "
                    + "dev TLS material and anonymous devices on loopback.")
    static final class Demo implements Callable<Integer> {
        @CommandLine.Mixin
        ConfigOptions options = new ConfigOptions();

        @Option(
                names = "--central-port",
                defaultValue = "8090",
                paramLabel = "PORT",
                description = "port of the embedded central (0: any free; default: ${DEFAULT-VALUE})")
        int centralPort;

        @Override
        public Integer call() throws Exception {
            FatalErrors.haltOnAnyError();
            Map<String, String> presets = new LinkedHashMap<>();
            presets.put("edge.id", "demo-edge");
            presets.put("data.dir", "demo-data");
            presets.put("mqtt.host", "127.0.0.1");
            presets.put("auth.anonymous", "true");
            presets.put("admin.token", HexFormat.of().formatHex(SecureRandom.getSeed(12)));
            BridgeConfig first = ConfigLoader.load(options.file, options.sets, presets);
            DevCertificates.Material tls =
                    DevCertificates.ensure(first.dataDir().resolve("tls"));
            presets.put("tls.certFile", tls.certFile().toString());
            presets.put("tls.keyFile", tls.keyFile().toString());
            CentralSim central = new CentralSim(Optional.empty(), 64L * 1024 * 1024, Clock.systemUTC())
                    .start("127.0.0.1", centralPort);
            presets.put("ingest.url", "http://127.0.0.1:" + central.port() + "/ingest");
            BridgeConfig config;
            Bridge bridge;
            try {
                config = ConfigLoader.load(options.file, options.sets, presets);
                bridge = Bridge.start(config, Clock.systemUTC(), () -> exitAfterWorkerDeath(config.shutdownTimeout()));
            } catch (RuntimeException e) {
                central.close();
                throw e;
            }
            printWelcome(System.out, config, bridge, tls);
            runUntilStopped(bridge, central);
            return ExitCodes.OK;
        }

        private static void printWelcome(PrintStream out, BridgeConfig c, Bridge bridge, DevCertificates.Material tls) {
            String host = c.broker().listener().host();
            String prefix = c.broker().publishes().topicPrefix();
            out.println();
            out.println("edge bridge demo is running (Ctrl-C stops it)");
            out.println("  MQTT        " + bridge.broker().listeners() + "  (anonymous devices allowed)");
            out.println("  TLS CA      " + tls.caFile());
            String admin = "http://" + c.admin().host() + ":" + bridge.adminPort();
            out.println("  status page " + admin + "/  (JSON: " + admin + "/api/status)");
            out.println("  admin token " + c.admin().token().orElse("(none)"));
            out.println("  central     " + c.forwarder().central().url() + "  (reference central, in memory)");
            out.println("  data        " + c.dataDir().toAbsolutePath());
            out.println();
            out.println("Send a command as device demo-device and print the receipt it gets:");
            out.println("  mosquitto_rr -V mqttv311 -h " + host + " -p "
                    + bridge.broker().mqttPort() + " -i demo-device -c -q 1 \\");
            out.println("    -e " + prefix + "/demo-device/receipts -t " + prefix
                    + "/demo-device/commands/workorder/arrive \\");
            out.println("    -m '{\"commandId\":\"ARRIVE-WO-1\",\"workOrderId\":\"WO-1\",\"action\":\"ARRIVE\"}'");
            out.println("Run it again (a device resends until it has a final receipt) to get the final receipt.");
            out.println();
        }
    }

    @Command(
            name = "central-sim",
            mixinStandardHelpOptions = true,
            description = "Run the reference central alone (docs/protocol.md §2, server side).")
    static final class CentralSimCommand implements Callable<Integer> {
        @Option(
                names = "--port",
                defaultValue = "8090",
                paramLabel = "PORT",
                description = "port (0: any free one, printed at start; default: ${DEFAULT-VALUE})")
        int port;

        @Option(
                names = "--host",
                defaultValue = "127.0.0.1",
                paramLabel = "HOST",
                description = "bind address (default: ${DEFAULT-VALUE})")
        @SuppressWarnings("NullAway.Init") // picocli sets it: the option has a default value
        String host;

        @Option(
                names = "--token",
                paramLabel = "TOKEN",
                description = "bearer token required from the bridge (default: none required)")
        @Nullable
        String token;

        @Option(
                names = "--max-request-bytes",
                defaultValue = "16777216",
                paramLabel = "BYTES",
                description = "larger requests get 413 (default: ${DEFAULT-VALUE})")
        long maxRequestBytes;

        @Option(
                names = "--delay-ms",
                defaultValue = "0",
                paramLabel = "MS",
                description = "answer each request this long after "
                        + "it was applied, as a central far away would (no thread is held while it waits; default: "
                        + "${DEFAULT-VALUE})")
        long delayMs;

        @Option(
                names = "--set",
                hidden = true,
                description = "accepted for symmetry with the other subcommands; unused")
        List<String> sets = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            CentralSim central = new CentralSim(Optional.ofNullable(token), maxRequestBytes, Clock.systemUTC())
                    .replyDelay(Duration.ofMillis(delayMs))
                    .start(host, port);
            System.out.println("reference central listening on http://" + host + ":" + central.port() + "/ingest");
            runUntilStopped(central);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "check-config",
            mixinStandardHelpOptions = true,
            description = "Validate a configuration and print every problem.")
    static final class CheckConfig implements Callable<Integer> {
        @CommandLine.Mixin
        ConfigOptions options = new ConfigOptions();

        @Override
        public Integer call() {
            BridgeConfig config = ConfigLoader.load(options.file, options.sets);
            List<String> warnings = ConfigWarnings.of(config);
            System.out.println("configuration is valid (" + config.effective().size() + " keys set"
                    + (warnings.isEmpty() ? "" : ", " + warnings.size() + " warning(s)") + "):");
            warnings.forEach(w -> System.out.println("warning: " + w));
            config.masked().forEach((k, v) -> System.out.println("  " + k + " = " + v));
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "diagnose",
            mixinStandardHelpOptions = true,
            description = "Print what a support ticket needs as JSON: version, configuration "
                    + "(secrets masked), disk, outbox counts and the latest problems.")
    static final class Diagnose implements Callable<Integer> {
        @CommandLine.Mixin
        ConfigOptions options = new ConfigOptions();

        @Override
        public Integer call() throws Exception {
            BridgeConfig config = ConfigLoader.load(options.file, options.sets);
            Map<String, Object> report = Diagnostics.collect(config, new Version().getVersion()[0]);
            System.out.println(new ObjectMapper()
                    .registerModule(new JavaTimeModule())
                    .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                    .writerWithDefaultPrettyPrinter()
                    .writeValueAsString(report));
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "config-reference",
            mixinStandardHelpOptions = true,
            description = "Print every configuration key with its default (docs/configuration.md).")
    static final class ConfigReference implements Callable<Integer> {
        @Override
        public Integer call() {
            System.out.print(org.edgebridge.config.ConfigReference.markdownReference());
            return ExitCodes.OK;
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"edge-bridge " + (v == null ? "dev" : v)};
        }
    }
}
