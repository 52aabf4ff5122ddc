package org.edgebridge.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;
import org.h2.mvstore.type.StringDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes Moquette 0.17's H2 store startable again after a crash, before the broker opens it.
 *
 * <p>0.17 saves a persistent session without an expiry instant and stamps one only on a clean stop; at
 * start-up it throws on any stored session without one ("Can't track for expiration a session without expiry
 * instant") and never starts. This stamps {@code expireAt = now + expiryInterval} on such sessions. The
 * value codec mirrors 0.17's {@code H2SessionsRepository.SessionDataValueType} (version byte 1). If the
 * store cannot be read at all it is moved aside: the SQLite outbox is the source of truth, and devices
 * whose session is gone get {@code sessionPresent=0} and subscribe again.
 */
final class BrokerStoreRepair {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerStoreRepair.class);
    static final String STORE_FILE = "moquette_store.h2";
    private static final String SESSIONS_MAP = "sessions_store";
    private static final byte SERDES_V1 = 1;
    private static final long UNDEFINED_INSTANT = -1;

    private BrokerStoreRepair() {}

    /** @return how many sessions were given an expiry instant */
    static int repair(Path storeDir, Clock clock) {
        Path file = storeDir.resolve(STORE_FILE);
        if (!Files.exists(file)) {
            return 0;
        }
        try {
            return stampMissingExpiry(file, clock);
        } catch (RuntimeException e) {
            quarantine(file, e);
            return 0;
        }
    }

    private static int stampMissingExpiry(Path file, Clock clock) {
        MVStore store = new MVStore.Builder().fileName(file.toAbsolutePath().toString()).autoCommitDisabled().open();
        try {
            if (!store.hasMap(SESSIONS_MAP)) {
                return 0;
            }
            MVMap<Object, StoredSession> sessions =
                    store.openMap(SESSIONS_MAP, new MVMap.Builder<Object, StoredSession>().valueType(new StoredSessionType()));
            List<Map.Entry<Object, StoredSession>> broken = new ArrayList<>();
            for (Map.Entry<Object, StoredSession> e : sessions.entrySet()) {
                if (e.getValue().expireAt() == UNDEFINED_INSTANT) {
                    broken.add(e);
                }
            }
            long now = clock.millis();
            for (Map.Entry<Object, StoredSession> e : broken) {
                StoredSession s = e.getValue();
                sessions.put(e.getKey(), new StoredSession(s.clientId(), now + s.expiryIntervalSeconds() * 1000L,
                        s.protocolLevel(), s.expiryIntervalSeconds()));
            }
            if (!broken.isEmpty()) {
                store.commit();
                LOG.info("broker store: gave {} sessions left by an unclean stop an expiry instant", broken.size());
            }
            return broken.size();
        } finally {
            store.close();
        }
    }

    private static void quarantine(Path file, RuntimeException cause) {
        Path aside = file.resolveSibling(STORE_FILE + ".unreadable-" + System.currentTimeMillis());
        try {
            Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
            LOG.warn("broker store {} could not be read ({}); moved to {} and starting with no sessions: devices "
                    + "will get sessionPresent=0 and subscribe again; no command is lost (the outbox holds them)",
                    file, cause.toString(), aside.getFileName());
        } catch (IOException e) {
            throw new IllegalStateException("broker store " + file + " is unreadable (" + cause + ") and could not be moved aside: "
                    + e.getMessage() + "; delete it to start", e);
        }
    }

    private record StoredSession(String clientId, long expireAt, byte protocolLevel, int expiryIntervalSeconds) {}

    /** Byte layout of 0.17's session value: version, clientId, expireAt, MQTT level, expiry interval. */
    private static final class StoredSessionType extends BasicDataType<StoredSession> {
        @Override
        public int getMemory(StoredSession s) {
            return StringDataType.INSTANCE.getMemory(s.clientId()) + 8 + 1 + 4;
        }

        @Override
        public void write(WriteBuffer buff, StoredSession s) {
            buff.put(SERDES_V1);
            StringDataType.INSTANCE.write(buff, s.clientId());
            buff.putLong(s.expireAt());
            buff.put(s.protocolLevel());
            buff.putInt(s.expiryIntervalSeconds());
        }

        @Override
        public StoredSession read(ByteBuffer buff) {
            byte version = buff.get();
            if (version != SERDES_V1) {
                throw new IllegalStateException("unknown session record version " + version);
            }
            return new StoredSession(StringDataType.INSTANCE.read(buff), buff.getLong(), buff.get(), buff.getInt());
        }

        @Override
        public StoredSession[] createStorage(int size) {
            return new StoredSession[size];
        }
    }
}
