package org.edgebridge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.edgebridge.broker.Broker;
import org.edgebridge.broker.moquette.MoquetteBroker;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.forward.Forwarder;
import org.edgebridge.intake.Intake;
import org.edgebridge.intake.IntakeStats;
import org.edgebridge.intake.IntakeView;
import org.edgebridge.outbox.DeviceShare;
import org.edgebridge.outbox.OutboxOnFile;
import org.edgebridge.outbox.RetentionPurger;
import org.edgebridge.receipt.ReceiptFigures;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.tls.DevCertificates;
import org.edgebridge.worker.Workers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The series {@link BridgeMetrics} puts on {@code /metrics}, built as {@link AdminServer} builds it (on the real
 * outbox, broker, intake, forwarder, retention and receipts of a bridge that is not started), against a snapshot:
 * every series' name and labels and every family's {@code # HELP} and {@code # TYPE} line, sorted, values left out.
 * A meter renamed, retagged, redescribed or lost fails here.
 *
 * <p>The JVM's families ({@code jvm_}, {@code process_}, {@code system_}) are compared by their HELP and TYPE lines
 * only: their series depend on the garbage collector (memory pools). The GC pause and concurrent phase timers are left
 * out: they appear at the first collection. After a deliberate change of a meter, write the snapshots again with
 * {@code mvn -B -o surefire:test -Dtest=BridgeMetricsSeriesTest -Dbridge.metrics.snapshot=write} (from bridge/) and
 * read their diff.
 */
class BridgeMetricsSeriesTest extends OutboxOnFile {
    /** Read from the source tree (the tests run in bridge/), so that a snapshot written again is the one compared. */
    private static final Path SNAPSHOTS = Path.of("src/test/resources/admin");

    private static final List<String> SERIES_BY_HELP_ONLY = List.of("jvm_", "process_", "system_");
    private static final List<String> LEFT_OUT = List.of("jvm_gc_pause", "jvm_gc_concurrent_phase_time");

    private final List<AutoCloseable> toClose = new ArrayList<>();

    BridgeMetricsSeriesTest() {
        super(Instant.parse("2026-12-06T18:00:00Z"));
    }

    @AfterEach
    void closeParts() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @Test
    void the_series_with_the_shipped_defaults_are_those_of_the_snapshot() throws Exception {
        assertSnapshot("bridge-metrics-series.txt", scrape());
    }

    @Test
    void the_series_with_a_client_certificate_and_oauth2_are_those_of_the_snapshot() throws Exception {
        Path tls = Files.createDirectories(dir.resolve("tls"));
        DevCertificates.ensure(tls);
        Path cert = tls.resolve("bridge.pem");
        Path key = tls.resolve("bridge-key.pem");
        DevCertificates.issueClient(
                tls,
                "edge-01",
                clock.instant().minus(Duration.ofDays(1)),
                clock.instant().plus(Duration.ofDays(90)),
                cert,
                key);
        Path secret = dir.resolve("client.secret");
        Files.writeString(secret, "not-a-real-secret\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        assertSnapshot(
                "bridge-metrics-series-credentials.txt",
                scrape(
                        "ingest.certFile=" + cert,
                        "ingest.keyFile=" + key,
                        "ingest.oauth2.tokenUrl=http://127.0.0.1:9/oauth2/token",
                        "ingest.oauth2.clientId=edge-01",
                        "ingest.oauth2.clientSecretFile=" + secret));
    }

    /** Builds the parts as {@code Bridge} does, and BridgeMetrics on a registry of its own; one scrape. */
    private String scrape(String... extraSets) {
        List<String> sets = new ArrayList<>(List.of(
                "data.dir=" + dir.resolve("data"),
                "mqtt.host=127.0.0.1",
                "auth.anonymous=true",
                "ingest.url=http://127.0.0.1:9/ingest"));
        sets.addAll(List.of(extraSets));
        BridgeConfig config = ConfigLoader.load(null, sets);
        PrometheusMeterRegistry partsMeters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        toClose.add(partsMeters::close);
        Workers workers = new Workers(() -> {});
        Broker broker = closing(new Broker(config.broker(), clock, p -> {}, MoquetteBroker::new));
        ReceiptSender receipts = new ReceiptSender(broker, new ReceiptFigures(partsMeters, clock));
        Forwarder forwarder =
                closing(new Forwarder(config.forwarder(), outbox, receipts, () -> 0L, clock, workers, partsMeters));
        Intake intake = closing(new Intake(outbox, receipts, config.intake(), () -> {}, workers));
        RetentionPurger retention = closing(new RetentionPurger(outbox, config.retention(), clock));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        toClose.add(registry::close);
        BridgeMetrics metrics = closing(new BridgeMetrics(
                registry,
                outbox,
                new OneDeviceAtShare(intake),
                forwarder,
                broker,
                retention,
                receipts,
                () -> List.of(
                        new StatusReport.Alarm("takeover_storm", "dev-1"),
                        new StatusReport.Alarm("takeover_storm", "dev-2"),
                        new StatusReport.Alarm("worker_died", "intake-writer")),
                clock));
        return metrics.scrape();
    }

    private <T extends AutoCloseable> T closing(T part) {
        toClose.add(part);
        return part;
    }

    private static void assertSnapshot(String name, String scrape) throws IOException {
        String series = String.join("\n", series(scrape)) + "\n";
        if ("write".equals(System.getProperty("bridge.metrics.snapshot"))) {
            Files.createDirectories(SNAPSHOTS);
            Files.writeString(SNAPSHOTS.resolve(name), series);
        }
        Path snapshot = SNAPSHOTS.resolve(name);
        assertThat(snapshot).as("the snapshot (from bridge/)").isRegularFile();
        assertThat(series).isEqualTo(Files.readString(snapshot, StandardCharsets.UTF_8));
    }

    /** Each series' name and labels, each family's HELP and TYPE line: sorted, without values. */
    static List<String> series(String scrape) {
        TreeSet<String> lines = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (line.isBlank() || line.equals("# EOF")) {
                continue;
            }
            String name = metricName(line);
            if (LEFT_OUT.stream().anyMatch(name::startsWith)) {
                continue;
            }
            if (line.startsWith("#")) {
                lines.add(line);
            } else if (SERIES_BY_HELP_ONLY.stream().noneMatch(name::startsWith)) {
                lines.add(line.indexOf('{') >= 0 ? line.substring(0, line.lastIndexOf('}') + 1) : name);
            }
        }
        return List.copyOf(lines);
    }

    private static String metricName(String line) {
        if (line.startsWith("#")) {
            String[] words = line.split(" ", 4);
            return words.length > 2 ? words[2] : line;
        }
        int end = line.indexOf('{');
        return line.substring(0, end >= 0 ? end : line.indexOf(' '));
    }

    /** The real intake, with one device at its share of the outbox (for the series of edgebridge_outbox_device_full). */
    private record OneDeviceAtShare(IntakeView intake) implements IntakeView {
        @Override
        public IntakeStats stats() {
            return intake.stats();
        }

        @Override
        public Optional<String> writeFailure() {
            return intake.writeFailure();
        }

        @Override
        public boolean isFull() {
            return intake.isFull();
        }

        @Override
        public boolean isLowOnDisk() {
            return intake.isLowOnDisk();
        }

        @Override
        public List<DeviceAtShare> devicesAtShare() {
            return List.of(new DeviceAtShare("dev-1", 1000, 64_000));
        }

        @Override
        public long deviceShareRefusals() {
            return intake.deviceShareRefusals();
        }

        @Override
        public DeviceShare deviceShare() {
            return intake.deviceShare();
        }

        @Override
        public long maxPending() {
            return intake.maxPending();
        }

        @Override
        public boolean isAccepting() {
            return intake.isAccepting();
        }
    }
}
