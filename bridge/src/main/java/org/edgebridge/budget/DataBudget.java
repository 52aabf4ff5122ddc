package org.edgebridge.budget;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.edgebridge.code.AlarmCode;
import org.edgebridge.forward.WireBytes;
import org.edgebridge.worker.GuardedRuns;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bytes to and from central this UTC day and month, from the forwarder's {@link WireBytes} (read every
 * {@link #INTERVAL}, the growth since the read before added to the day and the month), kept across restarts in
 * {@code data.dir/data-budget.json} (written after each read that changed it: to a new file, forced to disk, then
 * renamed over the old one; what came in the last interval before a power cut is lost, no more). Against
 * {@code ingest.dataBudget}: the alarm {@code data_budget_warning} from 80 %, {@code data_budget_exceeded} from 100 %.
 * Past 100 % the bridge goes on sending everything: nothing is dropped or held back (docs/install.md).
 *
 * <p>Threads: one daemon thread of its own, {@code data-budget}, started by {@link #start} and stopped by
 * {@link #close} (which takes a last reading). Thread-safe.
 */
public final class DataBudget implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DataBudget.class);
    public static final Duration INTERVAL = Duration.ofSeconds(10);
    static final String FILE = "data-budget.json";
    static final int TOP_DEVICES = 10;
    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("yyyy-MM");

    /** What is persisted. */
    record Saved(Usage day, Usage month) {}

    /** One alarm: code and message, as the status page lists them. */
    public record Alarm(String code, String message) {}

    /** A device and the payload bytes it sent to central this month. */
    public record Device(String deviceId, long bytes) {}

    /**
     * The body of {@code /api/status}'s {@code dataBudget}.
     *
     * @param compressionRatio request bodies before compression over as sent, this month (null before any)
     * @param budgetBytes {@code ingest.dataBudget} (null: unset)
     * @param usedRatio this month's bytes over the budget (null: unset)
     */
    public record Snapshot(
            Usage today,
            Usage month,
            @Nullable Double compressionRatio,
            @Nullable Long budgetBytes,
            @Nullable Double usedRatio,
            List<Device> topDevices,
            String past100) {}

    private final BudgetSettings settings;
    private final WireBytes wire;
    private final Clock clock;
    private final Path file;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "data-budget");
        t.setDaemon(true);
        return t;
    });
    private Usage day; // guarded by this
    private Usage month; // guarded by this
    private long lastSent;
    private long lastReceived;
    private long lastBody;
    private long lastWireBody;
    private Map<String, Long> lastDevices = Map.of();

    public DataBudget(BudgetSettings settings, WireBytes wire, Clock clock) {
        this.settings = settings;
        this.wire = wire;
        this.clock = clock;
        this.file = settings.dataDir().resolve(FILE);
        Saved saved = load();
        this.day = saved.day().period().equals(today()) ? saved.day() : Usage.empty(today());
        this.month = saved.month().period().equals(thisMonth()) ? saved.month() : Usage.empty(thisMonth());
    }

    private Saved load() {
        if (!Files.exists(file)) {
            return new Saved(Usage.empty(""), Usage.empty(""));
        }
        try {
            return JSON.readValue(file.toFile(), Saved.class);
        } catch (IOException | RuntimeException e) {
            LOG.warn("{} cannot be read ({}): this month's data to central counts from now", file, e.toString());
            return new Saved(Usage.empty(""), Usage.empty(""));
        }
    }

    public void start() {
        timer.scheduleAtFixedRate(
                GuardedRuns.of(this::sample, LOG, "data budget reading failed (the next one counts it)"),
                INTERVAL.toMillis(),
                INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private String today() {
        return ZonedDateTime.now(clock.withZone(ZoneOffset.UTC)).toLocalDate().toString();
    }

    private String thisMonth() {
        return MONTH.format(ZonedDateTime.now(clock.withZone(ZoneOffset.UTC)));
    }

    /** Adds what was exchanged since the last reading to the day and the month, and keeps them on disk. */
    public synchronized void sample() {
        long sent = wire.sentBytes();
        long received = wire.receivedBytes();
        long body = wire.bodyBytes();
        long wireBody = wire.wireBodyBytes();
        Map<String, Long> devices = wire.perDevice();
        Map<String, Long> deviceGrowth = new HashMap<>();
        devices.forEach((d, n) -> {
            long grown = n - lastDevices.getOrDefault(d, 0L);
            if (grown > 0) {
                deviceGrowth.put(d, grown);
            }
        });
        boolean changed = sent != lastSent || received != lastReceived;
        if (!day.period().equals(today())) {
            day = Usage.empty(today());
            changed = true;
        }
        if (!month.period().equals(thisMonth())) {
            month = Usage.empty(thisMonth());
            changed = true;
        }
        day = day.plus(
                sent - lastSent,
                received - lastReceived,
                body - lastBody,
                wireBody - lastWireBody,
                Map.of(),
                0,
                WireBytes.OTHER_DEVICES);
        month = month.plus(
                sent - lastSent,
                received - lastReceived,
                body - lastBody,
                wireBody - lastWireBody,
                deviceGrowth,
                WireBytes.MAX_DEVICES,
                WireBytes.OTHER_DEVICES);
        lastSent = sent;
        lastReceived = received;
        lastBody = body;
        lastWireBody = wireBody;
        lastDevices = devices;
        if (changed) {
            save();
        }
    }

    private void save() {
        Path next = file.resolveSibling(FILE + ".new");
        try {
            Files.write(next, JSON.writeValueAsBytes(new Saved(day, month)));
            try (FileChannel channel = FileChannel.open(next, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn(
                    "{} cannot be written ({}): this month's figures are kept in memory until it can",
                    file,
                    e.toString());
        }
    }

    public synchronized Snapshot snapshot() {
        Optional<Long> budget = settings.monthlyBytes();
        List<Device> top = new ArrayList<>();
        month.devices().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .limit(TOP_DEVICES)
                .forEach(e -> top.add(new Device(e.getKey(), e.getValue())));
        return new Snapshot(
                day,
                month,
                month.wireBodyBytes() > 0 ? (double) month.bodyBytes() / month.wireBodyBytes() : null,
                budget.orElse(null),
                budget.map(b -> (double) month.totalBytes() / b).orElse(null),
                List.copyOf(top),
                "past 100 % the bridge keeps sending every command, live and backlog: nothing is dropped or held back; "
                        + "POST /api/forwarder/pause stops sending if the link's cost must stop");
    }

    /** {@code data_budget_warning} from 80 % of ingest.dataBudget, {@code data_budget_exceeded} from 100 %. */
    public List<Alarm> alarms() {
        Snapshot s = snapshot();
        Double used = s.usedRatio();
        Long budget = s.budgetBytes();
        if (used == null || budget == null || used < 0.8) {
            return List.of();
        }
        String figures = String.format(
                        Locale.ROOT,
                        "%d %% of ingest.dataBudget (%d of %d bytes to and from central in %s)",
                        Math.round(used * 100),
                        s.month().totalBytes(),
                        budget,
                        s.month().period())
                + (s.topDevices().isEmpty()
                        ? ""
                        : "; most by " + s.topDevices().get(0).deviceId());
        return used >= 1.0
                ? List.of(new Alarm(
                        AlarmCode.DATA_BUDGET_EXCEEDED.wire(),
                        "this month's data to central is over its budget: " + figures + "; " + s.past100()))
                : List.of(new Alarm(
                        AlarmCode.DATA_BUDGET_WARNING.wire(), "this month's data to central is at " + figures));
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            sample();
        } catch (RuntimeException e) {
            LOG.warn("last data budget reading failed: {}", e.toString());
        }
    }
}
