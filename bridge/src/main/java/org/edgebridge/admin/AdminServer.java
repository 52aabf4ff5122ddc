package org.edgebridge.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.edgebridge.broker.BrokerView;
import org.edgebridge.budget.BudgetSettings;
import org.edgebridge.budget.DataBudget;
import org.edgebridge.code.AlarmCode;
import org.edgebridge.commission.CheckReport;
import org.edgebridge.config.AdminSettings;
import org.edgebridge.forecast.DiskForecast;
import org.edgebridge.forecast.ForecastSettings;
import org.edgebridge.forward.ForwarderControl;
import org.edgebridge.intake.IntakeView;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.Once;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.RetentionPurger;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.storage.StorageHonesty;
import org.edgebridge.worker.Workers;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP side (docs/protocol.md §3): status page, status JSON, outbox and devices, forwarder control,
 * Prometheus metrics and health. Binds {@code admin.host} (loopback by default). Every POST needs
 * {@code Authorization: Bearer {admin.token}}, and so does every read but the page's HTML and the health checks when
 * {@code admin.host} is not loopback ({@code admin.tokenForReads}). Without the token, those reads answer only a
 * request whose {@code Host} is this bridge's ({@link AdminHosts}: no DNS rebinding); every error is JSON {@code
 * {"error":…,"message":…}}.
 *
 * <p>Threads: Jetty's pool, owned by Javalin; handlers only read status records and call thread-safe methods.
 */
public final class AdminServer implements Component, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    static final ObjectMapper JSON = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .addModule(new Jdk8Module())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();

    private final AdminSettings settings;
    private final StatusReport status;
    private final BridgeMetrics metrics;
    private final Javalin app;
    private final byte[] statusPage = resource("/admin/status.html");
    /** The status page's scripts, served from the jar (sites are often offline: no CDN). */
    private final Map<String, byte[]> scripts = Map.of(
            "desk.js",
            resource("/admin/desk.js"),
            "activity.js",
            resource("/admin/activity.js"),
            "check.js",
            resource("/admin/check.js"),
            "timeline.js",
            resource("/admin/timeline.js"));

    private final ActivityHistory activity;
    private final DiskForecast forecast;
    private final DataBudget budget;
    private final AdminHosts hosts;
    /** Reads refused because their Host was not this bridge's and they had no token. */
    private final AtomicLong foreignHosts = new AtomicLong();

    /** The parts the admin side reads and acts on. */
    public record Parts(
            StatusReport.Site site,
            AdminOutbox outbox,
            BrokerView broker,
            IntakeView intake,
            ForwarderControl forwarder,
            RetentionPurger retention,
            ReceiptSender receipts,
            Workers workers,
            PrometheusMeterRegistry meters,
            Clock clock,
            StatusReport.Central central,
            Supplier<CheckReport> checkCentral,
            ForecastSettings forecast,
            BudgetSettings budget,
            StorageHonesty storage) {}

    public AdminServer(AdminSettings settings, Parts p) {
        this.settings = settings;
        this.hosts = new AdminHosts(settings.host());
        this.status = new StatusReport(
                p.site(),
                p.outbox(),
                p.broker(),
                p.intake(),
                p.forwarder(),
                p.retention(),
                p.workers(),
                p.clock(),
                p.central(),
                p.storage());
        this.metrics = new BridgeMetrics(
                p.meters(),
                p.outbox(),
                p.intake(),
                p.forwarder(),
                p.broker(),
                p.retention(),
                p.receipts(),
                this::alarms,
                p.clock());
        FunctionCounter.builder("edgebridge.admin.reads.foreign.host", foreignHosts, AtomicLong::get)
                .description(
                        "admin reads refused (403 host_not_allowed): a Host that is not this bridge's and no token")
                .register(p.meters());
        OutboxApi outbox = new OutboxApi(p.outbox(), p.site().edgeId(), p.clock());
        DevicesApi devices = new DevicesApi(p.outbox(), p.broker());
        ParkedApi parked = new ParkedApi(p.outbox(), p.receipts(), p.clock());
        PendingApi pending = new PendingApi(p.outbox(), p.receipts());
        this.activity = new ActivityHistory(
                p.clock(),
                p.outbox()::openCount,
                () -> p.intake().stats().stored(),
                p.meters(),
                p.forwarder().circuitBreakers());
        ForwarderControl forwarder = p.forwarder();
        this.forecast = new DiskForecast(
                p.forecast(),
                new DiskForecast.Sources(
                        () -> p.intake().stats().stored(),
                        () -> forwarder.status().finals(),
                        p.outbox()::openCount,
                        () -> p.outbox().reads().counts().perState().values().stream()
                                .mapToLong(Long::longValue)
                                .sum()),
                p.clock());
        ForecastMetrics.register(p.meters(), forecast);
        this.budget = new DataBudget(p.budget(), forwarder.wireBytes(), p.clock());
        BudgetMetrics.register(p.meters(), budget, forwarder.wireBytes());
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            // Jetty caches header lines per connection and by default matches a cached line case-insensitively, value
            // included: after "Authorization: Bearer Secret" a request on the same kept-alive connection with
            // "Bearer secret" was let in, and after a wrong-case token the right one got 401 (JDK HttpClient)
            config.jetty.modifyHttpConfiguration(http -> http.setHeaderCacheCaseSensitive(true));
            config.routes.before(this::requireToken);
            config.routes.get(
                    "/", ctx -> ctx.contentType("text/html; charset=utf-8").result(statusPage));
            config.routes.get("/assets/{script}", this::script);
            config.routes.get("/api/activity", ctx -> json(ctx, 200, activity.snapshot()));
            config.routes.get("/health/live", ctx -> json(ctx, 200, Map.of("status", "live")));
            config.routes.get("/health/ready", this::ready);
            config.routes.get("/api/status", ctx -> {
                Map<String, Object> body = new LinkedHashMap<>(status.snapshot());
                body.put("forecast", forecast.forecast());
                body.put("dataBudget", budget.snapshot());
                body.put("alarms", alarms());
                json(ctx, 200, body);
            });
            config.routes.get("/api/outbox", outbox::list);
            config.routes.get("/api/outbox/{deviceId}/{commandId}", outbox::one);
            config.routes.post("/api/outbox/{deviceId}/{commandId}/requeue", outbox::requeue);
            config.routes.post("/api/outbox/{deviceId}/{commandId}/reject", pending::reject);
            config.routes.post("/api/outbox/{deviceId}/{commandId}/park", pending::park);
            config.routes.get("/api/outbox/{deviceId}/{commandId}/payload", outbox::payload);
            config.routes.get("/api/outbox/{deviceId}/{commandId}/timeline", outbox::timelineFile);
            config.routes.get("/api/parked", parked::list);
            config.routes.post("/api/parked/requeue", parked::requeue);
            config.routes.post("/api/parked/reject", parked::reject);
            config.routes.post("/api/forwarder/pause", ctx -> {
                forwarder.pause();
                json(ctx, 200, Map.of("forwarder", "paused"));
            });
            config.routes.post("/api/forwarder/resume", ctx -> {
                forwarder.resume();
                json(ctx, 200, Map.of("forwarder", "resumed"));
            });
            config.routes.post("/api/forwarder/retry-now", ctx -> {
                ForwarderControl.RetryNow done = forwarder.retryNow();
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("forwarder", "every wait ended");
                body.put("requestWaitWasUntil", done.requestWaitUntil().orElse(null));
                body.put("breakerWasOpen", done.breakerWasOpen());
                body.put("eventsMadeDue", done.eventsMadeDue());
                json(ctx, 200, body);
            });
            config.routes.post("/api/alarms/{code}/ack", ctx -> acknowledge(ctx, p.broker()));
            config.routes.post("/api/check-central", new CentralCheckApi(p.checkCentral())::run);
            config.routes.get("/api/devices", ctx -> json(ctx, 200, Map.of("devices", devices.list())));
            config.routes.get(
                    "/metrics",
                    ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                            .result(metrics.scrape()));
            config.routes.exception(OutboxApi.ApiError.class, (e, ctx) -> error(ctx, e.status, e.code, e.getMessage()));
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("admin request {} {} failed", ctx.method(), ctx.path(), e);
                error(ctx, 500, "internal_error", "the request failed; see the bridge's log");
            });
            config.routes.error(404, ctx -> {
                if (!isJson(ctx)) {
                    error(ctx, 404, "not_found", "no such endpoint: " + ctx.method() + " " + ctx.path());
                }
            });
            config.routes.error(405, ctx -> {
                if (!isJson(ctx)) {
                    error(ctx, 405, "method_not_allowed", ctx.method() + " is not allowed on " + ctx.path());
                }
            });
        });
    }

    /** The status report's alarms and the data budget's ({@code data_budget_warning}, {@code data_budget_exceeded}). */
    private List<StatusReport.Alarm> alarms() {
        List<StatusReport.Alarm> all = new ArrayList<>(status.alarms());
        budget.alarms().forEach(a -> all.add(new StatusReport.Alarm(a.code(), a.message())));
        return all;
    }

    private final Once once = new Once();

    /** Binds {@code admin.host}:{@code admin.port}; once. */
    @Override
    public void start() {
        if (!once.start()) {
            return;
        }
        try {
            app.start(settings.host(), settings.port());
            activity.start();
            forecast.start();
            budget.start();
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "admin.port=" + settings.port() + ": cannot listen on " + settings.host() + ":" + settings.port()
                            + " (" + e.getMessage() + "); is another bridge running? set admin.port",
                    e);
        }
    }

    public int port() {
        return app.port();
    }

    private void script(Context ctx) {
        byte[] body = scripts.get(ctx.pathParam("script"));
        if (body == null) {
            throw new OutboxApi.ApiError(404, "not_found", "no such script: " + ctx.pathParam("script"));
        }
        ctx.contentType("text/javascript; charset=utf-8").result(body);
    }

    /**
     * {@code GET /health/ready}: 200 when the broker, the outbox and the forwarder are ready, else 503 ({@link
     * Readiness}).
     */
    private void ready(Context ctx) {
        Readiness r = status.readiness();
        json(ctx, r.ready() ? 200 : 503, r);
    }

    /** {@code POST /api/alarms/{code}/ack}: only alarms that wait for an admin can be acknowledged. */
    private static void acknowledge(Context ctx, BrokerView broker) {
        String code = ctx.pathParam("code");
        if (!code.equals(AlarmCode.BROKER_STORE_RESET.wire())) {
            throw new OutboxApi.ApiError(
                    404,
                    "not_acknowledgeable",
                    "no alarm '" + code + "' waits for an acknowledgement; only " + AlarmCode.BROKER_STORE_RESET.wire()
                            + " does (the others clear when their cause does)");
        }
        int n = broker.storeResets().acknowledgeAll("admin API from " + ctx.ip());
        json(ctx, 200, Map.of("alarm", code, "acknowledged", n));
    }

    /** Paths every client may GET whatever the settings: the page's HTML (it holds no data) and the health checks. */
    private static final Set<String> OPEN_READS = Set.of("/", "/health/live", "/health/ready");

    /**
     * Every POST needs the token; so does every other request but {@link #OPEN_READS} when reads need it
     * ({@code admin.host} not loopback, or {@code admin.tokenForReads=always}).
     */
    private void requireToken(Context ctx) {
        boolean post = ctx.method() == HandlerType.POST;
        if (!post && OPEN_READS.contains(ctx.path())) {
            return;
        }
        if (!post && !settings.readsNeedToken()) {
            if (hosts.allows(ctx.header("Host")) || hasToken(ctx)) {
                return;
            }
            foreignHosts.incrementAndGet();
            throw new OutboxApi.ApiError(
                    403,
                    "host_not_allowed",
                    "Host " + AdminHosts.shown(ctx.header("Host"))
                            + " is not this bridge's: without the admin token, reads answer only for Host localhost, "
                            + "127.0.0.1, [::1] or admin.host (a page that rebinds its own name to 127.0.0.1 must "
                            + "not read the outbox); send Authorization: Bearer <admin.token>");
        }
        if (settings.token().isEmpty()) {
            throw new OutboxApi.ApiError(403, "admin_token_unset", "set admin.token to allow admin actions");
        }
        if (!hasToken(ctx)) {
            throw new OutboxApi.ApiError(401, "unauthorized", "this needs Authorization: Bearer <admin.token>");
        }
    }

    /** Whether the request carries {@code Authorization: Bearer {admin.token}} (false while no token is set). */
    private boolean hasToken(Context ctx) {
        if (settings.token().isEmpty()) {
            return false;
        }
        String header = ctx.header("Authorization");
        // the scheme's name is case-insensitive (RFC 9110 §11.1), the token is not
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] expected = settings.token().get().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(expected, header.substring(7).getBytes(StandardCharsets.UTF_8));
    }

    private static boolean isJson(Context ctx) {
        String type = ctx.res().getContentType();
        return type != null && type.startsWith("application/json");
    }

    static void error(Context ctx, int status, String error, @Nullable String message) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("message", message);
        json(ctx, status, body);
    }

    static void json(Context ctx, int status, Object body) {
        try {
            ctx.status(status).contentType("application/json").result(JSON.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a response could not be written as JSON", e);
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = AdminServer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #close(Duration)} with 5 s, for try-with-resources. */
    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /** Stops the HTTP listener (Javalin waits for the requests under way) and the metrics. */
    @Override
    public void close(Duration timeout) {
        if (!once.close()) {
            return;
        }
        if (once.started()) {
            app.stop();
        }
        activity.close();
        forecast.close();
        budget.close();
        metrics.close();
    }
}
