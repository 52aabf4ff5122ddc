package org.edgebridge.bench;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * An MQTT 3.1.1 client made of bytes on a socket, for what a library will not do: send a CONNECT with any client
 * id, credentials or will, time a PINGREQ, or drop the connection without a DISCONNECT. One thread at a time.
 */
public final class RawMqttClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    /** What a CONNECT carries. Null fields are left out. */
    public record Connect(
            String clientId,
            String username,
            String password,
            String willTopic,
            byte[] willPayload,
            boolean cleanSession,
            int keepAliveSeconds) {
        public static Connect of(String clientId) {
            return new Connect(clientId, null, null, null, null, true, 60);
        }

        public Connect withCredentials(String user, String pass) {
            return new Connect(clientId, user, pass, willTopic, willPayload, cleanSession, keepAliveSeconds);
        }

        public Connect withWill(String topic, byte[] payload) {
            return new Connect(clientId, username, password, topic, payload, cleanSession, keepAliveSeconds);
        }

        public Connect persistent() {
            return new Connect(clientId, username, password, willTopic, willPayload, false, keepAliveSeconds);
        }
    }

    public RawMqttClient(String host, int port) throws IOException {
        this.socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(30_000);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Sends the CONNECT and reads the CONNACK. @return its return code (0 = accepted), or -1 if the bridge closed first */
    public int connect(Connect c) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeString(body, "MQTT");
        body.write(4);
        int flags = (c.cleanSession() ? 0x02 : 0)
                | (c.willTopic() != null ? 0x04 | 0x08 : 0)
                | (c.username() != null ? 0x80 : 0)
                | (c.password() != null ? 0x40 : 0);
        body.write(flags);
        body.write(c.keepAliveSeconds() >> 8);
        body.write(c.keepAliveSeconds() & 0xff);
        writeString(body, c.clientId());
        if (c.willTopic() != null) {
            writeString(body, c.willTopic());
            writeBytes(body, c.willPayload() == null ? new byte[0] : c.willPayload());
        }
        if (c.username() != null) {
            writeString(body, c.username());
        }
        if (c.password() != null) {
            writeString(body, c.password());
        }
        send(0x10, body.toByteArray());
        int type = in.read();
        if (type < 0) {
            return -1;
        }
        int length = readRemainingLength();
        byte[] rest = new byte[length];
        in.readFully(rest);
        if (type != 0x20 || length != 2) {
            throw new IOException("expected a CONNACK, got packet type " + type);
        }
        return rest[1];
    }

    /** Sends PINGREQ and waits for PINGRESP. @return the round trip in nanoseconds */
    public long ping() throws IOException {
        long start = System.nanoTime();
        out.write(new byte[] {(byte) 0xC0, 0x00});
        out.flush();
        int type = in.read();
        int length = readRemainingLength();
        if (type != 0xD0 || length != 0) {
            throw new IOException("expected a PINGRESP, got packet type " + type);
        }
        return System.nanoTime() - start;
    }

    /**
     * Sends a QoS 0 PUBLISH whose topic is these bytes exactly (they need not be valid UTF-8: what a hostile
     * client can send).
     */
    public void publishQos0(byte[] topic, byte[] payload) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeBytes(body, topic);
        body.write(payload, 0, payload.length);
        send(0x30, body.toByteArray());
    }

    /**
     * Sends a PUBLISH at QoS 0, or at QoS 1 with this packet id, and reads nothing: no PUBACK, no receipt (a device
     * that never reads looks like this).
     */
    public void publish(String topic, byte[] payload, int qos, int packetId, boolean retain) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(payload.length + topic.length() + 4);
        writeString(body, topic);
        if (qos > 0) {
            body.write(packetId >> 8);
            body.write(packetId & 0xff);
        }
        body.write(payload, 0, payload.length);
        send(0x30 | qos << 1 | (retain ? 0x01 : 0), body.toByteArray());
    }

    /** Sends a SUBSCRIBE to one filter at QoS 1 and reads the SUBACK. @return the SUBACK's return code */
    public int subscribe(String filter) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0);
        body.write(1);
        writeString(body, filter);
        body.write(1);
        send(0x82, body.toByteArray());
        int type = in.read();
        int length = readRemainingLength();
        byte[] rest = new byte[length];
        in.readFully(rest);
        if (type != 0x90) {
            throw new IOException("expected a SUBACK, got packet type " + type);
        }
        return rest[length - 1] & 0xff;
    }

    /** Writes these bytes as they are: for packets cut short, trickled, or not MQTT at all. */
    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /**
     * Sends PINGREQ and reads until its PINGRESP, dropping the PUBACKs and PUBLISHes before it: once it returns, the
     * bridge has read every packet sent before.
     */
    public void pingPastEverything() throws IOException {
        out.write(new byte[] {(byte) 0xC0, 0x00});
        out.flush();
        int type;
        do {
            type = in.read();
            if (type < 0) {
                throw new IOException("closed by the bridge before the PINGRESP");
            }
            in.readFully(new byte[readRemainingLength()]);
        } while (type != 0xD0);
    }

    /** One packet read whole: its first byte (type and flags) and what follows the remaining length. */
    public record Packet(int header, byte[] body) {
        public boolean isPuback() {
            return (header & 0xf0) == 0x40;
        }

        /** The packet id of a PUBACK (the first two bytes of its body). */
        public int packetId() {
            return ((body[0] & 0xff) << 8) | (body[1] & 0xff);
        }
    }

    /**
     * Reads the next packet, waiting up to the socket's timeout (30 s). May run on a thread of its own while another
     * one publishes. @return null once the bridge closed the connection
     */
    public Packet readPacket() throws IOException {
        int header = in.read();
        if (header < 0) {
            return null;
        }
        byte[] body = new byte[readRemainingLength()];
        in.readFully(body);
        return new Packet(header, body);
    }

    /** Sends DISCONNECT (so the will is discarded) and closes. */
    public void disconnect() throws IOException {
        out.write(new byte[] {(byte) 0xE0, 0x00});
        out.flush();
        socket.close();
    }

    /** Drops the connection with a TCP reset, no DISCONNECT: what a device that loses power looks like. */
    public void abort() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /** True once the other side has closed the connection (reads end of stream within the timeout). */
    public boolean closedByPeer(int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        try {
            return in.read() < 0;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private void send(int header, byte[] body) throws IOException {
        ByteArrayOutputStream packet = new ByteArrayOutputStream(body.length + 5);
        packet.write(header);
        int n = body.length;
        do {
            int digit = n % 128;
            n /= 128;
            packet.write(n > 0 ? digit | 0x80 : digit);
        } while (n > 0);
        packet.write(body);
        out.write(packet.toByteArray());
        out.flush();
    }

    private int readRemainingLength() throws IOException {
        int value = 0;
        int multiplier = 1;
        int digit;
        do {
            digit = in.readUnsignedByte();
            value += (digit & 0x7f) * multiplier;
            multiplier *= 128;
        } while ((digit & 0x80) != 0);
        return value;
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    private static void writeBytes(ByteArrayOutputStream out, byte[] b) {
        out.write(b.length >> 8);
        out.write(b.length & 0xff);
        out.write(b, 0, b.length);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closed already
        }
    }
}
