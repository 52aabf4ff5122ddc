package org.edgebridge.forward;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.ConcurrentLinkedDeque;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * The TLS sockets of {@link BlockingIngestClient}, in slots: one socket factory per exchange under way at once. The
 * JDK's keep-alive cache keys a kept-alive https connection by host, port and the {@code SSLSocketFactory} instance
 * (sun.net.www.protocol.https.HttpsClient.New looks it up with {@code kac.get(url, sslSocketFactory)}), so the
 * connection an exchange uses, new or kept alive, was made by its own slot, which remembers the socket it made last:
 * {@link Slot#closeSocket()} ends the exchange at once whatever it is doing (handshake, headers, body), and a
 * connection cut so is never in the cache. One instance per TLS context: a rotated client certificate comes with new
 * slots, whose keys no connection of the old certificate has. Thread-safe.
 */
final class TlsSlots {
    private final SSLSocketFactory tls;
    private final ConcurrentLinkedDeque<Slot> free = new ConcurrentLinkedDeque<>();

    TlsSlots(SSLSocketFactory tls) {
        this.tls = tls;
    }

    /** A slot for one exchange, the one used last if free (its connection is the likeliest to be kept alive). */
    Slot take() {
        Slot s = free.pollFirst();
        return s != null ? s : new Slot();
    }

    /** A socket factory used by one exchange at a time. */
    final class Slot extends SSLSocketFactory {
        private volatile @Nullable Socket socket;

        /** The exchange ended, its connection closed or back in the keep-alive cache. */
        void release() {
            free.addFirst(this);
        }

        /** Closes the socket of this slot's exchange (a reader blocked on it gets a SocketException). */
        void closeSocket() {
            Socket s = socket;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closed all the same
                }
            }
        }

        private Socket made(Socket s) {
            socket = s;
            return s;
        }

        @Override
        public Socket createSocket() throws IOException {
            return made(tls.createSocket());
        }

        @Override
        public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
            return made(tls.createSocket(s, host, port, autoClose));
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return made(tls.createSocket(host, port));
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return made(tls.createSocket(host, port, localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return made(tls.createSocket(host, port));
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            return made(tls.createSocket(address, port, localAddress, localPort));
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return tls.getDefaultCipherSuites();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return tls.getSupportedCipherSuites();
        }
    }
}
