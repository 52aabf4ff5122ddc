package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.LoadsTheMachine;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, point 4: nothing was limited before login. 700 connections that each declared a 520 KB PUBLISH before
 * any CONNECT and then trickled bytes drove a bridge at -Xmx256m out of direct memory; 78 were still held after 60 s.
 * Now a first packet that is not a CONNECT, or a CONNECT over {@code mqtt.maxConnectBytes}, closes the connection at
 * once, a CONNECT must be whole within {@code mqtt.connectTimeout}, and connections are capped in total and per
 * address. Every flood here is 700 raw sockets that keep trickling bytes, so that only the bridge can end them.
 */
@LoadsTheMachine
class BeforeLoginLimitsIT extends OneDeviceSite {
    private static final int FLOOD_CONNECTIONS = 700;
    /** The PUBLISH (or CONNECT) each flood connection declares: 520 KB, just under mqtt.maxPacketBytes (512 KiB). */
    private static final int DECLARED_BYTES = 520_000;

    private final List<Socket> flood = new ArrayList<>();

    BeforeLoginLimitsIT() {
        super("field-node-1");
    }

    @AfterEach
    void closeFlood() throws IOException {
        for (Socket s : flood) {
            s.close();
        }
    }

    @Test
    void
            seven_hundred_connections_that_declare_a_520_kb_publish_before_connect_are_closed_and_a_device_gets_its_accepted()
                    throws Exception {
        open(FLOOD_CONNECTIONS, header(0x30, DECLARED_BYTES), new byte[4_096]);
        deviceGetsItsAccepted();
        awaitAllClosedBy(Duration.ofSeconds(8));
        assertThat(limits().path("packetsBeforeConnect").asLong()).isEqualTo(FLOOD_CONNECTIONS);
    }

    @Test
    void seven_hundred_connections_that_declare_a_520_kb_connect_are_closed_and_a_device_gets_its_accepted()
            throws Exception {
        open(FLOOD_CONNECTIONS, header(0x10, DECLARED_BYTES), connectUpToClientId(DECLARED_BYTES));
        deviceGetsItsAccepted();
        awaitAllClosedBy(Duration.ofSeconds(8));
        assertThat(limits().path("connectsTooLarge").asLong()).isEqualTo(FLOOD_CONNECTIONS);
    }

    @Test
    void seven_hundred_connections_that_trickle_a_small_connect_are_closed_after_the_10_s_connect_timeout()
            throws Exception {
        open(FLOOD_CONNECTIONS, header(0x10, 200), connectUpToClientId(200));
        deviceGetsItsAccepted();
        // one byte a second would finish the 200-byte CONNECT after 200 s; the shipped mqtt.connectTimeout is 10 s
        awaitAllClosedBy(Duration.ofSeconds(25));
        assertThat(limits().path("connectsTimedOut").asLong()).isEqualTo(FLOOD_CONNECTIONS);
    }

    @Test
    void
            with_max_connections_per_address_50_the_connections_past_it_are_closed_and_a_connected_device_gets_its_accepted()
                    throws Exception {
        capHits("mqtt.maxConnectionsPerAddress=50", 60, "connectionsRefusedPerAddress");
    }

    @Test
    void with_max_connections_20_the_connections_past_it_are_closed_and_a_connected_device_gets_its_accepted()
            throws Exception {
        capHits("mqtt.maxConnections=20", 30, "connectionsRefusedTotal");
    }

    /**
     * Restarts the site with a cap of {@code cap - 1} further connections beside the device's, opens {@code idle}
     * more that send nothing, and checks that the ones past the cap were closed at once and counted.
     */
    private void capHits(String set, int idle, String counter) throws Exception {
        restartWith(set);
        int cap = Integer.parseInt(set.substring(set.indexOf('=') + 1));
        int past = idle + 1 - cap;
        List<RawMqttClient> connections = idleConnections(idle);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> limits().path(counter).asLong() == past);
        assertThat(connections.stream().filter(this::closedByBridge).count()).isEqualTo(past);
        assertThat(limits().path("openConnections").asInt()).isEqualTo(cap);
        deviceGetsItsAccepted();
        connections.forEach(RawMqttClient::close);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> limits().path("openConnections").asInt() == 1);
    }

    private void restartWith(String set) {
        device.close();
        site.close();
        site = new TestSite(dir, set);
        device = site.device("field-node-1");
        device.connectAndSubscribe();
    }

    private List<RawMqttClient> idleConnections(int n) throws IOException {
        List<RawMqttClient> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new RawMqttClient("127.0.0.1", site.mqttPort));
        }
        return out;
    }

    private boolean closedByBridge(RawMqttClient c) {
        try {
            return c.closedByPeer(20);
        } catch (IOException e) {
            return true;
        }
    }

    private void deviceGetsItsAccepted() {
        device.publish("workorder/arrive", DeviceSimulator.command("WO-1", "\"workOrderId\":\"WO-1\""));
        device.awaitReceipt("WO-1", "accepted");
    }

    private JsonNode limits() throws Exception {
        return status().path("broker").path("limits");
    }

    /** Opens n connections, each sending {@code opening} and then {@code body}, the start of the packet it declares. */
    private void open(int n, byte[] opening, byte[] body) throws IOException {
        for (int i = 0; i < n; i++) {
            Socket s = new Socket("127.0.0.1", site.mqttPort);
            flood.add(s);
            OutputStream out = s.getOutputStream();
            out.write(opening);
            out.write(body);
            out.flush();
        }
    }

    /**
     * Trickles one byte a second into every flood connection until the bridge has closed each of them: an 'a', which
     * goes on a client id (or a PUBLISH payload) and so keeps every declared packet valid.
     */
    private void awaitAllClosedBy(Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofSeconds(1)).until(() -> {
            int open = 0;
            for (Socket s : flood) {
                if (!s.isClosed()) {
                    try {
                        s.getOutputStream().write('a');
                        s.getOutputStream().flush();
                        open++;
                    } catch (IOException e) {
                        s.close(); // the bridge has closed it: the write met its reset
                    }
                }
            }
            return open == 0;
        });
    }

    /**
     * The start of a valid MQTT 3.1.1 CONNECT body of {@code remaining} bytes: its variable header and the length of a
     * client id that fills the rest.
     */
    private static byte[] connectUpToClientId(int remaining) {
        int clientIdLength = remaining - 12;
        return new byte[] {0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 60, (byte) (clientIdLength >> 8), (byte) clientIdLength
        };
    }

    /** An MQTT fixed header: the packet type byte and the remaining length. */
    private static byte[] header(int type, int remaining) {
        byte[] out = new byte[5];
        out[0] = (byte) type;
        int i = 1;
        int n = remaining;
        do {
            int digit = n % 128;
            n /= 128;
            out[i++] = (byte) (n > 0 ? digit | 0x80 : digit);
        } while (n > 0);
        return java.util.Arrays.copyOf(out, i);
    }
}
