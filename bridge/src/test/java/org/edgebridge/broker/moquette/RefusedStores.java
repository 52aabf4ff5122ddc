package org.edgebridge.broker.moquette;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

/** Broker stores the bridge cannot start on, made with the h2-mvstore API the way Moquette 0.17 lays them out. */
final class RefusedStores {
    private RefusedStores() {}

    /** A file that is no MVStore at all: the repair cannot even open it. */
    static void garbage(Path storeDir) throws IOException {
        Files.createDirectories(storeDir);
        Files.write(
                storeDir.resolve(BrokerStoreRepair.STORE_FILE),
                "not a store at all\n".repeat(500).getBytes());
    }

    /**
     * A store the repair reads and leaves alone (every session has an expiry instant) but Moquette refuses:
     * besides 100 good sessions, one has MQTT level 9, and 0.17's reader throws "Unrecognized MQTT version
     * value 9" while {@code SessionRegistry} lists the sessions, after {@code startServer} opened the store and
     * started its session loops.
     */
    static void unknownMqttLevel(Path storeDir) throws IOException {
        write(storeDir, sessions -> {
            for (int i = 1; i <= 100; i++) {
                String id = String.format("field-node-%03d", i);
                sessions.put(id, new StoredSession(id, System.currentTimeMillis() + 3_600_000, (byte) 4, 3600));
            }
            sessions.put(
                    "zz-odd-node",
                    new StoredSession("zz-odd-node", System.currentTimeMillis() + 3_600_000, (byte) 9, 3600));
        });
    }

    /** What 0.17 leaves after a crash: a persistent session with a queue and no expiry instant. */
    static void withoutExpiryInstant(Path storeDir, String clientId) throws IOException {
        write(
                storeDir,
                sessions -> sessions.put(
                        clientId, new StoredSession(clientId, StoredSession.NO_EXPIRY_INSTANT, (byte) 4, 3600)));
    }

    private static void write(Path storeDir, Consumer<MVMap<Object, StoredSession>> fill) throws IOException {
        Files.createDirectories(storeDir);
        MVStore store = new MVStore.Builder()
                .fileName(storeDir.resolve(BrokerStoreRepair.STORE_FILE).toString())
                .autoCommitDisabled()
                .open();
        try {
            MVMap<Object, StoredSession> sessions = store.openMap(
                    BrokerStoreRepair.SESSIONS_MAP,
                    new MVMap.Builder<Object, StoredSession>().valueType(StoredSession.Type.INSTANCE));
            fill.accept(sessions);
            for (Object id : sessions.keySet()) {
                store.openMap("queue_" + id);
                store.openMap("queue_" + id + "_meta");
            }
            store.commit();
        } finally {
            store.close();
        }
    }
}
