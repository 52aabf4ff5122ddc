package org.edgebridge.broker.moquette;

import java.nio.ByteBuffer;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;
import org.h2.mvstore.type.StringDataType;

/**
 * Part of the answer to the store bug of {@link BrokerStoreRepair}: Moquette 0.17 keeps its codec private, so its
 * byte layout is mirrored here. Proven by {@code BrokerStoreRepairTest}, which reads the repaired sessions back with
 * Moquette's own classes.
 *
 * <p>One value of Moquette 0.17's {@code sessions_store} map, in the byte layout of its
 * {@code H2SessionsRepository.SessionDataValueType}: version byte 1, client id, {@code expireAt} in epoch
 * milliseconds (-1: none yet), MQTT protocol level, expiry interval in seconds.
 */
record StoredSession(String clientId, long expireAt, byte protocolLevel, int expiryIntervalSeconds) {
    static final long NO_EXPIRY_INSTANT = -1;
    private static final byte SERDES_V1 = 1;

    boolean hasExpiryInstant() {
        return expireAt != NO_EXPIRY_INSTANT;
    }

    StoredSession expiringAt(long epochMillis) {
        return new StoredSession(clientId, epochMillis, protocolLevel, expiryIntervalSeconds);
    }

    /** The map's value type. */
    static final class Type extends BasicDataType<StoredSession> {
        static final Type INSTANCE = new Type();

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
