package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, point 6: {@code ConnectGate.held} had no bound between a client's CONNECT and the moment Moquette took
 * it: the packets that came with the CONNECT were all held (and the connection read on meanwhile). Now nothing is
 * read until the CONNECT is taken, and more than {@code mqtt.maxHeldPackets} (100) packets with it close the
 * connection. Raw bytes: a CONNECT and 2,000 PINGREQs in one write, as a library would never send them.
 */
class HeldPacketsIT extends OneDeviceSite {
    private static final int PINGS = 2_000;

    HeldPacketsIT() {
        super("field-node-1");
    }

    @Test
    void a_connect_followed_by_two_thousand_pingreqs_in_one_write_is_closed_and_a_device_still_gets_its_accepted()
            throws Exception {
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        burst.write(connect("held-flood"));
        for (int i = 0; i < PINGS; i++) {
            burst.write(new byte[] {(byte) 0xC0, 0x00});
        }
        try (Socket s = new Socket("127.0.0.1", site.mqttPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(burst.toByteArray());
            s.getOutputStream().flush();
            int pingResponses = 0;
            InputStream in = s.getInputStream();
            try {
                for (int b = in.read(); b >= 0; b = in.read()) {
                    pingResponses += b == 0xD0 ? 1 : 0;
                }
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError("the bridge kept the connection open (" + pingResponses + " PINGRESPs)", e);
            } catch (SocketException reset) {
                // closed by the bridge with bytes unread: a reset
            }
            assertThat(pingResponses)
                    .as("PINGRESPs before the bridge closed the connection")
                    .isLessThan(PINGS);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> status().path("broker")
                                .path("limits")
                                .path("heldTooMany")
                                .asLong()
                        == 1);
        device.publish("workorder/arrive", DeviceSimulator.command("HELD-1", "\"workOrderId\":\"HELD-1\""));
        device.awaitReceipt("HELD-1", "accepted");
        assertThat(get("/metrics").body()).contains("edgebridge_broker_connections_held_too_many_total 1.0");
    }

    /** An MQTT 3.1.1 CONNECT with this client id, clean session, no credentials. */
    private static byte[] connect(String clientId) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 60});
        body.write(0);
        body.write(clientId.length());
        body.writeBytes(clientId.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        ByteArrayOutputStream packet = new ByteArrayOutputStream();
        packet.write(0x10);
        packet.write(body.size());
        packet.writeBytes(body.toByteArray());
        return packet.toByteArray();
    }
}
