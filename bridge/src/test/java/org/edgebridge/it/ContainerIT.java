package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Bind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.edgebridge.LoadsTheMachine;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * The container image of the repository's {@code Dockerfile}, built here from the base image of
 * {@code docker/make-base-image.sh} and run with Testcontainers on the host network (all traffic on
 * 127.0.0.1): devices on real MQTT connections, the reference central in this JVM, {@code docker kill} and
 * {@code docker stop}, a memory limit. Ryuk is off (its image cannot be pulled here): every container and
 * volume is removed by the test itself.
 *
 * <p>Without a Docker engine the tests are skipped with a printed reason, except under {@code CI=true},
 * where they fail: {@code .ci/run} starts dockerd, and a CI run must not pass without these tests.
 */
@LoadsTheMachine
class ContainerIT {
    static final String BASE_IMAGE = "edge-bridge-base:bookworm";
    static final String IMAGE = "edge-bridge:it";
    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** shutdown.timeout (20 s) plus the JVM's start of the stop and its exit. */
    private static final Duration SHUTDOWN_BUDGET = Duration.ofSeconds(25);

    private final List<GenericContainer<?>> containers = new ArrayList<>();
    private final List<String> volumes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeAll
    static void image() throws Exception {
        boolean ci = "true".equals(System.getenv("CI"));
        String why = null;
        try {
            if (!DockerClientFactory.instance().isDockerAvailable()) {
                why = "no Docker engine is reachable";
            }
        } catch (RuntimeException e) {
            why = "no Docker engine is reachable (" + e.getMessage() + ")";
        }
        Path log = logFile("docker-build");
        if (why == null && run(log, "docker", "version") != 0) {
            why = "the docker command cannot reach the engine (docker version failed; log: " + log + ")";
        }
        if (why != null) {
            String message = "ContainerIT skipped: " + why + " (.ci/run installs docker.io and starts dockerd)";
            System.out.println(message);
            if (ci) {
                Assertions.fail("CI=true, but " + why + ": the container tests must run in CI");
            }
            Assumptions.abort(message);
        }
        if (run(log, "docker", "image", "inspect", BASE_IMAGE) != 0) {
            System.out.println(
                    "ContainerIT: base image " + BASE_IMAGE + " is missing; making it with docker/make-base-image.sh");
            if (run(log, REPO.resolve("docker/make-base-image.sh").toString(), BASE_IMAGE) != 0) {
                String message = "ContainerIT skipped: the base image " + BASE_IMAGE
                        + " could not be made (needs root and " + "debootstrap; log: " + log + ")";
                System.out.println(message);
                if (ci) {
                    Assertions.fail("CI=true, but " + message.replace("ContainerIT skipped: ", ""));
                }
                Assumptions.abort(message);
            }
        }
        long start = System.nanoTime();
        int code = run(log, "docker", "build", "--network", "host", "-t", IMAGE, REPO.toString());
        assertThat(code).as("docker build of the Dockerfile (log: " + log + ")").isZero();
        System.out.println("ContainerIT: built " + IMAGE + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        for (GenericContainer<?> c : containers) {
            c.stop();
        }
        DockerClient docker = DockerClientFactory.instance().client();
        for (String v : volumes) {
            docker.removeVolumeCmd(v).exec();
        }
    }

    @Test
    void devices_connect_and_their_commands_reach_central_with_config_from_file_environment_and_set() throws Exception {
        CentralSim central = central(Ports.free());
        int mqttPort = Ports.free();
        int adminPort = Ports.free();
        String volume = volume();
        GenericContainer<?> bridge = bridge(
                "config", volume, mqttPort, adminPort, "ingest.url=http://127.0.0.1:" + central.port() + "/ingest");
        bridge.start();

        InspectContainerResponse info = bridge.getCurrentContainerInfo();
        assertThat(info.getState().getHealth().getStatus())
                .as("HEALTHCHECK on /health/ready")
                .isEqualTo("healthy");
        assertThat(info.getMounts()).anySatisfy(m -> {
            assertThat(m.getDestination().getPath()).isEqualTo("/data");
            assertThat(m.getName()).isEqualTo(volume);
        });
        assertThat(bridge.execInContainer("id", "-u").getStdout().trim())
                .as("not root")
                .isEqualTo("10001");
        assertThat(bridge.execInContainer("cat", "/proc/1/cmdline").getStdout())
                .as("PID 1")
                .startsWith("/usr/bin/tini");
        // the file gave edge.id, the environment the MQTT port, --set the ingest URL
        JsonNode status = DeviceSimulator.JSON.readTree(get(adminPort, "/api/status"));
        assertThat(status.path("edgeId").asText()).isEqualTo("site-container");

        List<DeviceSimulator> devices = new ArrayList<>();
        Map<DeviceSimulator, List<String>> sent = new LinkedHashMap<>();
        for (int d = 1; d <= 3; d++) {
            DeviceSimulator device = device("container-dev-" + d, mqttPort);
            device.connectAndSubscribe();
            devices.add(device);
            List<String> ids = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                String id = "C" + d + "-" + i;
                ids.add(id);
                device.publish("workorder/arrive", DeviceSimulator.command(id, "\"i\":" + i));
            }
            sent.put(device, ids);
        }
        sent.forEach((device, ids) -> ids.forEach(
                id -> assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted")));
        assertThat(central.inbox().size()).isEqualTo(15);
        assertThat(central.inbox().stats())
                .containsEntry("sequenceConflicts", 0L)
                .containsEntry("payloadMismatches", 0L);
    }

    @Test
    void docker_kill_then_a_new_container_on_the_same_volume_loses_nothing_and_applies_nothing_twice()
            throws Exception {
        CentralSim central = central(Ports.free());
        int mqttPort = Ports.freeOutsideEphemeralRange();
        int adminPort = Ports.freeOutsideEphemeralRange();
        String volume = volume();
        String ingest = "ingest.url=http://127.0.0.1:" + central.port() + "/ingest";
        // central applies the first batch and holds its reply: the container dies between the two
        central.faults(new Faults("hold_reply", 0, null, false, 0, 60_000, 1));
        GenericContainer<?> first = bridge("kill", volume, mqttPort, adminPort, ingest);
        first.start();
        DeviceSimulator device = device("container-kill", mqttPort);
        device.connectAndSubscribe();
        Map<String, String> payloads = new LinkedHashMap<>();
        for (int i = 1; i <= 20; i++) {
            payloads.put("K-" + i, DeviceSimulator.command("K-" + i, "\"i\":" + i));
        }
        payloads.values().forEach(p -> device.publish("op", p));
        payloads.keySet().forEach(id -> device.awaitReceipt(id, "stored"));
        await("central holds a reply").atMost(Duration.ofSeconds(30)).until(() -> central.holdingReplies() > 0);

        DockerClient docker = DockerClientFactory.instance().client();
        docker.killContainerCmd(first.getContainerId()).withSignal("SIGKILL").exec();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !Boolean.TRUE.equals(docker.inspectContainerCmd(first.getContainerId())
                        .exec()
                        .getState()
                        .getRunning()));
        assertThat(docker.inspectContainerCmd(first.getContainerId())
                        .exec()
                        .getState()
                        .getExitCodeLong())
                .as("SIGKILL")
                .isEqualTo(137L);
        central.faults(Faults.NONE);
        central.releaseHeldReplies();

        GenericContainer<?> second = bridge("kill-second", volume, mqttPort, adminPort, ingest);
        second.start();
        device.reconnectAndSubscribe();
        device.resendUntilFinal(payloads, "op", Duration.ofSeconds(5), Duration.ofSeconds(90));
        for (String id : payloads.keySet()) {
            // accepted, or duplicate for what central applied before the kill (its reply was held): one answer per id
            List<String> finals = device.receiptsFor(id).stream()
                    .filter(r -> r.path("final").asBoolean())
                    .map(r -> r.path("status").asText() + " inbox "
                            + r.path("result").path("inboxId").asText())
                    .distinct()
                    .toList();
            assertThat(finals).as("final receipts of " + id).hasSize(1);
            assertThat(finals.get(0)).matches("(accepted|duplicate) inbox \\d+");
        }
        assertThat(device.awaitFinal("K-1").path("status").asText())
                .as("applied before the kill")
                .isEqualTo("duplicate");
        assertThat(central.inbox().entries())
                .extracting(Inbox.Entry::eventId)
                .as("every command applied, once, in order")
                .containsExactlyElementsOf(payloads.keySet());
        assertThat(central.inbox().entries())
                .extracting(Inbox.Entry::sequence)
                .containsExactlyElementsOf(
                        java.util.stream.LongStream.rangeClosed(1, 20).boxed().toList());
        assertThat(central.inbox().stats())
                .containsEntry("sequenceConflicts", 0L)
                .containsEntry("payloadMismatches", 0L)
                .containsEntry("sequenceGaps", 0L);
    }

    @Test
    void docker_stop_stops_cleanly_within_the_shutdown_budget_and_keeps_what_was_stored() throws Exception {
        int centralPort = Ports.freeOutsideEphemeralRange();
        int mqttPort = Ports.freeOutsideEphemeralRange();
        int adminPort = Ports.freeOutsideEphemeralRange();
        String volume = volume();
        String ingest = "ingest.url=http://127.0.0.1:" + centralPort + "/ingest";
        GenericContainer<?> first = bridge("stop", volume, mqttPort, adminPort, ingest);
        first.start();
        DeviceSimulator device = device("container-stop", mqttPort);
        // the broker's store commits its changes once a second; the subscription is a change. Once a commit period has
        // passed after it, the store was written after this mark, by the commit that holds it (or a later one). A mark
        // made after the subscription could miss a commit that came between the two, and no later write would follow.
        first.execInContainer("touch", "/tmp/subscribed");
        device.connectAndSubscribe();
        List<String> ids = List.of("S-1", "S-2", "S-3");
        ids.forEach(id -> device.publish("op", DeviceSimulator.command(id, "")));
        ids.forEach(id -> device.awaitReceipt(id, "stored"));
        await("the broker store written after the subscription")
                .atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ofMillis(2_500))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> first.execInContainer(
                                "find", "/data/broker/moquette_store.h2", "-newer", "/tmp/subscribed")
                        .getStdout()
                        .contains("moquette_store.h2"));

        DockerClient docker = DockerClientFactory.instance().client();
        long start = System.nanoTime();
        // docker sends SIGKILL once the budget is over: an exit code of 137 is a stop that did not end within it
        docker.stopContainerCmd(first.getContainerId())
                .withTimeout((int) SHUTDOWN_BUDGET.toSeconds())
                .exec();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        InspectContainerResponse.ContainerState state =
                docker.inspectContainerCmd(first.getContainerId()).exec().getState();
        System.out.println(
                "ContainerIT: docker stop took " + took.toMillis() + " ms, exit code " + state.getExitCodeLong());
        assertThat(state.getExitCodeLong())
                .as("exit code after SIGTERM, not 137 (SIGKILL after the shutdown budget)")
                .isIn(0L, 143L);
        assertThat(state.getOOMKilled()).isFalse();
        assertThat(first.getLogs()).contains("edge bridge stopped in");

        CentralSim central = central(centralPort);
        GenericContainer<?> second = bridge("stop-second", volume, mqttPort, adminPort, ingest);
        second.start();
        assertThat(device.reconnectAndSubscribe().isSessionPresent())
                .as("the session survived the clean stop")
                .isTrue();
        ids.forEach(
                id -> assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted"));
        assertThat(central.inbox().entries()).extracting(Inbox.Entry::eventId).containsExactlyElementsOf(ids);
    }

    @Test
    void a_container_with_a_memory_limit_stays_up_under_load() throws Exception {
        long limit = 256L * 1024 * 1024;
        CentralSim central = central(Ports.free());
        int mqttPort = Ports.free();
        int adminPort = Ports.free();
        GenericContainer<?> bridge = bridge(
                        "memory",
                        volume(),
                        mqttPort,
                        adminPort,
                        "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                .withCreateContainerCmdModifier(
                        cmd -> cmd.getHostConfig().withMemory(limit).withMemorySwap(limit));
        bridge.start();
        // the image's JVM options size the heap from the limit (MaxRAMPercentage=50), not from the host's memory
        String flags = bridge.execInContainer("sh", "-c", "java $JAVA_OPTS -XX:+PrintFlagsFinal -version")
                .getStdout();
        long maxHeap = flags.lines()
                .filter(l -> l.contains(" MaxHeapSize "))
                .map(l -> l.trim().split("\\s+")[3])
                .mapToLong(Long::parseLong)
                .findFirst()
                .orElseThrow();
        assertThat(maxHeap).as("MaxHeapSize under a 256 MiB limit").isEqualTo(limit / 2);
        assertThat(flags).containsPattern("ExitOnOutOfMemoryError\\s+= true");

        int devices = 10;
        int perDevice = 100;
        String filler = "\"note\":\"" + "x".repeat(2000) + "\"";
        List<DeviceSimulator> all = new ArrayList<>();
        for (int d = 1; d <= devices; d++) {
            DeviceSimulator device = device("container-mem-" + d, mqttPort);
            device.connectAndSubscribe();
            all.add(device);
        }
        for (int i = 1; i <= perDevice; i++) {
            for (DeviceSimulator device : all) {
                device.publishWithoutWaiting(
                        "devices/" + device.clientId() + "/commands/op",
                        DeviceSimulator.command(device.clientId() + "-" + i, filler)
                                .getBytes(StandardCharsets.UTF_8));
            }
        }
        await("every command applied at central")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> central.inbox().size() == devices * perDevice);
        for (DeviceSimulator device : all) {
            assertThat(device.awaitFinal(device.clientId() + "-" + perDevice)
                            .path("status")
                            .asText())
                    .isEqualTo("accepted");
        }
        InspectContainerResponse.ContainerState state =
                bridge.getCurrentContainerInfo().getState();
        assertThat(state.getRunning()).isTrue();
        assertThat(state.getOOMKilled()).isFalse();
        assertThat(bridge.getCurrentContainerInfo().getRestartCount()).isZero();
        assertThat(get(adminPort, "/health/ready")).contains("\"ready\"");
    }

    // ---- parts

    private CentralSim central(int port) {
        CentralSim central = new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", port);
        closeables.add(0, central);
        return central;
    }

    private DeviceSimulator device(String clientId, int port) {
        DeviceSimulator device = DeviceSimulator.of(clientId, port);
        closeables.add(0, device);
        return device;
    }

    private String volume() {
        String name = "edge-bridge-it-" + UUID.randomUUID();
        DockerClientFactory.instance().client().createVolumeCmd().withName(name).exec();
        volumes.add(name);
        return name;
    }

    /**
     * The image as docs/install.md runs it, on the host network: the config file mounted at
     * /etc/edge-bridge/bridge.yaml (edge.id, anonymous devices, short back-off), ports and addresses from the
     * environment, {@code sets} on the command line.
     */
    private GenericContainer<?> bridge(String name, String volume, int mqttPort, int adminPort, String... sets) {
        String yaml = "edge:\n  id: site-container\nauth:\n  anonymous: true\n"
                + "forwarder:\n  backoffInitial: 100ms\n  backoffMax: 1s\n";
        List<String> command = new ArrayList<>(List.of("run", "--config", "/etc/edge-bridge/bridge.yaml"));
        for (String set : sets) {
            command.add("--set");
            command.add(set);
        }
        Path log = logFile("container-" + name);
        Consumer<OutputFrame> toLog = frame -> {
            try {
                Files.writeString(log, frame.getUtf8String(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withNetworkMode("host")
                .withEnv("EDGE_BRIDGE_MQTT_HOST", "127.0.0.1")
                .withEnv("EDGE_BRIDGE_MQTT_PORT", String.valueOf(mqttPort))
                .withEnv("EDGE_BRIDGE_ADMIN_HOST", "127.0.0.1")
                .withEnv("EDGE_BRIDGE_ADMIN_PORT", String.valueOf(adminPort))
                .withCopyToContainer(Transferable.of(yaml), "/etc/edge-bridge/bridge.yaml")
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withBinds(Bind.parse(volume + ":/data")))
                .withCommand(command.toArray(String[]::new))
                .withLogConsumer(toLog)
                .waitingFor(Wait.forHealthcheck().withStartupTimeout(Duration.ofSeconds(120)));
        containers.add(container);
        return container;
    }

    private static String get(int port, String path) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    private static Path logFile(String name) {
        return BridgeProcess.logFile(name);
    }

    private static int run(Path log, String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException notInstalled) {
            Files.writeString(
                    log,
                    command[0] + ": " + notInstalled.getMessage() + "\n",
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            return 127;
        }
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish in 10 minutes; log: " + log);
        }
        return p.exitValue();
    }
}
