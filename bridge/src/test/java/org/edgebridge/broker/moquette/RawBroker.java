package org.edgebridge.broker.moquette;

import io.moquette.broker.Server;
import io.moquette.broker.config.MemoryConfig;
import io.moquette.broker.security.IAuthorizatorPolicy;
import io.moquette.broker.subscriptions.Topic;
import java.io.IOException;
import java.util.List;
import java.util.Properties;
import org.edgebridge.broker.BrokerSettings;

/**
 * Not a workaround and not the product (test sources, for the benchmark): the bare broker. It runs segmented queues
 * because of the 0.17 H2-queue bug that {@link ReceiptMessage} answers. Exercised by {@code BenchQuickIT}.
 *
 * <p>Moquette with the bridge's broker configuration but nothing of the bridge: no interceptor, no ACL, its own
 * listener, and segmented instead of H2 queues (below). Only for the benchmark's baseline (B0): what the bare
 * broker does on this machine.
 */
public final class RawBroker implements AutoCloseable {
    private final Server server = new Server();

    public RawBroker(BrokerSettings settings) {
        Properties p = MoquetteProperties.of(settings);
        p.setProperty("port", String.valueOf(settings.listener().port()));
        p.setProperty("allow_anonymous", "true");
        // Not h2: with h2 queues, bare 0.17 closes its store and kills its session loops as soon as a subscriber
        // falls behind (a queued message's buffer is released before the lazy commit serializes it; see
        // docs/design.md). The bridge never queues a device's own buffers; a bare broker routing them to a
        // subscriber does. Segmented queues (Moquette's default) serialize at once.
        p.setProperty("persistent_queue_type", "segmented");
        try {
            server.startServer(new MemoryConfig(p), List.of(), null, null, new IAuthorizatorPolicy() {
                @Override
                public boolean canWrite(Topic topic, String user, String client) {
                    return true;
                }

                @Override
                public boolean canRead(Topic topic, String user, String client) {
                    return true;
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("raw Moquette did not start: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        server.stopServer();
    }
}
