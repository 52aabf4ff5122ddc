package org.edgebridge.broker.moquette;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.edgebridge.storage.Fsync;

/**
 * Moquette 0.17 bug answered: after a crash, sessions saved without an expiry instant make {@code startServer}
 * throw for good; and h2-mvstore 2.1.212 can silently reopen a store at an old version when a write follows its
 * crash recovery. Proven by {@code BrokerStoreRepairTest} (built with Moquette's own {@code H2Builder}).
 *
 * <p>Makes Moquette 0.17's H2 store startable again after a crash, before the broker opens it (see
 * docs/moquette.md, "The store after kill -9").
 *
 * <p>0.17 saves a persistent session without an expiry instant and stamps one only on a clean stop; at
 * start-up it throws on any stored session without one ("Can't track for expiration a session without expiry
 * instant"). This stamps {@code expireAt = now + expiryInterval} on such sessions, in three steps:
 * <ol>
 *   <li><b>settle</b>: open the store and close it without writing. After an unclean stop, h2-mvstore 2.1.212
 *       recovers the newest chunk but treats the space of dead chunks that its chunk layout still lists as
 *       free; a write in that same session can land there, and the next open, finding a listed chunk
 *       overwritten, silently falls back to an old version: the stamps (and anything newer) are gone. A close
 *       without a write makes the recovered version the clean head, and a clean open keeps that space
 *       reserved until the dead chunk is dropped together with its layout entry.</li>
 *   <li><b>stamp</b> the sessions that lack an instant, in a second, clean open.</li>
 *   <li><b>verify</b> that a fresh open reads what was written: the version written or a newer one, and no
 *       session without an instant.</li>
 * </ol>
 * Any failure is a {@link BrokerStoreRefused}: the caller sets the store aside and starts with an empty one.
 */
final class BrokerStoreRepair {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerStoreRepair.class);
    static final String STORE_FILE = "moquette_store.h2";
    static final String SESSIONS_MAP = "sessions_store";

    private BrokerStoreRepair() {}

    /**
     * @return how many sessions were given an expiry instant
     * @throws BrokerStoreRefused if the store cannot be read or does not read back what was written
     */
    static int repair(Path storeDir, Clock clock) {
        Path file = storeDir.resolve(STORE_FILE);
        if (!Files.exists(file)) {
            return 0;
        }
        String name = file.toAbsolutePath().toString();
        try {
            settle(name);
            Stamped stamped = stampMissingExpiry(name, clock);
            verify(name, stamped.version());
            if (stamped.count() > 0) {
                LOG.info("broker store: gave {} sessions left by an unclean stop an expiry instant (store version {})",
                        stamped.count(), stamped.version());
            }
            return stamped.count();
        } catch (BrokerStoreRefused e) {
            throw e;
        } catch (RuntimeException e) {
            throw new BrokerStoreRefused("the broker store could not be read: " + e, e);
        }
    }

    private static void settle(String file) {
        open(file, false).close();
        sync(file);
    }

    /**
     * h2-mvstore 2.1.212 does not fsync on close: without this, a power cut right after the repair could leave a
     * file whose header and chunks were never written through, while Moquette's later commits built on them.
     */
    private static void sync(String file) {
        try {
            Fsync.file(java.nio.file.Path.of(file));
        } catch (java.io.IOException e) {
            throw new BrokerStoreRefused("the broker store could not be synced after its repair: " + e, e);
        }
    }

    private record Stamped(int count, long version) {}

    private static Stamped stampMissingExpiry(String file, Clock clock) {
        MVStore store = open(file, false);
        try {
            if (!store.hasMap(SESSIONS_MAP)) {
                return new Stamped(0, store.getCurrentVersion());
            }
            MVMap<Object, StoredSession> sessions = sessions(store);
            List<Map.Entry<Object, StoredSession>> missing = new ArrayList<>();
            for (Map.Entry<Object, StoredSession> e : sessions.entrySet()) {
                if (!e.getValue().hasExpiryInstant()) {
                    missing.add(e);
                }
            }
            long now = clock.millis();
            for (Map.Entry<Object, StoredSession> e : missing) {
                StoredSession s = e.getValue();
                sessions.put(e.getKey(), s.expiringAt(now + s.expiryIntervalSeconds() * 1000L));
            }
            if (!missing.isEmpty()) {
                store.commit();
            }
            return new Stamped(missing.size(), store.getCurrentVersion());
        } finally {
            store.close();
            sync(file);
        }
    }

    private static void verify(String file, long writtenVersion) {
        MVStore store = open(file, true);
        try {
            long read = store.getCurrentVersion();
            if (read < writtenVersion) {
                throw new BrokerStoreRefused("the broker store reopened at version " + read + " after version "
                        + writtenVersion + " was written: it fell back to an older state");
            }
            if (!store.hasMap(SESSIONS_MAP)) {
                return;
            }
            List<String> without = sessions(store).values().stream().filter(s -> !s.hasExpiryInstant())
                    .map(StoredSession::clientId).limit(5).toList();
            if (!without.isEmpty()) {
                throw new BrokerStoreRefused("the broker store still holds sessions without an expiry instant after "
                        + "the repair, e.g. " + without);
            }
        } finally {
            store.close();
        }
    }

    private static MVStore open(String file, boolean readOnly) {
        MVStore.Builder b = new MVStore.Builder().fileName(file).autoCommitDisabled();
        return (readOnly ? b.readOnly() : b).open();
    }

    private static MVMap<Object, StoredSession> sessions(MVStore store) {
        return store.openMap(SESSIONS_MAP, new MVMap.Builder<Object, StoredSession>().valueType(StoredSession.Type.INSTANCE));
    }
}
