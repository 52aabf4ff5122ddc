package org.edgebridge.broker.moquette;

import io.moquette.broker.FailedStart;
import io.moquette.broker.Server;
import io.moquette.broker.config.MemoryConfig;
import io.moquette.interception.InterceptHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.BrokerStoreResets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts Moquette 0.17 on its H2 store whatever the store holds.
 *
 * <p>Moquette 0.17 bug answered: after a crash its store can hold sessions that make {@code startServer} throw ("Can't
 * track for expiration a session without expiry instant"), and a {@code startServer} that throws leaves the store file
 * locked and its threads running, so a second start in the same process fails too. The store is repaired first ({@link
 * BrokerStoreRepair}); if Moquette still refuses it, what the failed start left running is stopped ({@code
 * io.moquette.broker.FailedStart}), the store set aside ({@link BrokerStoreResets}) and Moquette started on an empty
 * store. Proven by {@code BrokerStoreResetTest} and {@code BrokerStoreResetIT}. A start that fails for a full disk
 * ({@link BrokerStoreDiskFull}) sets nothing aside: the store is intact, there is just no room to write it.
 */
final class MoquetteStart {
    private static final Logger LOG = LoggerFactory.getLogger(MoquetteStart.class);

    /** A started Moquette and the configuration it was started with. */
    record Started(Server server, MemoryConfig config) {}

    private MoquetteStart() {}

    static Started start(
            BrokerSettings settings,
            Clock clock,
            List<InterceptHandler> handlers,
            DeviceAuthenticator authenticator,
            DeviceAuthorizer authorizer,
            BrokerStoreResets storeResets) {
        MemoryConfig config = new MemoryConfig(MoquetteProperties.of(settings));
        try {
            BrokerStoreRepair.repair(settings.sessions().storeDir(), clock);
            return new Started(startOnce(config, handlers, authenticator, authorizer), config);
        } catch (BrokerStoreRefused e) {
            // a full disk is no fault of the store: setting it aside would lose every session for nothing
            throwIfDiskFull(settings, e, true);
            if (!Files.exists(settings.sessions().storeDir().resolve(BrokerStoreRepair.STORE_FILE))) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            storeResets.setAside(e);
            MemoryConfig empty = new MemoryConfig(MoquetteProperties.of(settings));
            try {
                return new Started(startOnce(empty, handlers, authenticator, authorizer), empty);
            } catch (BrokerStoreRefused again) {
                throwIfDiskFull(settings, again, false);
                throw new IllegalStateException("on an empty store too, " + again.getMessage(), again);
            }
        }
    }

    private static void throwIfDiskFull(BrokerSettings settings, BrokerStoreRefused refused, boolean storeKept) {
        Optional<BrokerStoreDiskFull> full =
                BrokerStoreDiskFull.of(settings.sessions().storeDir(), refused, storeKept);
        if (full.isPresent()) {
            throw full.get();
        }
    }

    /**
     * One {@code startServer}. If it throws, what it left running is stopped and its store closed, so that the
     * store can be moved and a second start in this process can open the file.
     *
     * @throws BrokerStoreRefused (Moquette refused to start; the cause says why)
     */
    private static Server startOnce(
            MemoryConfig config,
            List<InterceptHandler> handlers,
            DeviceAuthenticator authenticator,
            DeviceAuthorizer authorizer) {
        Server s = new Server();
        FailedStart cleanup = FailedStart.before();
        try {
            s.startServer(config, handlers, null, authenticator, authorizer);
            return s;
        } catch (IOException | RuntimeException e) {
            try {
                Set<Thread> left = cleanup.cleanUp(s);
                if (!left.isEmpty()) {
                    LOG.warn(
                            "after the failed broker start, {} session-loop threads did not end: {}",
                            left.size(),
                            left);
                }
            } catch (InterruptedException | RuntimeException cleanupError) {
                if (cleanupError instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                e.addSuppressed(cleanupError);
            }
            throw new BrokerStoreRefused("the MQTT broker did not start: " + e, e);
        }
    }
}
