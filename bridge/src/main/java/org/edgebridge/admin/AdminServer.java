package org.edgebridge.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.edgebridge.forward.Forwarder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP side (CONTRACT §4): health, status and forwarder control. Binds {@code admin.host}
 * (loopback by default). Every POST needs {@code Authorization: Bearer {admin.token}}; errors are JSON
 * {@code {"error":…,"message":…}}.
 *
 * <p>Threads: Jetty's pool, owned by Javalin; handlers only read status records and call thread-safe methods.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    static final ObjectMapper JSON = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .addModule(new Jdk8Module())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();

    private final AdminSettings settings;
    private final StatusReport status;
    private final Forwarder forwarder;
    private final Javalin app;

    public AdminServer(AdminSettings settings, StatusReport status, Forwarder forwarder) {
        this.settings = settings;
        this.status = status;
        this.forwarder = forwarder;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.routes.get("/health/live", ctx -> json(ctx, 200, Map.of("status", "live")));
            config.routes.get("/health/ready", this::ready);
            config.routes.get("/api/status", ctx -> json(ctx, 200, status.snapshot()));
            config.routes.post("/api/forwarder/pause", ctx -> {
                if (authorized(ctx)) {
                    forwarder.pause();
                    json(ctx, 200, Map.of("forwarder", "paused"));
                }
            });
            config.routes.post("/api/forwarder/resume", ctx -> {
                if (authorized(ctx)) {
                    forwarder.resume();
                    json(ctx, 200, Map.of("forwarder", "resumed"));
                }
            });
            config.routes.error(404, ctx -> {
                if (ctx.result() == null || ctx.result().isEmpty()) {
                    error(ctx, 404, "not_found", "no such endpoint: " + ctx.method() + " " + ctx.path());
                }
            });
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("admin request {} {} failed", ctx.method(), ctx.path(), e);
                error(ctx, 500, "internal_error", "the request failed; see the bridge's log");
            });
        });
    }

    public AdminServer start() {
        app.start(settings.host(), settings.port());
        return this;
    }

    public int port() {
        return app.port();
    }

    private void ready(Context ctx) {
        Map<String, Object> body = new LinkedHashMap<>();
        boolean broker = status.brokerRunning();
        boolean outbox = status.outboxWritable();
        body.put("status", broker && outbox ? "ready" : "not_ready");
        body.put("listeners", broker);
        body.put("outboxWritable", outbox);
        json(ctx, broker && outbox ? 200 : 503, body);
    }

    private boolean authorized(Context ctx) {
        if (settings.token().isEmpty()) {
            error(ctx, 403, "admin_token_unset", "set admin.token to allow admin actions");
            return false;
        }
        String header = ctx.header("Authorization");
        byte[] expected = ("Bearer " + settings.token().get()).getBytes(StandardCharsets.UTF_8);
        if (header == null || !MessageDigest.isEqual(expected, header.getBytes(StandardCharsets.UTF_8))) {
            error(ctx, 401, "unauthorized", "this needs Authorization: Bearer <admin.token>");
            return false;
        }
        return true;
    }

    static void error(Context ctx, int status, String error, String message) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("message", message);
        json(ctx, status, body);
    }

    static void json(Context ctx, int status, Object body) {
        try {
            ctx.status(status).contentType("application/json").result(JSON.writeValueAsBytes(body));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("status could not be written as JSON", e);
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
