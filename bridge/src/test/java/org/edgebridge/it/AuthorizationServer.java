package org.edgebridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.edgebridge.device.DeviceSimulator;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real OAuth2 authorization server for the tests: Spring Authorization Server (through Spring Boot's starter, on
 * embedded Tomcat), configured by properties alone. It registers the bridge's client ({@value #CLIENT_ID}, client
 * credentials grant, scope {@value #SCOPE}, HTTP Basic or form authentication, the secret checked) and central's, which
 * checks the bridge's tokens with the server's introspection endpoint (RFC 7662): a token is good while the server
 * says it is active (not expired, issued by this run of the server) with the scope.
 */
final class AuthorizationServer implements AutoCloseable {
    static final String CLIENT_ID = "edge-01";
    static final String SCOPE = "ingest";
    private static final String CENTRAL_ID = "central";
    private static final String CENTRAL_SECRET = "central-introspects-tokens";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    private final ConfigurableApplicationContext context;
    final int port;

    private AuthorizationServer(ConfigurableApplicationContext context, int port) {
        this.context = context;
        this.port = port;
    }

    /** Starts on {@code port} (not 0: a test restarts it on the same port) with the bridge's client secret and token life. */
    static AuthorizationServer start(int port, String clientSecret, Duration tokenLife) {
        // the bridge's logback set-up stays as it is: Spring Boot would configure logging its own way
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("server.address", "127.0.0.1");
        p.put("server.port", port);
        client(p, "edge", CLIENT_ID, clientSecret, "client_secret_basic,client_secret_post", SCOPE);
        p.put(
                "spring.security.oauth2.authorizationserver.client.edge.token.access-token-time-to-live",
                tokenLife.toSeconds() + "s");
        client(p, "central", CENTRAL_ID, CENTRAL_SECRET, "client_secret_basic", "introspect");
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.SERVLET)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(p)
                .run();
        return new AuthorizationServer(context, port);
    }

    private static void client(
            Map<String, Object> p, String name, String id, String secret, String methods, String scopes) {
        String r = "spring.security.oauth2.authorizationserver.client." + name + ".registration.";
        p.put(r + "client-id", id);
        p.put(r + "client-secret", "{noop}" + secret);
        p.put(r + "client-authentication-methods", methods);
        p.put(r + "authorization-grant-types", "client_credentials");
        p.put(r + "scopes", scopes);
    }

    String tokenUrl() {
        return "http://127.0.0.1:" + port + "/oauth2/token";
    }

    /**
     * Central's check of an {@code Authorization} header: a bearer token that the server on {@code port} (whichever run
     * of it) says is active, with the scope. Every token shown is added to {@code seen}, to check that none leaks.
     */
    static java.util.function.Predicate<String> centralCheck(int port, List<String> seen) {
        return authorization -> admits(port, authorization, seen);
    }

    private static boolean admits(int port, String authorization, List<String> seen) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return false;
        }
        String token = authorization.substring("Bearer ".length());
        seen.add(token);
        try {
            String basic = Base64.getEncoder()
                    .encodeToString((CENTRAL_ID + ":" + CENTRAL_SECRET).getBytes(StandardCharsets.UTF_8));
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/oauth2/introspect"))
                            .header("Authorization", "Basic " + basic)
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode answer = DeviceSimulator.JSON.readTree(r.body());
            return r.statusCode() == 200
                    && answer.path("active").asBoolean()
                    && List.of(answer.path("scope").asText("").split(" ")).contains(SCOPE);
        } catch (Exception e) {
            return false; // the server is down: central cannot check the token
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
