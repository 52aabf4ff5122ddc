package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every HTTP endpoint that README.md shows, called on a running {@code demo} (the bridge and its reference
 * central) after a command went through: each answers 200, and the JSON ones with JSON. The endpoints are
 * read from README.md itself, so that a new one there is called here too.
 */
class ReadmeEndpointsIT {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** http://127.0.0.1:8080/… and :8090/… URLs, and admin paths in backticks such as `/api/devices`. */
    private static final Pattern URL = Pattern.compile("http://127\\.0\\.0\\.1:(8080|8090)(/[A-Za-z0-9/_.?=&-]*)?");

    private static final Pattern PATH = Pattern.compile("`(/(?:api|metrics|health)[A-Za-z0-9/_.-]*)`");
    private static final Pattern BOUND_PORTS = Pattern.compile("bound ports: mqtt=(\\d+) tls=\\d+ admin=(\\d+)");
    private static final Pattern CENTRAL_AT =
            Pattern.compile("reference central listening on http://127\\.0\\.0\\.1:(\\d+)/ingest");

    @TempDir
    Path dir;

    @Test
    void every_endpoint_in_the_readme_answers_on_the_demo() throws Exception {
        String readme = Files.readString(Path.of("../README.md"));
        TreeSet<String> admin = new TreeSet<>();
        TreeSet<String> central = new TreeSet<>();
        Matcher m = URL.matcher(readme);
        while (m.find()) {
            (m.group(1).equals("8080") ? admin : central).add(m.group(2) == null ? "/" : m.group(2));
        }
        TreeSet<String> posts = new TreeSet<>();
        for (String line : readme.split("\n\\*|\n(?=\\S)")) {
            Matcher p = PATH.matcher(line);
            while (p.find()) {
                // an admin action (a paragraph that says POST) is called with POST: without the token it must be 401
                (line.contains("(POST") ? posts : admin).add(p.group(1));
            }
        }
        assertThat(admin).contains("/", "/api/status", "/metrics", "/api/outbox", "/api/devices");
        assertThat(central).contains("/sim/inbox");

        // every listener on any free port; the demo logs which ones it bound
        Path log = BridgeProcess.logFile("readme-demo");
        List<String> command = new ArrayList<>(BridgeJar.command("256m", List.of()));
        command.addAll(List.of(
                "demo",
                "--central-port",
                "0",
                "--set",
                "admin.port=any",
                "--set",
                "mqtt.port=any",
                "--set",
                "tls.port=any",
                "--set",
                "data.dir=" + dir.resolve("demo-data")));
        Process demo = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        try {
            Matcher bound = BOUND_PORTS.matcher("");
            Matcher centralAt = CENTRAL_AT.matcher("");
            await("demo ports logged (log: " + log + ")")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> {
                        assertThat(demo.isAlive())
                                .as("demo running; log: " + log)
                                .isTrue();
                        String text = Files.readString(log);
                        return bound.reset(text).find() && centralAt.reset(text).find();
                    });
            int mqttPort = Integer.parseInt(bound.group(1));
            int adminPort = Integer.parseInt(bound.group(2));
            int centralPort = Integer.parseInt(centralAt.group(1));
            await("demo ready (log: " + log + ")")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> status(adminPort, "/health/ready") == 200);
            try (DeviceSimulator device = DeviceSimulator.of("readme-device", mqttPort)) {
                assertThat(Files.readString(log))
                        .as("the banner names the status page")
                        .contains("status page http://127.0.0.1:" + adminPort + "/ ");
                device.connectAndSubscribe();
                device.publish("workorder/arrive", DeviceSimulator.command("README-1", "\"workOrderId\":\"WO-1\""));
                device.awaitFinal("README-1");

                for (String path : admin) {
                    check(adminPort, path);
                }
                for (String path : central) {
                    check(centralPort, path);
                }
                for (String path : posts) {
                    HttpResponse<String> r = HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                                            .POST(HttpRequest.BodyPublishers.noBody())
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode())
                            .as("POST " + path + " without the admin token: " + r.body())
                            .isEqualTo(401);
                }
                assertThat(body(centralPort, "/sim/inbox"))
                        .contains("\"eventId\":\"README-1\"")
                        .containsPattern("\"appliedAt\":\"\\d{4}-\\d\\d-\\d\\dT");
            }
        } finally {
            demo.destroy();
            if (!demo.waitFor(60, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
        }
    }

    private static void check(int port, String path) throws IOException, InterruptedException {
        HttpResponse<String> r = get(port, path);
        assertThat(r.statusCode())
                .as("GET " + path + " on :" + port + ": " + r.body())
                .isEqualTo(200);
        if (path.startsWith("/api/") || path.startsWith("/sim/") || path.startsWith("/health/")) {
            assertThat(DeviceSimulator.JSON.readTree(r.body()).isContainerNode())
                    .as("GET " + path + " is JSON")
                    .isTrue();
        }
    }

    private static int status(int port, String path) {
        try {
            return get(port, path).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String body(int port, String path) throws IOException, InterruptedException {
        return get(port, path).body();
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
