package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.worker.Workers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A failed request to central says which host and port, and what kind of failure: real sockets where they can be. */
class TransportFailuresTest {
    /** @param client {@code ingest.client} */
    static IngestReply post(String url, String client) {
        ForwarderSettings settings = ConfigLoader.load(
                        null, List.of("ingest.url=" + url, "ingest.timeout=5s", "ingest.client=" + client))
                .forwarder();
        try (CentralClient c = CentralClient.of(settings, Optional.empty(), new Workers(() -> {}))) {
            return c.post("batch-1", "{\"events\":[]}".getBytes(StandardCharsets.UTF_8), Optional.empty());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "blocking"})
    void a_port_nothing_listens_on_is_a_refused_connection_naming_host_and_port(String client) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        IngestReply reply = post("https://127.0.0.1:" + port + "/ingest", client); // blocking: https only
        assertThat(reply.status()).isZero();
        assertThat(reply.transportError())
                .isEqualTo("connection to 127.0.0.1:" + port + " refused (nothing listens there: check ingest.url)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "blocking"})
    void https_to_a_plain_http_central_is_a_tls_failure_naming_host_and_port(String client) {
        try (CentralSim central = new CentralSim(Optional.empty(), 1 << 20, Clock.systemUTC()).start("127.0.0.1", 0)) {
            IngestReply reply = post("https://127.0.0.1:" + central.port() + "/ingest", client);
            assertThat(reply.transportError())
                    .startsWith("TLS with 127.0.0.1:" + central.port() + " failed")
                    .endsWith("check the server certificate and ingest.caFile");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "blocking"})
    void a_name_that_does_not_resolve_is_said_to_be_dns(String client) {
        assertThat(post("https://central.example.invalid:8090/ingest", client).transportError())
                .isEqualTo("host central.example.invalid of ingest.url does not resolve (DNS)");
        // as the JDK's client reports it: a ConnectException caused by an UnresolvedAddressException
        ConnectException e = new ConnectException();
        e.initCause(new UnresolvedAddressException());
        assertThat(TransportFailures.describe(URI.create("http://central.example.invalid/ingest"), e))
                .isEqualTo("host central.example.invalid of ingest.url does not resolve (DNS)");
    }

    @Test
    void a_reset_connection_and_an_unknown_failure_still_name_where() {
        assertThat(TransportFailures.describe(
                        URI.create("https://c.example:8443/ingest"),
                        new java.io.IOException("Connection reset by peer")))
                .isEqualTo("connection to c.example:8443 reset");
        assertThat(TransportFailures.describe(URI.create("https://c.example/ingest"), new java.io.IOException("odd")))
                .isEqualTo("connection to c.example:443 failed: IOException: odd");
    }

    @Test
    void httpurlconnection_s_connect_timeout_and_refused_tunnel_are_told_as_the_jdk_client_s() {
        URI central = URI.create("https://c.example:8443/ingest");
        assertThat(TransportFailures.describe(central, new java.net.SocketTimeoutException("Connect timed out")))
                .isEqualTo("no connection to c.example:8443 within the connect timeout (a firewall dropping packets, "
                        + "or the host is down)");
        assertThat(TransportFailures.describe(
                        central,
                        Optional.of(URI.create("http://proxy.site:3128")),
                        new java.io.IOException(
                                "Unable to tunnel through proxy. Proxy returns \"HTTP/1.1 403 Forbidden\"")))
                .startsWith("ingest.proxy proxy.site:3128 did not open the CONNECT tunnel to c.example:8443 (Tunnel "
                        + "failed, got: 403)");
    }
}
